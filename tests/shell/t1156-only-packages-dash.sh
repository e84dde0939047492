#!/bin/sh
# dash's Debian package built under `run --system --only-packages @debian/control` (what
# sbuild's minimal chroot would hold: its Build-Depends, build-essential, the Essential
# packages, fakeroot, apt and their Depends) builds, and its .debs are byte-identical to the
# unrestricted traced build's (shared): its Build-Depends are complete.  What the build reached
# for outside them (a locale alias, perl modules, aclocal's other .m4 files) is listed by
# packages --denied, none of it a declared package's.
# cost: package (a whole Debian package built traced: both variants are left out of the ASan
# pass)
# shares: dash 0.5.12-2|nocheck|nocheck
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/debpkg.sh"
deb_require
deb_build dash 0.5.12-2 nocheck nocheck
FREE=$PKG
mkdir "$T/only" && cd "$T/only"
dpkg-source -x "$(workload dash_0.5.12-2.dsc)" > "$T/unpack.log" 2>&1 || fail "dpkg-source -x: $(tail -3 "$T/unpack.log")"
cd dash-0.5.12
DEB_BUILD_OPTIONS="nocheck parallel=2" bt run --system --only-packages @debian/control -o "$T/only.db" -- \
    dpkg-buildpackage -b -uc -us -Pnocheck > "$T/build.log" 2>&1 ||
    fail "the restricted build failed: $(tail -5 "$T/build.log")"
tail -1 "$T/build.log" | grep -q "hidden of [0-9]* packages\? not allowed" || fail "nothing hidden: $(tail -1 "$T/build.log")"
n=0
for deb in "$FREE"/*.deb; do
    [ -f "$T/only/$(basename "$deb")" ] || fail "the restricted build made no $(basename "$deb")"
    cmp -s "$deb" "$T/only/$(basename "$deb")" || fail "$(basename "$deb") differs from the unrestricted build's"
    n=$((n + 1))
done
[ "$n" -ge 2 ] || fail "only $n .debs compared"
out=$(bt packages -d "$T/only.db" --denied)
for p in debhelper po-debconf dpkg-dev make gcc libc6-dev perl; do
    printf '%s\n' "$out" | grep -q "^$p:" && fail "$p, which the build may use, was denied: $out"
done
assert_no_leftovers
