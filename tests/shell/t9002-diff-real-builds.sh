#!/bin/sh
# diff on real builds: zlib (configure + make) built at two different paths with nothing
# else changed differs in one product only, configure.log, whose one root cause is the
# non-determinism of the `date` configure runs into it; with --exclude configure.log the
# builds are identical (exit 0); lua built with and without an extra MYCFLAGS define is
# one root cause, the argv difference of the compiles (the define; make passes MYCFLAGS to
# them through its environment), reaching every object the define changed, the library and
# both programs.
# cost: workload (a real upstream build: its unprivileged variant is left out of the ASan pass)
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd make
require_cmd cc
require_cmd python3
zlib=$(workload zlib_1.2.13.dfsg.orig.tar.bz2)
lua=$(workload lua5.4_5.4.4.orig.tar.gz)
for d in a b; do
    mkdir -p "$T/zlib-$d"
    tar xjf "$zlib" -C "$T/zlib-$d"
    (cd "$T/zlib-$d/zlib-1.2.13.dfsg" && bt run -q -o "$T/zlib-$d.db" -- sh -c './configure > /dev/null && make -j2 > /dev/null') ||
        fail "zlib build $d"
done
set +e; out=$(bt diff "$T/zlib-a.db" "$T/zlib-b.db"); st=$?; set -e
[ "$st" = 1 ] || fail "zlib: exit $st: $out"
printf '%s\n' "$out" | grep -Eq "^products: [0-9]+ identical, 1 differ, 0 only in A, 0 only in B" || fail "zlib: $out"
[ "$(printf '%s\n' "$out" | grep -c '^root cause')" = 1 ] || fail "zlib: one root cause: $out"
assert_contains "$out" "root cause 1: nondeterminism: configure.log" "zlib's log"
printf '%s\n' "$out" | grep -q "in A: \[[0-9]*\] date$" || fail "zlib: the date process: $out"
out=$(bt diff --exclude configure.log "$T/zlib-a.db" "$T/zlib-b.db") || fail "zlib without its log differs: $out"
printf '%s\n' "$out" | grep -Eq "^products: [0-9]+ identical, 0 differ, 0 only in A, 0 only in B" || fail "zlib: $out"

for d in a b; do
    mkdir -p "$T/lua-$d"
    tar xzf "$lua" -C "$T/lua-$d"
done
(cd "$T/lua-a/lua-5.4.4" && bt run -q -o "$T/lua-a.db" -- make -j2 linux > /dev/null 2>&1) || fail "lua build a"
(cd "$T/lua-b/lua-5.4.4" && bt run -q -o "$T/lua-b.db" -- make -j2 linux MYCFLAGS=-DLUAI_MAXCCALLS=190 > /dev/null 2>&1) ||
    fail "lua build b"
set +e; bt diff --json "$T/lua-a.db" "$T/lua-b.db" > "$T/lua.json"; st=$?; set -e
[ "$st" = 1 ] || fail "lua with MYCFLAGS: exit $st"
python3 - "$T/lua.json" <<'PY' || fail "lua: $(bt diff "$T/lua-a.db" "$T/lua-b.db")"
import json, sys
d = json.load(open(sys.argv[1]))
causes = d["root_causes"]
assert len(causes) == 1, [(c["kind"], c["path"], c["detail"][:80]) for c in causes]
c = causes[0]
assert c["kind"] == "argv" and "-DLUAI_MAXCCALLS=190" in c["detail"], c
assert c["more_processes"] >= 1, c
names = {p.rsplit("/", 1)[1] for p in c["products"]}
assert {"liblua.a", "lua", "luac"} <= names, names
assert sorted(c["products"]) == sorted(d["differ"]), "every difference is under the one cause"
assert all(p.endswith(".o") or p.rsplit("/", 1)[1] in ("liblua.a", "lua", "luac") for p in d["differ"]), d["differ"]
PY
cd "$T"
assert_no_leftovers
