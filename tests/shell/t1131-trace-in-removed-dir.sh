#!/bin/sh
# A trace inside a directory the build removes makes that removal fail ("Directory not
# empty": the daemon holds the trace, which the build cannot see to remove it first).  The
# run's summary and `info` say so, naming the directory and the fix; a removal that failed
# for another reason, or one the trace did not stand in, is not blamed on it.
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir "$T/ws" && cd "$T/ws"

mkdir -p out/sub && echo x > out/sub/f
set +e
err=$(bt run -o out/sub/t.db -- sh -c 'rm -rf out' 2>&1); st=$?
set -e
assert_eq "$st" 1 "rm's exit status"
assert_contains "$err" "Directory not empty" "rm's own message"
assert_contains "$err" "the build could not remove $T/ws/out/sub (Directory not empty) because the trace lay in it: write the trace outside the directories the build deletes (-o $T/ws/t.db)" "summary"
ans=$(bt info -d out/sub/t.db)
assert_contains "$ans" "note:       the build could not remove $T/ws/out/sub (Directory not empty) because this trace lay in it" "info"
assert_eq "$(bt info -d out/sub/t.db --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["removal_blocked_by_trace"])')" "$T/ws/out/sub" "info --json"

# Outside the removed tree: the removal works and nothing is said.
mkdir -p gone && echo x > gone/f
err=$(bt run -o t.db -- sh -c 'rm -rf gone' 2>&1)
[ ! -e gone ] || fail "the removal failed with the trace outside it"
case $err in *"could not remove"*) fail "a removal was blamed on the trace: $err" ;; esac
case $(bt info -d t.db) in *note:*) fail "info blamed the trace" ;; esac
assert_eq "$(bt info -d t.db --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["removal_blocked_by_trace"])')" None "info --json, nothing blocked"

# A directory left non-empty by something else than the trace (the trace beside it): not blamed.
mkdir -p keep && echo x > keep/f
err=$(bt run -o t.db -- sh -c 'rmdir keep' 2>&1) || true
assert_contains "$err" "Directory not empty" "rmdir's own message"
case $err in *"could not remove"*) fail "a removal was blamed on a trace not in it: $err" ;; esac
assert_no_leftovers
