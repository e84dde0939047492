#!/bin/sh
# An unprivileged user's Debian package build, traced: dpkg-buildpackage of dash (fakeroot for
# debian/rules binary) with --system and no other flag succeeds (`..`, where the .debs go, is
# traced where it lies) and its .debs are byte-identical to the same user's native build at
# the same path; who-wrote of ../dash_*.deb names dpkg-deb; `packages` finds no Built-Using
# candidate (what went in is toolchain runtime and headers) and, given dash's own
# debian/control, debhelper-compat (debhelper's Provides) and dpkg-dev touched and only
# po-debconf never touched — rightly: this dash has no debconf templates, so nothing runs
# po2debconf.  (Before, cp -a in dh_install failed: chown to root gave EINVAL in the user
# namespace.)
# cost: workload (a real upstream build: its unprivileged variant is left out of the ASan pass)
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" != 0 ] || skip "applies to unprivileged builds (root builds need no fakeroot)"
require_fuse
require_cmd dpkg-buildpackage
require_cmd dpkg-source
require_cmd fakeroot
require_cmd dh
command -v newuidmap >/dev/null 2>&1 || missing "newuidmap (apt-get install uidmap)"
grep -q "^$(id -un):" /etc/subuid 2>/dev/null || missing "a subordinate uid range for $(id -un) in /etc/subuid"
dsc=$(workload dash_0.5.12-2.dsc)
mkdir "$T/pkg" "$T/native"
build() { # the same path both times
    rm -rf "$T/pkg" && mkdir "$T/pkg" && cd "$T/pkg"
    dpkg-source -x "$dsc" > /dev/null 2>&1 || fail "dpkg-source -x $dsc failed"
    cd dash-0.5.12
    "$@" dpkg-buildpackage -b -uc -us > "$T/build.log" 2>&1 ||
        fail "$* dpkg-buildpackage failed: $(tail -5 "$T/build.log")"
}
build
mv "$T"/pkg/*.deb "$T/native/"
build "$BUILDTRAIL" run -o "$T/trace.db" --system
for f in "$T"/native/*.deb; do
    cmp -s "$f" "$T/pkg/$(basename "$f")" || fail "$(basename "$f") differs from the native build's"
done
[ "$(ls "$T"/native/*.deb | wc -l)" -ge 2 ] || fail "the native build made no packages"
bt who-wrote -d "$T/trace.db" "$T/pkg/dash_0.5.12-2_amd64.deb" | grep -q "dpkg-deb --build" ||
    fail "who-wrote does not name dpkg-deb"
out=$(bt packages -d "$T/trace.db" --build-depends @"$T/pkg/dash-0.5.12/debian/control")
assert_contains "$out" "incorporated statically (Built-Using candidates): none" "no Built-Using candidate"
assert_contains "$out" "declared build dependencies never touched (1): po-debconf" "only po-debconf untouched"
[ ! -e "$T/pkg/dash-0.5.12/debian/templates" ] || fail "dash now has debconf templates: revise this test"
printf '%s\n' "$out" | grep -q "not touched themselves" && fail "a declared build dependency touched only through another: $out"
cd "$T"
assert_no_leftovers
