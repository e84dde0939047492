#!/bin/sh
# run --vary user_group as root in a tree another user owns: uid 2000 is root without its
# capabilities, which could not write in that tree, so the experiment would fail for a reason
# that is not reproducibility.  The variation is then said not varied (the control's ids kept)
# and the build writes its files; in a tree root owns it is varied (uid 2000).
. "$(dirname "$0")/lib.sh"
require_root
require_fuse
mkdir "$T/ws" "$T/mine"
chown 12345:12345 "$T/ws"
chmod 755 "$T/ws"
cd "$T/ws"
"$BUILDTRAIL" run -o "$T/f.db" --vary user_group -- sh -c 'touch f && id -u' > "$T/out" 2> "$T/err" ||
    fail "run: $(cat "$T/err")"
assert_eq "$(cat "$T/out")" "0" "the control's uid"
[ -f f ] || fail "the build could not write its file"
assert_contains "$(cat "$T/err")" "not varied: user_group (the build's directory $T/ws belongs to uid 12345"
assert_eq "$(sql "$T/f.db" "SELECT applied FROM variations WHERE name = 'user_group'")" 0 "the row"
cd "$T/mine"
"$BUILDTRAIL" run -o "$T/m.db" --vary user_group -- sh -c 'touch f && id -u' > "$T/out" 2> "$T/err" ||
    fail "run in a tree of root's: $(cat "$T/err")"
assert_eq "$(cat "$T/out")" "2000" "varied where root owns the tree"
assert_no_leftovers
echo ok
