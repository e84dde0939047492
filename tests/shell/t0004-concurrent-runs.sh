#!/bin/sh
# A second `buildtrail run` in the same place never replaces a trace that is being recorded:
# it refuses with one line (and exit 125), and the first run's trace stays complete.
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir "$T/ws" && cd "$T/ws"
"$BUILDTRAIL" run -- sh -c "echo first > first.txt; echo started; sh -c 'sleep 2; :' $TEST_MARK; echo done > done.txt" > "$T/first.out" 2>&1 &
first=$!
wait_until 30 test -s "$T/first.out"
set +e
err=$(bt run -- true 2>&1); st=$?
set -e
assert_eq "$st" 125 "exit status of the second run"
assert_contains "$err" "cannot write the trace $T/ws/buildtrail.db: another buildtrail run (pid $first) is recording it; wait for that run, or choose another file with -o" "message"
wait "$first" || fail "the first run failed: $(cat "$T/first.out")"
bt who-wrote done.txt | grep -q "written by" || fail "the first run's trace is incomplete"
# Once it has finished, the trace may be replaced.
bt run -- true || fail "a finished trace could not be replaced"
assert_no_leftovers
