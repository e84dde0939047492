#!/bin/sh
# packages on a --system trace: a program that includes zlib.h and links libz dynamically uses
# zlib1g-dev's headers only (listed apart, not a Built-Using candidate); one linked with
# libz.a incorporates zlib's code (its source package is a candidate); toolchain runtime
# (crt*.o, libgcc, libc_nonshared) is listed apart, never a candidate; locale data read by
# the compiler is never a header; the compiler's packages were executed; an
# undeclared-but-untouched build dependency is reported; without --system the command says
# what it cannot see.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd cc
require_cmd dpkg-query
[ -f /usr/include/zlib.h ] || missing "zlib1g-dev (apt-get install zlib1g-dev)"
mkdir "$T/ws" && cd "$T/ws"
printf '#include <zlib.h>\nint main(void) { return zlibVersion()[0] == 0; }\n' > z.c
bt run --system -o "$T/sys.db" -- cc -o z z.c -lz
out=$(bt packages -d "$T/sys.db" --build-depends 'zlib1g-dev | libz-dev, libnothere-dev (>= 1)')
printf '%s\n' "$out" | grep -Eq "^  zlib1g-dev +[^ ]+ +source zlib [^ ]+ .*headers compiled in" || fail "zlib1g-dev headers: $out"
! printf '%s\n' "$out" | grep -Eq "^  zlib1g-dev .*, incorporated" || fail "zlib1g-dev's headers counted as code: $out"
assert_contains "$out" "incorporated statically (Built-Using candidates): none" "no candidate from headers and runtime"
assert_contains "$out" "not candidates: toolchain runtime, linked under its license exception:" "runtime listed apart"
assert_contains "$out" "not candidates: headers only (compiled in, no code linked):" "headers listed apart"
printf '%s\n' "$out" | grep "headers only" | grep -q "zlib1g-dev" || fail "zlib1g-dev not among headers only: $out"
src_ver=$(dpkg-query -W -f='${source:Version}' zlib1g-dev)
libz_a=$(dpkg-query -L zlib1g-dev | grep '/libz\.a$' | head -n 1)
if [ -n "$libz_a" ]; then
    bt run --system -o "$T/static.db" -- cc -o zs z.c "$libz_a"
    out_s=$(bt packages -d "$T/static.db")
    assert_contains "$out_s" "Built-Using candidates): zlib (= $src_ver)" "libz.a linked: zlib is a candidate"
    printf '%s\n' "$out_s" | grep -Eq "^  zlib1g-dev .*, incorporated" || fail "zlib1g-dev incorporated: $out_s"
else
    missing_part "libz.a in zlib1g-dev"
fi
# Runtime data (locales, gconv, ld.so.cache) is never a header, library or script.
bt inputs -d "$T/sys.db" --roles z | python3 -c '
import sys
role = None
for line in sys.stdin:
    if not line.startswith("    ") and line.strip().endswith(":"):
        role = line.strip()
    elif any(d in line for d in ("/usr/lib/locale/", "/gconv/", "/etc/ld.so.cache")):
        assert role is None or role.startswith("other"), (role, line)
' || fail "runtime data classified as code"
gcc_pkg=$(dpkg-query -S "$(readlink -f "$(command -v cc)")" | cut -d: -f1 | head -n 1)
printf '%s\n' "$out" | grep -Eq "^  $gcc_pkg .*executed" || fail "the compiler's package ($gcc_pkg) was executed: $out"
assert_contains "$out" "declared build dependencies never touched (1): libnothere-dev" "untouched"
bt packages -d "$T/sys.db" --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["system_traced"] is True
z = [p for p in d["packages"] if p["package"] == "zlib1g-dev"][0]
assert z["source"] == "zlib" and z["headers"] and not z["incorporated"] and not z["executed"], z
'
# A symlink the build followed uses the package that ships it: /usr/bin/python3 is
# python3-minimal's, its target python3.X-minimal's; a declared python3 (same source, not
# touched itself) is reported as touched through python3-minimal, not as never touched.
if [ -L /usr/bin/python3 ]; then
    link_pkg=$(dpkg-query -S /usr/bin/python3 | cut -d: -f1)
    exe_pkg=$(dpkg-query -S "$(readlink -f /usr/bin/python3)" | cut -d: -f1 | head -n 1)
    bt run --system -o "$T/py.db" -- /usr/bin/python3 -S -c pass
    out=$(bt packages -d "$T/py.db" --build-depends "$link_pkg, python3")
    printf '%s\n' "$out" | grep -Eq "^  $link_pkg .*symlink followed" || fail "$link_pkg: symlink followed: $out"
    printf '%s\n' "$out" | grep -Eq "^  $exe_pkg .*executed" || fail "$exe_pkg executed: $out"
    assert_contains "$out" "never touched (0)" "the symlink's package is used"
    if [ "$link_pkg" != python3 ] && dpkg-query -W python3 >/dev/null 2>&1; then
        assert_contains "$out" "only their own source's packages they depend on (1): python3 (through $link_pkg" "python3 through $link_pkg"
    fi
else
    missing_part "/usr/bin/python3 as a symlink"
fi
# Without --system: no reads under /usr, and a note on stderr (not mixed with the answer)
# says why.
bt run -q -o "$T/plain.db" -- cc -o z z.c -lz
out=$(bt packages -d "$T/plain.db" 2> "$T/err")
assert_contains "$(cat "$T/err")" "did not trace /usr" "note"
printf '%s\n' "$out" | grep -q "did not trace" && fail "the note is on stdout: $out"
assert_contains "$out" "packages used (0)" "nothing seen"
set +e; bt packages -d "$T/plain.db" --admindir "$T/nowhere" 2>"$T/err"; st=$?; set -e
[ "$st" = 1 ] || fail "no dpkg database: exit $st"
assert_contains "$(cat "$T/err")" "no dpkg database in $T/nowhere" "message"
assert_no_leftovers
