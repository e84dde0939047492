#!/bin/sh
# run --vary user_group, unprivileged, where the wide maps were planned (subordinate ids and
# newuidmap found) but newuidmap fails when the run maps its namespace: the build's own
# namespace cannot map 0 and the caller's ids as the run's line and the trace's row would say.
# The run says so in one line naming why (newuidmap's own words) and the way out, and the build
# does not run narrow unsaid (chown to 0 giving EINVAL, fakeroot builds failing as if the
# build were at fault).
. "$(dirname "$0")/lib.sh"
require_fuse
[ "$(id -u)" != 0 ] || skip "root's build namespace is mapped by setup itself (t9051)"
mkdir "$T/ws" "$T/bin"
printf '#!/bin/sh\necho "refused by the test" >&2\nexit 1\n' > "$T/bin/newuidmap"
chmod +x "$T/bin/newuidmap"
ln -s "$(command -v newgidmap)" "$T/bin/newgidmap" || missing "newgidmap"
cd "$T/ws"
echo f > f
env PATH="$T/bin:$PATH" "$BUILDTRAIL" run -o "$T/t.db" --vary user_group -- \
    sh -c 'echo built; chown 0 f 2>&1; true' > "$T/out" 2> "$T/err" && st=0 || st=$?
grep -q "no subordinate id range" "$T/err" && skip "no subordinate ids for $(id -un)"
[ "$st" != 0 ] || fail "run went on with narrow maps, said: $(cat "$T/err"); build: $(cat "$T/out")"
assert_eq "$(grep -c "cannot apply the variation user_group" "$T/err")" 1 "one line: $(cat "$T/err")"
assert_contains "$(cat "$T/err")" "newuidmap failed: refused by the test"
assert_contains "$(cat "$T/err")" "--vary all,-user_group"
grep -q built "$T/out" && fail "the build ran: $(cat "$T/out")"
assert_eq "$(stat -c %u f)" "$(id -u)" "f on disk"
assert_no_leftovers
echo ok
