#!/bin/sh
# diff names root causes, not symptoms, on small builds at two different paths:
# - a generator that writes `date +%s%N` into a header included by one of two objects: the
#   one root cause is that process's non-determinism at version.h; it reaches version.h, the
#   object that includes it and the library, not the other object (identical);
# - OPT=-O2 given to one build's make: an argv root cause naming that make command
#   (added OPT=-O2) and the compiler it reached (added -O2), reaching that object and the library;
# - a header found outside the build with other content: an input root cause;
# - __FILE__ of an absolute source path: non-determinism whose hint is the build path;
# - the same build twice at two paths: identical, exit 0; and against a trace recorded with
#   --system, identical, with the system trees said not compared.
# Exit 1 when products differ, 2 for a trace that cannot be read or a usage error.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd cc
require_cmd make
require_cmd python3
mkdir -p "$T/src" "$T/ext"
cd "$T/src"
cat > Makefile <<'MK'
GEN ?= date +%s%N
OPT ?=
all: libx.a
version.h:
	$(GEN) > version.h
a.o: a.c version.h
	cc -c a.c -o a.o
b.o: b.c
	cc $(OPT) -I$(EXT) -c b.c -o b.o
libx.a: a.o b.o
	ar rcD libx.a a.o b.o
MK
printf 'long when =\n#include "version.h"\n;\n' > a.c
printf '#include "ext.h"\nint b(int x) { int s = 0; for (int i = 0; i < x; i++) s += i * EXT; return s; }\n' > b.c
echo '#define EXT 3' > "$T/ext/ext.h"
build() { # build NAME MAKE-ARGS...: a copy of src at $T/NAME, traced into $T/NAME.db
    name=$1; shift
    cp -r "$T/src" "$T/$name"
    (cd "$T/$name" && bt run -q -o "$T/$name.db" -- make -s EXT="$T/ext" "$@") || fail "build $name"
}
build one
build two
set +e; out=$(bt diff "$T/one.db" "$T/two.db"); st=$?; set -e
[ "$st" = 1 ] || fail "differing builds: exit $st: $out"
assert_contains "$out" "products: 1 identical, 3 differ, 0 only in A, 0 only in B" "counts"
[ "$(printf '%s\n' "$out" | grep -c '^root cause')" = 1 ] || fail "one root cause: $out"
assert_contains "$out" "root cause 1: nondeterminism: version.h" "the generator's header"
printf '%s\n' "$out" | grep -q "in A: \[[0-9]*\] date +%s%N" || fail "the generator process: $out"
bt diff --json "$T/one.db" "$T/two.db" | python3 -c '
import json, sys
d = json.load(sys.stdin)
(c,) = d["root_causes"]
rel = sorted(p.rsplit("/", 1)[1] for p in c["products"])
assert c["kind"] == "nondeterminism" and rel == ["a.o", "libx.a", "version.h"], c
assert not any(p.endswith("/b.o") for p in d["differ"]) and d["identical"] == 1, d
assert c["process_a"]["argv"] == ["date", "+%s%N"], c
chain = dict(zip(c["products"], c["chains"]))
lib = [p for p in chain if p.endswith("/libx.a")][0]
hops = [h.rsplit("/", 1)[1] for h in chain[lib]]
assert hops[0] == "a.o" and hops[-1] == "version.h", chain[lib]   # libx.a <- a.o <- (the assembler file) <- version.h
' || fail "diff --json"

build three GEN="echo 7"
build four GEN="echo 7" OPT=-O2
set +e; out=$(bt diff "$T/three.db" "$T/four.db"); st=$?; set -e
[ "$st" = 1 ] || fail "-O2: exit $st"
assert_contains "$out" "root cause 1: argv:" "argv"
assert_contains "$out" "added OPT=-O2; so the programs that made its products differ too: added -O2" "the added words"
printf '%s\n' "$out" | grep -q "in B: \[1\] make -s .* OPT=-O2" || fail "the make command: $out"
assert_contains "$out" "reaches 2 products:" "b.o and libx.a"

echo '#define EXT 5' > "$T/ext/ext.h"
build five GEN="echo 7"
out=$(bt diff "$T/three.db" "$T/five.db") && fail "another header: exit 0"
assert_contains "$out" "root cause 1: input: $T/ext/ext.h" "the header found outside the build"
assert_contains "$out" "found with other content" "detail"

echo '#define EXT 3' > "$T/ext/ext.h"
build six GEN="echo 7"
out=$(bt diff "$T/three.db" "$T/six.db") || fail "the same build at two paths: $out"
assert_contains "$out" "products: 4 identical, 0 differ" "identical"

# A trace recorded with --system against one without: the same products, and what could
# not be compared is said.
build seven GEN="echo 7" --no-print-directory
cd "$T/seven" && rm -f version.h a.o b.o libx.a && bt run -q --system -o "$T/seven-sys.db" -- make -s EXT="$T/ext" GEN="echo 7" || fail "build seven --system"
out=$(bt diff "$T/three.db" "$T/seven-sys.db") || fail "with and without --system: $out"
assert_contains "$out" "products: 4 identical, 0 differ" "identical"
assert_contains "$out" "not compared: files under the system trees: only B was recorded with --system" "said"

# The same command finds another program on its PATH: the cause is that program (another
# tool: its content, when its tree is traced, else the executable itself), not
# non-determinism.
mkdir -p "$T/b1" "$T/b2" "$T/g1"
printf '#include <stdio.h>\nint main(void) { puts("1"); return 0; }\n' > "$T/g.c"
cc -o "$T/b1/gen" "$T/g.c"
sed -i 's/"1"/"2"/' "$T/g.c" && cc -o "$T/b2/gen" "$T/g.c"
cd "$T/g1" && PATH="$T/b1:$PATH" bt run -q -o "$T/g1.db" -- sh -c 'gen > out.txt'
cp -r "$T/g1" "$T/g2" && rm "$T/g2/out.txt" && cd "$T/g2"
PATH="$T/b2:$PATH" bt run -q -o "$T/g2.db" -- sh -c 'gen > out.txt'
bt diff --json "$T/g1.db" "$T/g2.db" | python3 -c '
import json, sys
(c,) = json.load(sys.stdin)["root_causes"]
assert (c["kind"] == "input" and c["path"].endswith("/b2/gen")) or c["kind"] == "executable", c
assert c["products"][0].endswith("/out.txt"), c
' || fail "another program on PATH: $(bt diff "$T/g1.db" "$T/g2.db")"

# __FILE__ of an absolute path: the build path is in the object, and nothing else differs
# (the objects on disk, A's path replaced by B's, are the same): one cause, the build path.
mkdir "$T/fa" && cd "$T/fa"
printf 'const char *f = __FILE__;\n' > f.c
bt run -q -o "$T/fa.db" -- sh -c 'cc -c "$PWD/f.c" -o f.o'
cp -r "$T/fa" "$T/fb" && rm "$T/fb/f.o" && cd "$T/fb"
bt run -q -o "$T/fb.db" -- sh -c 'cc -c "$PWD/f.c" -o f.o'
out=$(bt diff "$T/fa.db" "$T/fb.db") && fail "__FILE__: exit 0"
assert_contains "$out" "root cause 1: build path: $T/fa → $T/fb, embedded by 1 step" "kind"
# the object changed since (another length): no longer known to differ by the path alone
printf 'more' >> "$T/fb/f.o"
out=$(bt diff "$T/fa.db" "$T/fb.db") && fail "__FILE__: exit 0"
assert_contains "$out" "nondeterminism" "kind"
assert_contains "$out" "or embeds the build path" "the hint"

set +e
bt diff "$T/one.db" > /dev/null 2>&1; st=$?
[ "$st" = 2 ] || fail "one operand: exit $st"
bt diff "$T/one.db" "$T/nothing.db" > /dev/null 2> "$T/err"; st=$?
set -e
[ "$st" = 2 ] || fail "a missing trace: exit $st"
assert_contains "$(cat "$T/err")" "nothing.db" "names the missing trace"
cd "$T"
assert_no_leftovers
