#!/bin/sh
# A Debian package built with dpkg-buildpackage under `run --system` that links a -dev
# package's static library (libz.a of zlib1g-dev): `packages` names zlib as the one
# Built-Using candidate, and `--build-depends @debian/control` finds every declared clause
# touched — debhelper-compat through debhelper's Provides, "zlib1g-dev | libz-dev" through
# its first alternative — and lists apart the clauses that do not apply: one for other
# architectures, one under a build profile (taken from the build's own DEB_BUILD_PROFILES,
# set by dpkg-buildpackage -P).  who-wrote of the .deb names dpkg-deb.
# cost: workload (a real upstream build: its unprivileged variant is left out of the ASan pass)
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd dpkg-buildpackage
require_cmd dh
require_cmd dpkg-query
require_cmd cc
[ -f /usr/include/zlib.h ] || missing "zlib1g-dev (apt-get install zlib1g-dev)"
libz_a=$(dpkg-query -L zlib1g-dev | grep '/libz\.a$' | head -n 1)
[ -n "$libz_a" ] || missing "libz.a in zlib1g-dev"
if [ "$(id -u)" != 0 ]; then
    require_cmd fakeroot
    command -v newuidmap >/dev/null 2>&1 || missing "newuidmap (apt-get install uidmap)"
    grep -q "^$(id -un):" /etc/subuid 2>/dev/null || missing "a subordinate uid range for $(id -un) in /etc/subuid"
fi
arch=$(dpkg --print-architecture)
src=$T/pkg/zstatic-1.0
mkdir -p "$src/debian/source"
cd "$src"
printf '#include <zlib.h>\n#include <stdio.h>\nint main(void) { puts(zlibVersion()); return 0; }\n' > zs.c
printf 'zs: zs.c\n\t$(CC) $(CFLAGS) $(CPPFLAGS) $(LDFLAGS) -o zs zs.c %s\ninstall: zs\n\tinstall -D zs $(DESTDIR)/usr/bin/zs\n' "$libz_a" > Makefile
cat > debian/control <<CONTROL
Source: zstatic
Section: misc
Priority: optional
Maintainer: buildtrail tests <tests@example.invalid>
# the last two do not apply here: another architecture's, and one the nocheck profile drops
Build-Depends: debhelper-compat (= 13),
 zlib1g-dev | libz-dev,
 libnothere-dev [!$arch],
 libnothere2-dev <!nocheck>
Standards-Version: 4.6.2

Package: zstatic
Architecture: any
Depends: \${shlibs:Depends}, \${misc:Depends}
Description: buildtrail test package
 Links libz.a.
CONTROL
cat > debian/changelog <<'CHANGELOG'
zstatic (1.0) unstable; urgency=medium

  * A test package.

 -- buildtrail tests <tests@example.invalid>  Tue, 01 Dec 2026 00:00:00 +0000
CHANGELOG
printf '#!/usr/bin/make -f\n%%:\n\tdh $@\n' > debian/rules
chmod +x debian/rules
echo '3.0 (native)' > debian/source/format
bt run --system -o "$T/trace.db" -- dpkg-buildpackage -b -uc -us -Pnocheck > "$T/build.log" 2>&1 ||
    fail "the traced package build failed: $(tail -5 "$T/build.log")"
deb=$T/pkg/zstatic_1.0_$arch.deb
[ -f "$deb" ] || fail "no $deb: $(tail -5 "$T/build.log")"
bt who-wrote -d "$T/trace.db" "$deb" | grep -q "dpkg-deb" || fail "who-wrote does not name dpkg-deb"

src_ver=$(dpkg-query -W -f='${source:Version}' zlib1g-dev)
out=$(bt packages -d "$T/trace.db" --build-depends @debian/control)
assert_contains "$out" "incorporated statically (Built-Using candidates): zlib (= $src_ver)" "zlib is the one candidate"
printf '%s\n' "$out" | grep -Eq "^  debhelper .*executed" || fail "debhelper ran: $out"
assert_contains "$out" "declared build dependencies never touched (0):" "every clause touched (debhelper-compat via Provides)"
assert_contains "$out" "declared build dependencies that do not apply to $arch with profiles nocheck (2): libnothere-dev, libnothere2-dev" "qualifiers"
# Without the profile (as if built without -Pnocheck) that clause applies and was never touched.
out=$(bt packages -d "$T/trace.db" --build-depends @debian/control --profiles '')
assert_contains "$out" "declared build dependencies never touched (1): libnothere2-dev" "profile off"
# Another host architecture: the [!arch] clause applies.
out=$(bt packages -d "$T/trace.db" --build-depends 'libnothere-dev [!'"$arch"']' --host-arch hurd-i386)
assert_contains "$out" "never touched (1): libnothere-dev" "host arch"
bt packages -d "$T/trace.db" --build-depends @debian/control --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["declared_untouched"] == [], d["declared_untouched"]
assert d["declared_not_applicable"] == ["libnothere-dev", "libnothere2-dev"], d
assert d["build_profiles"] == ["nocheck"], d["build_profiles"]
z = [p for p in d["packages"] if p["package"] == "zlib1g-dev"][0]
assert z["incorporated"], z
' || fail "packages --json"
cd "$T"
assert_no_leftovers
