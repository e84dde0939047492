#!/bin/sh
# A supplementary group that no /etc/subgid line of the user maps shows as nogroup inside an
# unprivileged build (and chgrp to it as `id -G` reports it fails).  `doctor` names each such
# group with the exact /etc/subgid line that maps it, and the run's summary line and
# runs.notes say which groups were not mapped; with a line for every group, none of that is
# said and `id -G` inside shows the group.
# The test user gets a private /etc/subgid: a copy bind-mounted over it in a mount namespace of
# the test's own (newgidmap, set-user-ID, reads it there), so the real file is never changed and
# concurrent tests are not disturbed.  Root variant only (it switches user).
. "$(dirname "$0")/lib.sh"
require_fuse
[ "$(id -u)" = 0 ] || skip "needs root to give the test user a private /etc/subgid"
user=${BT_TEST_USER:-buildtrail-test}
id "$user" >/dev/null 2>&1 || missing "the user $user (CI creates it)"
require_cmd unshare
require_cmd runuser
require_cmd newgidmap
[ -r /etc/subgid ] || missing "/etc/subgid"
primary=$(id -g "$user")
extra=$(id -G "$user" | tr ' ' '\n' | grep -vx "$primary" | head -1)
[ -n "$extra" ] || missing "a supplementary group of $user (CI puts it in 'users')"
name=$(getent group "$extra" | cut -d: -f1)
grep -q "^$user:" /etc/subuid && grep -Eq "^$user:[0-9]+:([2-9]|[0-9]{2,})" /etc/subgid ||
    missing "a subordinate range of $user in /etc/subuid and /etc/subgid"

before=$(sha256sum /etc/subgid)
mkdir "$T/bin" "$T/ws" "$T/utmp"
cp "$BUILDTRAIL" "$T/bin/buildtrail"
chmod 755 "$T/bin" "$T/bin/buildtrail"
chown "$user" "$T/ws" "$T/utmp"
# Without a line for the group: the user's other lines for it removed.  With one: added.
awk -F: -v u="$user" -v g="$extra" '!($1 == u && $2 == g)' /etc/subgid > "$T/subgid-without"
cp "$T/subgid-without" "$T/subgid-with"
echo "$user:$extra:1" >> "$T/subgid-with"
chmod 644 "$T/subgid-without" "$T/subgid-with"

# as_user SUBGID SCRIPT: run SCRIPT as the test user, with SUBGID as /etc/subgid.
as_user() {
    unshare -m sh -c 'mount --bind "$1" /etc/subgid && shift && exec runuser -u "$@"' \
        sh "$1" "$user" -- env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$T/ws" \
        TMPDIR="$T/utmp" BT="$T/bin/buildtrail" sh -c "cd '$T/ws' && $2"
}

out=$(as_user "$T/subgid-without" '"$BT" doctor') || fail "doctor failed: $out"
printf '%s\n' "$out" | grep -q "^note  group map  *your group $name ($extra) is not mapped" ||
    fail "doctor does not name the group $name ($extra): $out"
assert_contains "$out" "fix: as root, add the line $user:$extra:1 to /etc/subgid" "the fix"
assert_contains "$out" "tracing works here" "verdict"
err=$(as_user "$T/subgid-without" '"$BT" run -o without.db -- id -G 2>&1') ||
    fail "the run failed: $err"
assert_contains "$err" "groups not mapped inside (shown as nogroup): $name ($extra)" "summary"
printf '%s\n' "$err" | head -1 | tr ' ' '\n' | grep -qx 65534 || fail "id -G inside: $err"
notes=$(sql "$T/ws/without.db" "select notes from runs")
assert_contains "$notes" "supplementary groups shown as nogroup inside (no subgid line maps them): $name ($extra)" "runs.notes"

out=$(as_user "$T/subgid-with" '"$BT" doctor') || fail "doctor failed: $out"
printf '%s\n' "$out" | grep -q "group map" && fail "doctor names a mapped group: $out"
err=$(as_user "$T/subgid-with" '"$BT" run -o with.db -- id -G 2>&1') || fail "the run failed: $err"
printf '%s\n' "$err" | grep -q "not mapped" && fail "the summary names a mapped group: $err"
printf '%s\n' "$err" | head -1 | tr ' ' '\n' | grep -qx "$extra" || fail "id -G inside: $err"

assert_eq "$(sha256sum /etc/subgid)" "$before" "/etc/subgid changed"
[ -z "$(ls -A "$T/utmp")" ] || fail "buildtrail left $(ls -A "$T/utmp") in the user's TMPDIR"
assert_no_leftovers
