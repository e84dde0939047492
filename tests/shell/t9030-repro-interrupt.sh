#!/bin/sh
# repro stopped: SIGINT (as Ctrl-C sends) or SIGTERM to repro during a build stops that build
# (passed on to its `buildtrail run`, which ends its trace), and repro says where the copies
# and traces are, exiting 128+N; a build killed under it (its process SIGKILLed) is a failed
# build, exit 2, its log named.  Either way no mount, no process and no private directory
# is left.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd setsid
mkdir "$T/proj"
cd "$T/proj"
slow="touch started; exec sh -c 'sleep 60; :' $TEST_MARK"
# INT as a terminal sends it: to the whole process group (setsid: repro, its run and the build
# in a group of their own; --default-signal: a script's background job starts with SIGINT
# ignored, a terminal's foreground job does not).  TERM to repro alone: passed on.
for sig in INT TERM; do
    o="$T/o-$sig"
    setsid env --default-signal=INT,QUIT "$BUILDTRAIL" repro --vary umask -o "$o" -- sh -c "$slow" > "$T/out" 2> "$T/err" &
    pid=$!
    wait_until 20 test -e "$o/build/proj/started"
    [ -e "$o/build/proj/started" ] || fail "$sig: the build did not start: $(cat "$T/err")"
    wait_until 20 pgrep -f "^sh -c sleep 60; : $TEST_MARK\$"   # (its exec done, under load too)
    sleep 0.3
    if [ "$sig" = INT ]; then n=2; /bin/kill -s INT -- "-$pid"; else n=15; kill -TERM "$pid"; fi
    set +e; wait "$pid"; st=$?; set -e
    [ "$st" = $((128 + n)) ] || fail "$sig: exit $st: $(cat "$T/err")"
    assert_contains "$(cat "$T/err")" "stopped by signal $n during the control build; the copies and traces so far are in $o (this build's copy: $o/control/proj)" "$sig: where the copies are"
    [ -d "$o/control/proj" ] && [ -f "$o/control.db" ] || fail "$sig: the copy and trace kept: $(ls "$o")"
    [ ! -e "$o/experiment.db" ] || fail "$sig: no experiment after the stop"
    [ -s "$T/out" ] && fail "$sig: a report after the stop: $(cat "$T/out")"
    assert_no_leftovers
done
# the build killed under it
o="$T/o-kill"
"$BUILDTRAIL" repro --vary umask -o "$o" -- sh -c "$slow" > "$T/out" 2> "$T/err" &
pid=$!
wait_until 20 test -e "$o/build/proj/started"
wait_until 20 pgrep -f "^sh -c sleep 60; : $TEST_MARK\$"
pkill -KILL -f "^sh -c sleep 60; : $TEST_MARK\$" || fail "no build to kill"
set +e; wait "$pid"; st=$?; set -e
[ "$st" = 2 ] || fail "killed build: exit $st: $(cat "$T/err")"
assert_contains "$(cat "$T/err")" "the control build failed" "the killed build said"
assert_contains "$(cat "$T/err")" "$o/control.log" "its log named"
assert_no_leftovers
