#!/bin/sh
# When the build's command exits, nothing it started survives (double-forked daemons too), and
# when buildtrail itself is killed, the build dies with it.
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir "$T/ws" && cd "$T/ws"
bt run -- sh -c "(setsid sh -c 'sleep 300; :' $TEST_MARK &) ; nohup sh -c 'sleep 300; :' $TEST_MARK >/dev/null 2>&1 & echo left"
assert_no_leftovers

# buildtrail killed with SIGKILL: the build goes too (no mount, no process).
"$BUILDTRAIL" run -- sh -c "echo up; exec sh -c 'sleep 300; :' $TEST_MARK" > "$T/out.txt" 2>&1 &
pid=$!
wait_until 30 test -s "$T/out.txt"
kill -KILL "$pid"
wait "$pid" 2>/dev/null || true
rm -rf "$TMPDIR"/buildtrail-* # a killed daemon cannot remove its private directory
bt tree > /dev/null || fail "the trace of a killed run is not readable"
assert_no_leftovers
