#!/bin/sh
# A build that writes a generated header, compiles against it, rewrites it and compiles again:
# each compile is bound to the version it read, and inputs of each object shows that version.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd make
require_cmd cc
require_cmd python3
mkdir "$T/ws" && cd "$T/ws"
printf '#include "gen.h"\nint value(void) { return GEN; }\n' > a.c
cat > Makefile <<'M'
all:
	echo '#define GEN 1' > gen.h
	cc -c a.c -o first.o
	echo '#define GEN 2' > gen.h
	cc -c a.c -o second.o
M
bt run -o "$T/trace.db" -- make > "$T/build.log" 2>&1 || fail "build failed: $(cat "$T/build.log")"
h1=$(printf '#define GEN 1\n' | sha256sum | cut -d' ' -f1)
h2=$(printf '#define GEN 2\n' | sha256sum | cut -d' ' -f1)
for pair in "first.o $h1 $h2" "second.o $h2 $h1"; do
    set -- $pair
    bt inputs -d "$T/trace.db" --json "$1" > "$T/$1.json"
    python3 - "$T/$1.json" "$T/ws/gen.h" "$2" "$3" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1])); gen, want, other = sys.argv[2:5]
vs = [n for n in doc["inputs"] if n["path"] == gen]
assert len(vs) == 1, ("one version of gen.h", vs)
assert vs[0]["sha256"] == want, ("the version this object's compiler read", vs[0], want)
assert vs[0]["role"] == "header" and vs[0]["origin"] == "built", vs[0]
PY
done
# outputs of a.c: both objects; of gen.h: both (two versions), each once.
out=$(bt outputs -d "$T/trace.db" gen.h)
assert_contains "$out" "gen.h: 2 versions" "two versions of gen.h"
assert_contains "$out" "$T/ws/first.o" "first.o from gen.h"
assert_contains "$out" "$T/ws/second.o" "second.o from gen.h"
assert_no_leftovers
