#!/bin/sh
# pkgconf 1.8.1-1 built by dpkg-buildpackage under `run --system` (DEB_BUILD_OPTIONS="nocheck
# nodoc", -Pnocheck,nodoc): `packages --build-depends @debian/control` says why each declared
# clause counts.  atf-sh <!nocheck> and kyua <!nocheck> do not apply under the nocheck profile;
# with no profile active (--profiles '') they apply, but only because the nocheck option is not
# also a profile (the answer says so), and atf-sh, whose /usr/share/aclocal/atf-*.m4 only
# `aclocal --force` read (it reads every file of /usr/share/aclocal to find its macros:
# configure.ac uses no ATF macro, and autom4te's m4 reads none of them), is "read by a
# directory scan only", not touched; libtool's libtool.m4, which m4 and libtoolize read for
# what they need, is not a scan.  Ground truth: configure.ac has no ATF_ macro.
# cost: package (a real Debian package build: both variants are left out of the ASan pass)
# shares: pkgconf 1.8.1-1|nocheck nodoc|nocheck,nodoc
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/debpkg.sh"
deb_require
dpkg-query -W -f='${Status}' atf-sh 2>/dev/null | grep -q 'ok installed' || missing "atf-sh (apt-get install atf-sh)"
deb_build pkgconf 1.8.1-1 "nocheck nodoc" nocheck,nodoc
grep -q 'ATF_' "$SRC/configure.ac" && fail "the ground truth changed: configure.ac uses an ATF macro"
cd "$SRC"
out=$(bt packages -d "$TRACE" --build-depends @debian/control)
printf '%s\n' "$out" | grep -Eq "^declared build dependencies that do not apply to [a-z0-9-]+ with profiles nocheck.nodoc \([0-9]+\):.*atf-sh" ||
    fail "atf-sh does not apply under -Pnocheck: $out"
out=$(bt packages -d "$TRACE" --build-depends @debian/control --profiles '')
line=$(printf '%s\n' "$out" | grep -A1 "^declared build dependencies read by a directory scan only")
printf '%s\n' "$line" | grep -Eq "atf-sh \(aclocal (listed and )?read [0-9]+ of the [0-9]+ files of /usr/share/aclocal\)" ||
    fail "atf-sh is not read by a directory scan only: $out"
printf '%s\n' "$line" | grep -q "libtool" && fail "libtool, whose macros the build used, is called a scan: $out"
printf '%s\n' "$out" | grep -E "^declared build dependencies that apply only because DEB_BUILD_OPTIONS=" |
    grep -q "atf-sh (nocheck)" || fail "the nocheck option is not named for atf-sh: $out"
bt packages -d "$TRACE" --build-depends @debian/control --profiles '' --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
scan = [c for c in d["declared_directory_scan_only"] if c.startswith("atf-sh ")]
assert scan and "/usr/share/aclocal" in scan[0], d["declared_directory_scan_only"]
assert not [c for c in d["declared_untouched"] if c.startswith("atf-sh")], d
assert "atf-sh (nocheck)" in d["declared_applying_despite_options"], d
assert not [c for c in d["declared_directory_scan_only"] if c.startswith("libtool")], d
' || fail "packages --json: the clauses read by a scan"
cd "$T"
assert_no_leftovers
