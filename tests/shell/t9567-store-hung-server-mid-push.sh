#!/bin/sh
# store push: a server that stops answering in the middle of a push (here: the backend serving
# it stopped with SIGSTOP during the closure rows' COPY) is given up after
# $BUILDTRAIL_STORE_TIMEOUT seconds of silence — one line saying so and that nothing of the push
# is stored, exit 1 — instead of a push that waits forever; once the server runs again nothing
# of that push is visible, and the next push stores the build.
. "$(dirname "$0")/lib.sh"
store_with_build
bt store init >/dev/null
BUILDTRAIL_STORE_TIMEOUT=3 BUILDTRAIL_STORE_TEST_PAUSE=copy:5 timeout 60 "$BUILDTRAIL" store push \
    > "$T/push.out" 2> "$T/push.err" &
pusher=$!
wait_until 30 grep -q pausing "$T/push.err"
grep -q pausing "$T/push.err" || { kill $pusher 2>/dev/null || true; fail "the push never paused: $(cat "$T/push.err")"; }
backend=$(psql -c "SELECT pid FROM pg_stat_activity WHERE query LIKE 'COPY %closure%' LIMIT 1")
[ -n "$backend" ] || { kill $pusher 2>/dev/null || true; fail "no backend in the closure's COPY"; }
kill -STOP "$backend"
set +e
wait $pusher
st=$?
set -e
kill -CONT "$backend"
assert_eq "$st" 1 "exit status of the push given up (124: it waited for the timeout(1) of 60 s)"
line=$(grep -v pausing "$T/push.err")
assert_eq "$(printf '%s\n' "$line" | wc -l)" 1 "one line: $line"
assert_contains "$line" "the store has not answered for 3 s" "the line"
assert_contains "$line" "nothing of this push is stored" "the line"
for _ in $(seq 100); do
    [ "$(psql -c "SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'COPY %closure%'")" = 0 ] && break
    sleep 0.1
done
for t in build closure edge version process product; do
    assert_eq "$(psql -c "SELECT count(*) FROM $t")" 0 "rows of $t after the push given up"
done
bt store push | grep -q 'stored as build' || fail "the push after the one given up"
