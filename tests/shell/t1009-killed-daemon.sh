#!/bin/sh
# A run whose daemon is killed (SIGKILL) stays recognisable as unfinished: queries say so.  Its
# private directory (the build's whole /tmp) is reclaimed by the next run, which never touches a
# live run's directory or anything not made by buildtrail.
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir "$T/ws" && cd "$T/ws"
"$BUILDTRAIL" run --private-tmp -- sh -c "echo data > /tmp/in-private-tmp; echo up; exec sh -c 'sleep 300; :' $TEST_MARK" > "$T/out.txt" 2>&1 &
pid=$!
wait_until 30 test -s "$T/out.txt"
kill -KILL "$pid"
wait "$pid" 2>/dev/null || true
[ -n "$(ls -A "$TMPDIR")" ] || fail "the killed run's private directory is not there to reclaim"
set +e; err=$(bt tree 2>&1 >/dev/null); set -e
assert_contains "$err" "the run that recorded buildtrail.db was killed before it finished" "query note"

# Something that is not buildtrail's, and a live run's directory: both kept.
mkdir "$TMPDIR/buildtrail-keep-me" "$TMPDIR/other"
"$BUILDTRAIL" run -o live.db -- sh -c "echo up; exec sh -c 'sleep 3; :' $TEST_MARK" > "$T/live.txt" 2>&1 &
live=$!
wait_until 30 test -s "$T/live.txt"
bt run -o next.db -- true
left=$(ls -A "$TMPDIR" | sort | tr '\n' ' ')
# the live run's own directory is the one buildtrail-?????? left
n=$(ls -A "$TMPDIR" | grep -c '^buildtrail-......$' || true)
assert_eq "$n" 1 "buildtrail directories after the reclaim ($left)"
[ -d "$TMPDIR/buildtrail-keep-me" ] && [ -d "$TMPDIR/other" ] || fail "a directory not buildtrail's was removed"
wait "$live" || fail "the live run failed: $(cat "$T/live.txt")"
rmdir "$TMPDIR/buildtrail-keep-me" "$TMPDIR/other"
assert_no_leftovers
