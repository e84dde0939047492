#!/bin/sh
# Ctrl-C (SIGINT to the foreground process group) reaches the build as it would without
# buildtrail; the trace recorded so far stays readable and the run is marked interrupted.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd setsid
mkdir "$T/ws" && cd "$T/ws"
# setsid: buildtrail and the build in a process group of their own, as a terminal job is;
# env --default-signal: a background job of a script starts with SIGINT ignored, a terminal's
# foreground job does not (and the build inherits what buildtrail was given).
setsid env --default-signal=INT,QUIT "$BUILDTRAIL" run -- sh -c "echo data > before.txt; echo started; exec sh -c 'sleep 60; :' $TEST_MARK" > "$T/out.txt" 2>&1 &
pid=$!
wait_until 30 test -s "$T/out.txt"
sleep 0.3
/bin/kill -s INT -- "-$pid"    # the whole process group, as the terminal does
set +e; wait "$pid"; st=$?; set -e
assert_eq "$st" 130 "exit status after Ctrl-C"
assert_eq "$(sql buildtrail.db 'select state, exit_status, term_signal from runs')" "interrupted|130|2" "run record"
bt who-wrote before.txt | grep -q "written by" || fail "the trace so far is not readable"
assert_no_leftovers

# A SIGTERM sent to buildtrail alone is passed on to the build.
setsid "$BUILDTRAIL" run -- sh -c "echo started; exec sh -c 'sleep 60; :' $TEST_MARK" > "$T/out2.txt" 2>&1 &
pid=$!
wait_until 30 test -s "$T/out2.txt"
sleep 0.3
kill -TERM "$pid"
set +e; wait "$pid"; st=$?; set -e
assert_eq "$st" 143 "exit status after SIGTERM to buildtrail"
assert_eq "$(sql buildtrail.db 'select state from runs')" interrupted "run state"
assert_no_leftovers
