#!/bin/sh
# export --format compile-commands keeps a compile whose output the build removed when its
# source is still there (a.c -> a.o, then rm a.o), and a compile that links in the same step
# (`cc -o rounding rounding.c`, then rm rounding: rsync's rounding.c, which Bear lists), its
# output the program; only a compile whose source is gone (configure's conftest.c, removed
# with its object or program) is a probe and left out.  The files are Bear's, where Bear is.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd cc
require_cmd python3
mkdir "$T/ws" && cd "$T/ws"
echo 'int main(void) { return 0; }' > a.c
echo 'int main(void) { return 0; }' > rounding.c
echo 'int kept;' > keep.c
cat > build.sh <<'B'
cc -c a.c -o a.o && rm a.o
cc -o rounding rounding.c && ./rounding && rm -f rounding
echo 'int main(void) { return 0; }' > conftest.c
cc -c conftest.c -o conftest.o && rm -f conftest.c conftest.o
echo 'int main(void) { return 0; }' > conftest.c
cc -o conftest conftest.c && rm -f conftest.c conftest
cc -c keep.c -o keep.o
B
bt run -q -- sh build.sh
bt export --format compile-commands -o "$T/cc.json"
python3 - "$T/cc.json" "$T/ws" <<'PY' || fail "compile-commands: $(cat "$T/cc.json")"
import json, sys
cc = json.load(open(sys.argv[1])); ws = sys.argv[2]
got = sorted((e["file"][len(ws) + 1:], e.get("output", "")[len(ws) + 1:]) for e in cc)
want = [("a.c", "a.o"), ("keep.c", "keep.o"), ("rounding.c", "rounding")]
assert got == want, got
PY
# With --with-links the one-step compile is still its source's entry, not a link of itself.
bt export --format compile-commands --with-links | python3 -c '
import json, sys
files = sorted(e["file"].rsplit("/", 1)[1] for e in json.load(sys.stdin))
assert files == ["a.c", "keep.c", "rounding.c"], files' || fail "--with-links"
# A build system's compiler probe that stays on disk (CMake's compiler identification) is not
# an entry either, though its source is still there.
mkdir -p CMakeFiles/3.25.1/CompilerIdC
echo 'int main(void) { return 0; }' > CMakeFiles/3.25.1/CompilerIdC/CMakeCCompilerId.c
bt run -q -o "$T/probe.db" -- sh -c 'cd CMakeFiles/3.25.1/CompilerIdC && cc CMakeCCompilerId.c'
[ -e CMakeFiles/3.25.1/CompilerIdC/a.out ] || fail "the probe did not compile"
assert_eq "$(bt export -d "$T/probe.db" --format compile-commands)" "[]" "CMake's compiler identification"
rm -rf CMakeFiles
if command -v bear > /dev/null; then
    rm -f a.o keep.o
    bear --output "$T/bear.json" -- sh build.sh > /dev/null 2>&1 || fail "bear failed"
    python3 - "$T/cc.json" "$T/bear.json" <<'PY' || fail "not Bear's files: $(cat "$T/bear.json")"
import json, sys
ours = sorted(e["file"] for e in json.load(open(sys.argv[1])))
bears = sorted(e["file"] for e in json.load(open(sys.argv[2])))
assert ours == bears, (ours, bears)
PY
else
    missing_part "bear (apt-get install bear)"
fi
assert_no_leftovers
