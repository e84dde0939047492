#!/bin/sh
# The trace's own file is watched: deleted, renamed or replaced while recording, buildtrail says
# so at once, stops the build (whose record would be lost), says so again at the end, and exits
# non-zero.
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir "$T/ws" && cd "$T/ws"

try() { # HOW-TO-LOSE-IT WORDS
    # Emptied here, not by the background job's redirection, which may come later: the wait
    # below would then see the previous try's "started" and lose the trace before it exists.
    : > "$T/run.out"
    "$BUILDTRAIL" run -o t.db -- sh -c "echo started; exec sh -c 'sleep 30; echo late > late.txt' $TEST_MARK" > "$T/run.out" 2> "$T/run.err" &
    pid=$!
    wait_until 30 grep -q started "$T/run.out"
    # The build's output can come before the trace is in place (publishing renames it, then
    # opens it): lost between the two, it is "cannot put the trace in place", not this test's
    # case.  Its -wal is there once the recorder writes into the trace in place.
    wait_until 30 test -e t.db-wal
    eval "$1"
    start=$(date +%s)
    set +e; wait "$pid"; st=$?; set -e
    [ $(( $(date +%s) - start )) -lt 15 ] || fail "$1: the build ran on"
    [ "$st" != 0 ] || fail "$1: exit 0"
    assert_contains "$(cat "$T/run.err")" "buildtrail run: the trace $T/ws/t.db $2 while the build was running; stopping the build" "$1: message at once"
    assert_contains "$(cat "$T/run.err")" "buildtrail run: the trace $T/ws/t.db $2 during the run: this run's record is lost" "$1: message at the end"
    [ ! -e late.txt ] || fail "$1: the build ran to its end"
    assert_no_leftovers
    rm -f t.db* other.db*
}
try "rm t.db" "was deleted"
try "mv t.db other.db" "was renamed"
try "cp t.db other.db && mv other.db t.db" "was replaced by another file"
