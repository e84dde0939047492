#!/bin/sh
# copies: lz4's programs incorporate its vendored lib/xxhash.c; with an index of a "known"
# xxHash release the copy is reported as the same content and shown with the outputs it went
# into (liblz4.a, the lz4 program); an older, edited release is still recognised by
# similarity; a file compiled but linked into nothing is "vendored but unused".
# cost: workload (a real upstream build: its unprivileged variant is left out of the ASan pass)
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd make
require_cmd cc
require_cmd python3
tarball=$(workload lz4_1.9.4.orig.tar.gz)
tar xzf "$tarball" -C "$T"
src="$T/lz4-1.9.4"
cd "$src"
# Also compile (but never link) a second vendored copy, to see "vendored but unused".
mkdir contrib-copy && cp lib/xxhash.c contrib-copy/xxhash.c
bt run -o "$T/trace.db" -- sh -c 'make -j2 lib lz4 && cc -c -Ilib -o contrib-copy/x.o contrib-copy/xxhash.c && rm contrib-copy/x.o' > "$T/build.log" 2>&1 || fail "build failed: $(tail "$T/build.log")"
mkdir -p "$T/known/xxHash-0.8.1" "$T/old/xxHash-0.7"
cp lib/xxhash.c lib/xxhash.h "$T/known/xxHash-0.8.1/"
# An "older release": every 12th line dropped, some renamed.
python3 - lib/xxhash.c "$T/old/xxHash-0.7/xxhash.c" <<'PY'
import sys
lines = open(sys.argv[1]).read().split("\n")
out = [l.replace("XXH_FORCE_INLINE", "FORCE_INLINE") for i, l in enumerate(lines) if i % 12 != 5]
open(sys.argv[2], "w").write("\n".join(out))
PY
bt copies --index "$T/known" -o "$T/known.idx"
grep -q "  known/xxHash-0.8.1/xxhash.c\$" "$T/known.idx" || fail "index lacks xxhash.c: $(head -3 "$T/known.idx")"
grep -q "^~ known/xxHash-0.8.1/xxhash.c " "$T/known.idx" || fail "index lacks fingerprints"
bt copies --index "$T/old" -o "$T/old.idx"

bt copies -d "$T/trace.db" --known "$T/known.idx" --json > "$T/exact.json"
bt copies -d "$T/trace.db" --known "$T/old.idx" --json > "$T/similar.json"
python3 - "$T/exact.json" "$T/similar.json" "$src" <<'PY'
import json, sys
exact = json.load(open(sys.argv[1])); similar = json.load(open(sys.argv[2])); src = sys.argv[3]
by = {f["path"]: f for f in exact["files"]}
x = by[src + "/lib/xxhash.c"]
assert {"kind": "same", "in": "known", "score": 1.0, "name": "known/xxHash-0.8.1/xxhash.c"} in x["matches"], x
assert src + "/lib/liblz4.a" in x["shipped_in"] and src + "/programs/lz4" in x["shipped_in"], x["shipped_in"]
# the second copy: same content as the first (in the build) and as the known release, unused
c = by[src + "/contrib-copy/xxhash.c"]
assert any(m["kind"] == "same" and m["in"] == "build" and m["name"] == src + "/lib/xxhash.c" for m in c["matches"]), c
assert c["shipped_in"] == [], c["shipped_in"]
# lz4.c is not a copy of anything known
assert src + "/lib/lz4.c" not in by
# the older release: similar, not the same
s = {f["path"]: f for f in similar["files"]}[src + "/lib/xxhash.c"]
m = [m for m in s["matches"] if m["in"] == "known"][0]
assert m["kind"] == "similar" and 0.6 <= m["score"] < 1.0, m
PY
out=$(bt copies -d "$T/trace.db" --known "$T/known.idx")
assert_contains "$out" "shipped in nothing (vendored but unused)" "unused copy in text"
assert_contains "$out" "same content as   (known) known/xxHash-0.8.1/xxhash.c" "text"
set +e; bt copies -d "$T/trace.db" --known "$T/missing.idx" 2>"$T/err"; st=$?; set -e
[ "$st" = 2 ] || fail "missing index: exit $st"
assert_no_leftovers
