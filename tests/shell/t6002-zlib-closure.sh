#!/bin/sh
# inputs of zlib's libz.a: exactly the .c files of its members and the headers they include;
# not example.c or minigzip.c.  outputs of zutil.c reach libz.a; --prune, --json, --roles.
# cost: workload (a real upstream build: its unprivileged variant is left out of the ASan pass)
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd make
require_cmd cc
require_cmd ar
require_cmd python3
tarball=$(workload zlib_1.2.13.dfsg.orig.tar.bz2)
tar xjf "$tarball" -C "$T"
src="$T/zlib-1.2.13.dfsg"
cd "$src"
bt run -o "$T/trace.db" -- sh -c './configure && make -j2' > "$T/build.log" 2>&1 || fail "build failed: $(tail "$T/build.log")"
# Expected: the members of libz.a, as sources.
ar t libz.a | sed "s|^|$src/|; s|\.o\$|.c|" | sort > "$T/expected"
[ "$(wc -l < "$T/expected")" -ge 10 ] || fail "libz.a has too few members: $(cat "$T/expected")"
bt inputs -d "$T/trace.db" --json libz.a > "$T/in.json"
python3 - "$T/in.json" "$T/expected" "$src" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1])); src = sys.argv[3]
expected = sorted(open(sys.argv[2]).read().split())
assert doc["target"]["path"] == src + "/libz.a", doc["target"]
assert doc["target"]["origin"] == "built" and len(doc["target"]["sha256"]) == 64
leaves = [n for n in doc["inputs"] if n["origin"] == "found"]
sources = sorted(n["path"] for n in leaves if n["role"] == "source")
assert sources == expected, ("compiled sources", sources, expected)
allpaths = {n["path"] for n in doc["inputs"]}
for bad in ("example.c", "minigzip.c", "test/example.c", "test/minigzip.c"):
    assert src + "/" + bad not in allpaths, bad + " is not in libz.a"
headers = {n["path"] for n in doc["inputs"] if n["role"] == "header"}
for h in ("zlib.h", "zutil.h", "zconf.h", "deflate.h", "inflate.h"):
    assert src + "/" + h in headers, (h, sorted(headers))
# every leaf .c under the tree is a member's source (no other compiled source got in)
cfiles = sorted(n["path"] for n in leaves if n["path"].endswith(".c"))
assert cfiles == expected, cfiles
print("ok", len(doc["inputs"]), "inputs")
PY
# The same from the text views.
out=$(bt inputs -d "$T/trace.db" --leaves --roles libz.a)
assert_contains "$out" "compiled sources (" "grouped by role"
assert_contains "$out" "found $src/adler32.c" "adler32.c listed"
case "$out" in *example.c*|*minigzip.c*) fail "example/minigzip in libz.a's inputs: $out";; esac
# Pruning the workspace leaves nothing of it (and the build's temp files are left out too).
out=$(bt inputs -d "$T/trace.db" --prune "$src" --prune /tmp libz.a | tail -n +2)
case "$out" in *"$src/"*) fail "--prune kept files under $src: $out";; esac
# outputs: zutil.c went into zutil.o, libz.a and the shared library, not into example.o.
out=$(bt outputs -d "$T/trace.db" zutil.c)
assert_contains "$out" "$src/zutil.o" "zutil.o made from zutil.c"
assert_contains "$out" "$src/libz.a" "libz.a made from zutil.c"
case "$out" in *"$src/example.o"*) fail "example.o is not made from zutil.c: $out";; esac
out=$(bt outputs -d "$T/trace.db" test/example.c)
assert_contains "$out" "$src/example.o" "example.o made from example.c"
case "$out" in *"$src/libz.a"*) fail "libz.a is not made from example.c: $out";; esac
assert_no_leftovers
