#!/bin/sh
# store push: a trace replaced (renamed over) between its opening and its hashing is refused —
# one line, nothing stored — instead of the rows of one file stored under the identity of
# another; pushed again, the new file is stored under its own SHA-256.
. "$(dirname "$0")/lib.sh"
store_with_build
bt store init >/dev/null
bt run -q -o "$T/other.db" -- true || fail "the other build"
BUILDTRAIL_STORE_TEST_PAUSE=read:5 "$BUILDTRAIL" store push > "$T/push.out" 2> "$T/push.err" &
pusher=$!
wait_until 30 grep -q pausing "$T/push.err"
grep -q pausing "$T/push.err" || { kill $pusher 2>/dev/null || true; fail "the push never paused: $(cat "$T/push.err")"; }
cp "$T/other.db" "$T/p/new.db" && mv -f "$T/p/new.db" "$T/p/buildtrail.db"
set +e
wait $pusher
st=$?
set -e
assert_eq "$st" 1 "exit status of the push whose trace was replaced"
assert_contains "$(grep -v pausing "$T/push.err")" "was replaced while it was being read; push it again" "the line"
assert_eq "$(grep -vc pausing "$T/push.err")" 1 "one line"
assert_eq "$(psql -c 'SELECT count(*) FROM build')" 0 "builds after the refused push"
bt store push >/dev/null || fail "the push again"
assert_eq "$(psql -c "SELECT encode(identity, 'hex') FROM build")" "$(sha256sum "$T/p/buildtrail.db" | cut -c1-64)" "the identity stored"
