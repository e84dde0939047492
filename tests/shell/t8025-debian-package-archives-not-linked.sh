#!/bin/sh
# A Debian package (dpkg-buildpackage under `run --system`) whose link names static archives
# it pulls nothing from gets no Built-Using candidate: the program links libz.a but calls no
# zlib function (the archive's 100-odd symbols are none of the program's), and -pthread (ld
# opens glibc's libpthread.a, an 8-byte empty archive); a `-static` probe under a script named
# configure links libc.a into a conftest it deletes, and a check in the Makefile links libz.a
# and libc.a into a probe program it deletes (a temporary): neither is shipped.  `packages`
# says how each archive was decided, and with the program using zlib the candidate is back,
# decided by the symbol the program defines; an output changed since the build, or replaced by
# a FIFO, is "not checked" and the candidate stays.
# cost: workload (a real package build: its unprivileged variant is left out of the ASan pass)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/debpkg.sh"
deb_require
require_cmd cc
[ -f /usr/include/zlib.h ] || missing "zlib1g-dev (apt-get install zlib1g-dev)"
libz_a=$(dpkg-query -L zlib1g-dev | grep '/libz\.a$' | head -n 1)
[ -n "$libz_a" ] || missing "libz.a in zlib1g-dev"
arch=$(dpkg --print-architecture)

make_pkg() { # NAME PROGRAM-SOURCE
    src=$T/$1/$1-1.0
    mkdir -p "$src/debian/source"
    printf '%s\n' "$2" > "$src/prog.c"
    printf '#include <zlib.h>\n#include <stdio.h>\nint main(void) { puts(zlibVersion()); return 0; }\n' > "$src/probe.c"
    # configure: a -static link probe, as autoconf's AC_LINK_IFELSE with LDFLAGS=-static
    cat > "$src/configure" <<'CONF'
#!/bin/sh
printf 'int main(void) { return 0; }\n' > conftest.c
${CC:-cc} -static -o conftest conftest.c && ./conftest || exit 1
rm -f conftest conftest.c
echo 'HAVE_STATIC = 1' > config.mk
CONF
    chmod +x "$src/configure"
    printf -- '-include config.mk\nprog: prog.c\n\t$(CC) $(CFLAGS) $(CPPFLAGS) $(LDFLAGS) -pthread -o prog prog.c %s\n\t$(CC) -static -o probe.tmp probe.c %s && ./probe.tmp && rm -f probe.tmp\ninstall: prog\n\tinstall -D prog $(DESTDIR)/usr/bin/prog\n' "$libz_a" "$libz_a" > "$src/Makefile"
    cat > "$src/debian/control" <<CONTROL
Source: $1
Section: misc
Priority: optional
Maintainer: buildtrail tests <tests@example.invalid>
Build-Depends: debhelper-compat (= 13), zlib1g-dev
Standards-Version: 4.6.2

Package: $1
Architecture: any
Depends: \${shlibs:Depends}, \${misc:Depends}
Description: buildtrail test package
 Links archives.
CONTROL
    printf '%s (1.0) unstable; urgency=medium\n\n  * A test package.\n\n -- buildtrail tests <tests@example.invalid>  Tue, 01 Dec 2026 00:00:00 +0000\n' "$1" > "$src/debian/changelog"
    printf '#!/usr/bin/make -f\n%%:\n\tdh $@\n' > "$src/debian/rules"
    chmod +x "$src/debian/rules"
    echo '3.0 (native)' > "$src/debian/source/format"
    (cd "$src" && bt run --system -o "$T/$1.db" -- dpkg-buildpackage -b -uc -us > "$T/$1.log" 2>&1) ||
        fail "the traced build of $1 failed: $(tail -5 "$T/$1.log")"
    [ -f "$T/$1/$1_1.0_$arch.deb" ] || fail "no .deb of $1: $(tail -5 "$T/$1.log")"
}

# 1. Nothing of libz.a nor of libc.a is in what is shipped.
make_pkg unlinked 'int main(void) { return 0; }'
out=$(bt packages -d "$T/unlinked.db")
assert_contains "$out" "incorporated statically (Built-Using candidates): none" "no candidate"
assert_contains "$out" "static archives the links pulled nothing from:" "the archives are explained"
assert_contains "$out" "zlib1g-dev (libz.a: " "libz.a is explained"
printf '%s\n' "$out" | grep -q "libpthread.a: an empty archive" || fail "libpthread.a is not explained: $out"
printf '%s\n' "$out" | grep -Eq "libc\.a" && fail "libc.a, linked only into a configure probe and a temporary, is named: $out"
bt packages -d "$T/unlinked.db" --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
z = [p for p in d["packages"] if p["package"] == "zlib1g-dev"][0]
assert not z["incorporated"], z
c = [p for p in d["packages"] if p["package"] == "libc6-dev"]
assert not c or not c[0]["incorporated"], c
a = {x["path"].rsplit("/", 1)[1]: x for x in d["static_archives"]}
assert a["libz.a"]["linked"] == "nothing linked", a
assert "defines none of its" in a["libz.a"]["how"], a
assert a["libpthread.a"]["linked"] == "nothing linked", a
assert "libc.a" not in a, a
' || fail "packages --json of the unlinked archives"

# 2. The same with a program that calls zlib: zlib is the candidate, and the answer says why.
make_pkg linked '#include <zlib.h>
int main(void) { return zlibVersion()[0] == 0; }'
out=$(bt packages -d "$T/linked.db")
src_ver=$(dpkg-query -W -f='${source:Version}' zlib1g-dev)
assert_contains "$out" "incorporated statically (Built-Using candidates): zlib (= $src_ver)" "zlib is the one candidate"
printf '%s\n' "$out" | grep -Eq "^  zlib1g-dev: libz.a linked in: .*/prog defines its symbol [a-zA-Z_0-9]+ \(symbol table\)" ||
    fail "how libz.a was decided: $out"
# The program changed since the build: the archive cannot be checked, and stays a candidate.
echo changed >> "$T/linked/linked-1.0/prog"
out=$(bt packages -d "$T/linked.db")
assert_contains "$out" "incorporated statically (Built-Using candidates): zlib (= $src_ver)" "kept when not checked"
printf '%s\n' "$out" | grep -Eq "^  zlib1g-dev: libz.a not checked: .*/prog is changed since the build \(kept as a candidate\)" ||
    fail "not checked: $out"
# A FIFO where the program was: not read (it would block), not checked.
rm "$T/linked/linked-1.0/prog" && mkfifo "$T/linked/linked-1.0/prog"
out=$(timeout 60 "$BUILDTRAIL" packages -d "$T/linked.db" 2>/dev/null) || fail "packages with a FIFO for the program: exit $?"
printf '%s\n' "$out" | grep -Eq "^  zlib1g-dev: libz.a not checked: .*/prog is no longer a regular file \(kept as a candidate\)" ||
    fail "FIFO: $out"
cd "$T"
assert_no_leftovers
