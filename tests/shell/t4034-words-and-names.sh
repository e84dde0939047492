#!/bin/sh
# The small ones of #34: who-wrote says "renamed into place", not rename_to; files --help
# counts its six columns; inputs --json names the file "path" as outputs does (and keeps
# "target", its version, for older readers).
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd python3
cp -r "$SAMPLE" "$T/s" && cd "$T/s"
bt run -q -- make -j2 > "$T/build.log" 2>&1 || fail "sample build: $(cat "$T/build.log")"
# who-wrote in words: version.h was renamed into place by mv.
out=$(bt who-wrote version.h)
assert_contains "$out" "did:  renamed into place" "rename_to in words"
printf '%s\n' "$out" | grep -q "rename_to" && fail "jargon: $out"
# files --help counts its columns.
bt files --help | grep -q "six columns" || fail "files --help: not six columns"
# inputs --json: "path" as outputs says it; "target" kept.
bt inputs --json hello | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["path"].endswith("/hello"), d
assert d["target"]["path"] == d["path"] and "sha256" in d["target"], d
' || fail "inputs --json path"
assert_no_leftovers
