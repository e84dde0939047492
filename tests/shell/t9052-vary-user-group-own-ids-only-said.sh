#!/bin/sh
# run --vary user_group, unprivileged, where the run's namespace holds the caller's ids alone
# (no newuidmap here: PATH without it; the same without subordinate ids): the build's own
# namespace can map nothing but its own ids, so a chown to 0 fails with EINVAL where another
# user gets EPERM, and fakeroot builds fail.  That is said — the run's line ("partly: ..."),
# the trace's row (applied, with why_not), info — never left for the build to find out.
. "$(dirname "$0")/lib.sh"
require_fuse
[ "$(id -u)" != 0 ] || skip "root's build namespace always maps 0 (t9051)"
mkdir "$T/ws" "$T/bin"
for c in sh id chown cat; do
    ln -s "$(command -v "$c")" "$T/bin/$c" || fail "no $c"
done
cd "$T/ws"
echo f > f
env PATH="$T/bin" "$BUILDTRAIL" run -o "$T/t.db" --vary user_group -- \
    sh -c 'id -u; chown 0 f 2>&1; true' > "$T/out" 2> "$T/err" || fail "run: $(cat "$T/err")"
assert_eq "$(head -1 "$T/out")" "2000" "varied all the same"
assert_contains "$(cat "$T/out")" "Invalid argument"
assert_contains "$(grep variations "$T/err")" "experiment values: user_group (partly: only the build's own ids are mapped (newuidmap/newgidmap missing"
assert_eq "$(sql "$T/t.db" "SELECT applied FROM variations WHERE name = 'user_group'")" 1 "applied"
assert_contains "$(sql "$T/t.db" "SELECT why_not FROM variations WHERE name = 'user_group'")" \
    "fakeroot builds (dpkg-buildpackage) fail"
bt info -d "$T/t.db" > "$T/info" || fail "info"
assert_contains "$(cat "$T/info")" "only the build's own ids are mapped"
assert_no_leftovers
echo ok
