#!/bin/sh
# Each process's environment is recorded at exec: show prints it, the SLSA and in-toto exports
# carry the build command's, SPDX 3 each build's.  A variable set around `run` appears with its
# value; one whose name looks like a secret (default patterns) or matches --env-redact keeps
# its name only, and its value is nowhere in the trace.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd python3
mkdir "$T/ws" && cd "$T/ws"
echo data > in.txt
secret="s3cr3t-$$-value" other="hush-$$-value"
BT_PLAIN=plain-value BT_API_TOKEN=$secret BT_PRIVATE=$other \
    bt run --env-redact 'bt_priv*' -- sh -c 'cat in.txt > out.txt' > /dev/null
! grep -a -q -e "$secret" -e "$other" buildtrail.db || fail "a redacted value is in the trace"
grep -a -q "plain-value" buildtrail.db || fail "the environment is not in the trace"

out=$(bt show 1)
assert_contains "$out" "environment:" "show's environment section"
assert_contains "$out" "BT_PLAIN=plain-value" "a plain variable"
assert_contains "$out" "BT_API_TOKEN  (value not recorded: redacted)" "a default-redacted variable"
assert_contains "$out" "BT_PRIVATE  (value not recorded: redacted)" "an --env-redact variable"
# A process the build started inherits the environment (cat's image, seen through who-read).
cat_id=$(bt who-read --json in.txt | python3 -c 'import json,sys; print(json.load(sys.stdin)["paths"][0]["readers"][0]["process"]["id"])')
bt show --json "$cat_id" | python3 -c '
import json, sys
env = json.load(sys.stdin)["processes"][0]["environment"]
assert env["BT_PLAIN"] == "plain-value" and env["BT_API_TOKEN"] is None, env
' || fail "show --json of the cat"

bt export --format slsa | python3 -c '
import json, sys
env = json.load(sys.stdin)["predicate"]["buildDefinition"]["externalParameters"]["environment"]
assert env["BT_PLAIN"] == "plain-value" and env["BT_API_TOKEN"] is None and env["BT_PRIVATE"] is None, env
' || fail "slsa externalParameters.environment"
bt export --format intoto | python3 -c '
import json, sys
env = json.load(sys.stdin)["predicate"]["monitoredProcess"]["environment"]
assert env["BT_PLAIN"] == "plain-value" and env["BT_API_TOKEN"] is None, env
' || fail "intoto monitoredProcess.environment"
bt export --format spdx3 | python3 -c '
import json, sys
builds = [e for e in json.load(sys.stdin)["@graph"] if e["type"] == "build_Build"]
assert builds, "no build_Build"
for b in builds:
    env = {d["key"]: d.get("value") for d in b["build_environment"]}
    assert env["BT_PLAIN"] == "plain-value" and env["BT_API_TOKEN"] is None, env
' || fail "spdx3 build_environment"
assert_no_leftovers
