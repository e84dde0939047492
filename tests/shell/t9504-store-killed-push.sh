#!/bin/sh
# store push killed with SIGKILL inside its transaction — in the middle of a COPY (half the
# closure rows sent), then with every row sent but not committed (BUILDTRAIL_STORE_TEST_PAUSE,
# a test-only pause) — leaves nothing of the build, and the next push of the trace stores it.
. "$(dirname "$0")/lib.sh"
store_with_build
bt store init >/dev/null
# killed_push PAUSE: a push paused there, killed with SIGKILL; nothing of it is left.
killed_push() {
    rm -f "$T/push.err"
    BUILDTRAIL_STORE_TEST_PAUSE=$1 "$BUILDTRAIL" store push > "$T/push.out" 2> "$T/push.err" &
    pusher=$!
    wait_until 30 grep -q pausing "$T/push.err"
    grep -q pausing "$T/push.err" || fail "the push never reached its pause ($1): $(cat "$T/push.err")"
    assert_eq "$(psql -c 'SELECT count(*) FROM build')" 0 "a build seen before its commit ($1)"
    kill -KILL $pusher
    wait $pusher 2>/dev/null || true
    for _ in $(seq 100); do
        [ "$(psql -c "SELECT count(*) FROM pg_stat_activity WHERE state LIKE 'idle in%' OR (state = 'active' AND query LIKE 'COPY%')")" = 0 ] && break
        sleep 0.1
    done
    for t in build process version product closure edge build_label content path argv; do
        assert_eq "$(psql -c "SELECT count(*) FROM $t")" 0 "rows of $t after the push killed at $1"
    done
}
killed_push copy:60
killed_push 60
bt store push | grep -q 'stored as build' || fail "the push after the killed one"
assert_eq "$(psql -c 'SELECT count(*) FROM build')" 1 "builds after the new push"
