#!/bin/sh
# copies on Debian package builds finds code copies, not noise.  pkgconf 1.8.1-1 (dpkg-buildpackage
# under `run --system`): quilt's .pc/ backups of the patched cli/main.c and libpkgconf/*.c
# (read by dh_autoreconf's md5sum, never compiled) are not reported, nor are system headers
# alike (both outside the build's directory): pkgconf vendors no code, so nothing is found.
# A small package of our own with a vendored, edited copy of lib/strbuf.c in
# third_party/strbuf/ (each compiled into a program of its own binary package), two test
# programs written from one another and a variant of a file beside it: the copy is found,
# each side shipped in its own .deb and its -dbgsym .deb (not debian/files, a .changes or
# .buildinfo); the test
# programs and the variants are not reported as copies of one another.
# cost: package (a real Debian package build: both variants are left out of the ASan pass)
# shares: pkgconf 1.8.1-1|nocheck nodoc|nocheck,nodoc
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/debpkg.sh"
deb_require
require_cmd cc
arch=$(dpkg --print-architecture)

# 1. A package of our own.
src=$T/own/vend-1.0
mkdir -p "$src/debian/source" "$src/lib" "$src/third_party/strbuf" "$src/src" "$src/tests/unit" "$src/tests/stress"
python3 - "$src" <<'PY'
import sys, os
src = sys.argv[1]
import random
def body(prefix, n, edit=False, seed=0):
    # code of its own per seed: statement shapes, constants and calls differ between families
    r = random.Random(seed)
    out = ["#include <stdlib.h>", "#include <string.h>", ""]
    for i in range(n):
        out.append("int %s_step%d(const char *s, int k)" % (prefix, i))
        out.append("{")
        out.append("    int acc = %d, t = %d;" % (r.randrange(1000), r.randrange(1000)))
        for _ in range(r.randrange(2, 5)):
            shape = r.randrange(5)
            if shape == 0:
                out.append("    for (size_t j = 0; s[j]; j++)")
                out.append("        acc = acc * %d + (s[j] ^ %d);" % (r.randrange(3, 99), r.randrange(256)))
            elif shape == 1:
                out.append("    if (k > %d)" % r.randrange(50))
                out.append("        t -= (int)strlen(s) << %d;" % r.randrange(1, 7))
            elif shape == 2:
                out.append("    while (t %% %d && t > 0)" % r.randrange(2, 9))
                out.append("        t = t / 2 - %d;" % r.randrange(9))
            elif shape == 3:
                out.append("    switch (k & %d) { case 0: acc += %d; break; default: acc -= t; }" % (r.randrange(1, 8), r.randrange(99)))
            else:
                out.append("    acc = abs(acc - t * %d) | %d;" % (r.randrange(2, 40), r.randrange(64)))
        if edit and i % 5 == 0:
            out.append("    acc ^= 0x5bd1e995; /* local fix */")
        out.append("    return acc + t;")
        out.append("}")
        out.append("")
    return "\n".join(out) + "\n"
open(os.path.join(src, "lib/strbuf.c"), "w").write(body("sb", 24, seed=1))
open(os.path.join(src, "third_party/strbuf/strbuf.c"), "w").write(body("sb", 24, edit=True, seed=1).replace("sb_", "tp_sb_"))
# variants of one file in one directory: lib/hash32.c and lib/hash64.c
open(os.path.join(src, "lib/hash32.c"), "w").write(body("h32", 20, seed=2))
open(os.path.join(src, "lib/hash64.c"), "w").write(body("h32", 20, edit=True, seed=2).replace("h32_", "h64_"))
# two test programs written from one another, in two directories of tests/
open(os.path.join(src, "tests/unit/test_a.c"), "w").write(body("ta", 20, seed=3) + "int main(void) { return ta_step1(\"x\", 1) < 0; }\n")
open(os.path.join(src, "tests/stress/test_b.c"), "w").write(body("ta", 20, edit=True, seed=3).replace("ta_", "tb_") + "int main(void) { return tb_step1(\"x\", 1) < 0; }\n")
# GCC's x86 intrinsics headers (pconfigintrin.h ~ sgxintrin.h, alike) where there are some
intrin = "#include <x86intrin.h>\n" if os.path.exists("/usr/lib/gcc/x86_64-linux-gnu") else ""
open(os.path.join(src, "src/a.c"), "w").write(intrin + "int sb_step1(const char *, int);\nint h32_step1(const char *, int);\nint h64_step1(const char *, int);\nint main(void) { return sb_step1(\"a\", 1) + h32_step1(\"a\", 1) + h64_step1(\"a\", 2) < 0; }\n")
open(os.path.join(src, "src/b.c"), "w").write("int tp_sb_step1(const char *, int);\nint main(void) { return tp_sb_step1(\"b\", 1) < 0; }\n")
PY
cat > "$src/Makefile" <<'MK'
all: vend-a vend-b tests/unit/test_a tests/stress/test_b
vend-a: src/a.c lib/strbuf.c lib/hash32.c lib/hash64.c
	$(CC) $(CFLAGS) -o $@ $^
vend-b: src/b.c third_party/strbuf/strbuf.c
	$(CC) $(CFLAGS) -o $@ $^
tests/unit/test_a: tests/unit/test_a.c
	$(CC) $(CFLAGS) -o $@ $^
tests/stress/test_b: tests/stress/test_b.c
	$(CC) $(CFLAGS) -o $@ $^
install: all
	install -D vend-a $(DESTDIR)/usr/bin/vend-a
	install -D vend-b $(DESTDIR)/usr/bin/vend-b
clean:
	rm -f vend-a vend-b tests/unit/test_a tests/stress/test_b
MK
cat > "$src/debian/control" <<'CONTROL'
Source: vend
Section: misc
Priority: optional
Maintainer: buildtrail tests <tests@example.invalid>
Build-Depends: debhelper-compat (= 13)
Standards-Version: 4.6.2

Package: vend-a
Architecture: any
Depends: ${shlibs:Depends}, ${misc:Depends}
Description: buildtrail test package a
 Its own strbuf.

Package: vend-b
Architecture: any
Depends: ${shlibs:Depends}, ${misc:Depends}
Description: buildtrail test package b
 The vendored strbuf.
CONTROL
printf 'usr/bin/vend-a\n' > "$src/debian/vend-a.install"
printf 'usr/bin/vend-b\n' > "$src/debian/vend-b.install"
printf 'vend (1.0) unstable; urgency=medium\n\n  * A test package.\n\n -- buildtrail tests <tests@example.invalid>  Tue, 01 Dec 2026 00:00:00 +0000\n' > "$src/debian/changelog"
printf '#!/usr/bin/make -f\n%%:\n\tdh $@\n' > "$src/debian/rules"
chmod +x "$src/debian/rules"
echo '3.0 (native)' > "$src/debian/source/format"
(cd "$src" && bt run --system -o "$T/own.db" -- dpkg-buildpackage -b -uc -us > "$T/own.log" 2>&1) ||
    fail "the traced build of vend failed: $(tail -5 "$T/own.log")"
deb_a=$T/own/vend-a_1.0_$arch.deb deb_b=$T/own/vend-b_1.0_$arch.deb
[ -f "$deb_a" ] && [ -f "$deb_b" ] || fail "no .debs: $(ls "$T/own")"
bt copies -d "$T/own.db" --json > "$T/own.json" || fail "copies on vend"
python3 - "$T/own.json" "$src" "$deb_a" "$deb_b" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); src, deb_a, deb_b = sys.argv[2:5]
by = {f["path"]: f for f in d["files"]}
own, copy = src + "/lib/strbuf.c", src + "/third_party/strbuf/strbuf.c"
assert set(by) == {own, copy}, sorted(by)
assert [m["name"] for m in by[own]["matches"]] == [copy], by[own]
assert by[own]["matches"][0]["kind"] == "similar", by[own]
dbg = lambda deb: deb.replace("_1.0_", "-dbgsym_1.0_")
# the program's package, and its debug symbols' (objcopy --only-keep-debug of it)
assert by[own]["shipped_in"] == [dbg(deb_a), deb_a], by[own]["shipped_in"]
assert by[copy]["shipped_in"] == [dbg(deb_b), deb_b], by[copy]["shipped_in"]
PY
[ $? = 0 ] || fail "copies on vend: $(cat "$T/own.json")"
out=$(cd "$src" && bt copies -d "$T/own.db")
printf '%s\n' "$out" | grep -Eq '^ .*/usr/' && fail "system headers reported as copies: $out"
assert_contains "$out" "  shipped in   $T/own/vend-b-dbgsym_1.0_$arch.deb" "the copy shipped in vend-b's .debs"

# 2. pkgconf: quilt backups and system headers are not copies.
deb_build pkgconf 1.8.1-1 "nocheck nodoc" nocheck,nodoc
[ -f "$SRC/.pc/sysroot_dir-logic.patch/libpkgconf/pkg.c" ] || [ -n "$(find "$SRC/.pc" -name '*.c' 2>/dev/null)" ] ||
    fail "the ground truth changed: pkgconf's quilt backups hold no .c file"
out=$(cd "$SRC" && bt copies -d "$TRACE")
printf '%s\n' "$out" | grep -q '/\.pc/' && fail "quilt backups reported as copies: $out"
printf '%s\n' "$out" | grep -Eq '^/usr/' && fail "system headers reported: $out"
assert_contains "$out" "no copies found" "pkgconf vendors nothing"
cd "$T"
assert_no_leftovers
