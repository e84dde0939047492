#!/bin/sh
# compile-commands' "output" is what argv names, as the compiler and Bear read it: on an
# automake + libtool compile line (-MT x.lo -MD -MP -MF .deps/x.Tpo ... -o .libs/x.o) it is
# .libs/x.o, not the .Tpo the compiler wrote first; -oFILE glued (the last -o, for clang); with no
# -o, the compiler's default (x.o for -c, x.s for -S, a.out for a link) in the directory
# it ran in.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd gcc
require_cmd python3
mkdir -p "$T/ws/src/.deps" "$T/ws/src/.libs" "$T/ws/out" && cd "$T/ws"
for n in reader writer glued last plain asm; do
    printf 'int f_%s(void) { return 1; }\n' "$n" > "src/$n.c"
done
printf 'int main(void) { return 0; }\n' > src/main.c
cat > build.sh <<'B'
set -e
cd src
# libtool's two compiles of one source: PIC into .libs/, then the static one
gcc -DHAVE_CONFIG_H -I. -MT reader.lo -MD -MP -MF .deps/reader.Tpo -c reader.c -fPIC -DPIC -o .libs/reader.o
gcc -DHAVE_CONFIG_H -I. -MT reader.lo -MD -MP -MF .deps/reader.Tpo -c reader.c -o reader.o >/dev/null 2>&1
mv -f .deps/reader.Tpo .deps/reader.Plo
gcc -MD -MF .deps/writer.Tpo -c writer.c -o ../out/writer.o
gcc -c glued.c -o../out/glued.o
gcc -c plain.c
gcc -S asm.c
gcc main.c
B
bt run -q -o "$T/t.db" -- sh build.sh
[ -e src/.libs/reader.o ] && [ -e out/writer.o ] && [ -e src/a.out ] || fail "the build did not make its files"
bt export -d "$T/t.db" --format compile-commands -o "$T/cc.json"
python3 - "$T/cc.json" "$T/ws" <<'PY' || fail "outputs: $(cat "$T/cc.json")"
import json, sys
db = json.load(open(sys.argv[1])); ws = sys.argv[2]
got = sorted((e["file"][len(ws) + 1:], e["output"][len(ws) + 1:]) for e in db)
want = sorted([("src/reader.c", "src/.libs/reader.o"), ("src/reader.c", "src/reader.o"),
               ("src/writer.c", "out/writer.o"), ("src/glued.c", "out/glued.o"),
               ("src/plain.c", "src/plain.o"), ("src/asm.c", "src/asm.s"),
               ("src/main.c", "src/a.out")])
assert got == want, got
assert not any(e["output"].endswith(".Tpo") for e in db), db
PY
assert_no_leftovers
