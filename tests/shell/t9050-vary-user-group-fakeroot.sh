#!/bin/sh
# run --vary user_group under fakeroot, as dpkg-buildpackage builds: `cp -a` and `chown 0:0`
# succeed (fakeroot hides the EPERM another user gets from the real chown; an unmapped 0 gave
# EINVAL, which it does not hide, and cp -a failed), the build's uid is the varied one, and on
# disk every file is still the caller's.  Root and unprivileged (with subordinate ids: CI's
# user has them; without, the run says the variation is only partly made).
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd fakeroot
me=$(id -u)
mkdir -p "$T/ws/src/sub"
cd "$T/ws"
echo a > src/a && echo b > src/sub/b && echo f > f
"$BUILDTRAIL" run -o "$T/t.db" --vary user_group -- sh -c '
    set -e
    id -u
    fakeroot sh -c "set -e; cp -a src dst; chown 0:0 f; chown -R 0:0 dst; ls -ln f dst"
' > "$T/out" 2> "$T/err"; st=$?
if grep -q "user_group (partly: only the build's own ids are mapped" "$T/err"; then
    [ "${CI:-}" = true ] && fail "no subordinate ids for $(id -un) in CI: $(cat "$T/err")"
    skip "no subordinate ids for $(id -un) (said: $(grep variations "$T/err"))"
fi
[ "$st" = 0 ] || fail "the build under fakeroot failed (exit $st): $(cat "$T/out" "$T/err")"
assert_eq "$(head -1 "$T/out")" "2000" "the build's uid"
grep -q '^-rw-r--r-- *1 0 0 .* f$' "$T/out" || fail "fakeroot's view of f: $(cat "$T/out")"
assert_eq "$(cat dst/sub/b)" "b" "the copy"
assert_eq "$(stat -c '%u %a' f dst dst/sub dst/sub/b | sort -u | tr '\n' ' ')" \
    "$me 644 $me 755 " "on disk, the caller's files (and cp -a kept the modes)"
assert_contains "$(grep variations "$T/err")" "experiment values: user_group"
assert_contains "$(sql "$T/t.db" "SELECT value FROM variations WHERE name = 'user_group'")" \
    "fails with EPERM"
assert_no_leftovers
echo ok
