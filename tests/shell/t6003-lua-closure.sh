#!/bin/sh
# inputs of lua's `lua` binary: lua.c and the sources of every liblua.a member, not luac.c.
# cost: workload (a real upstream build: its unprivileged variant is left out of the ASan pass)
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd make
require_cmd cc
require_cmd ar
require_cmd python3
tarball=$(workload lua5.4_5.4.4.orig.tar.gz)
tar xzf "$tarball" -C "$T"
src="$T/lua-5.4.4"
cd "$src"
bt run -o "$T/trace.db" -- make -j2 linux > "$T/build.log" 2>&1 || fail "build failed: $(tail "$T/build.log")"
{ echo "$src/src/lua.c"; ar t src/liblua.a | sed "s|^|$src/src/|; s|\.o\$|.c|"; } | sort > "$T/expected"
bt inputs -d "$T/trace.db" --json src/lua > "$T/in.json"
python3 - "$T/in.json" "$T/expected" "$src" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1])); src = sys.argv[3]
expected = sorted(open(sys.argv[2]).read().split())
sources = sorted(n["path"] for n in doc["inputs"] if n["origin"] == "found" and n["role"] == "source")
assert sources == expected, ("compiled sources", set(sources) ^ set(expected))
paths = {n["path"] for n in doc["inputs"]}
assert src + "/src/luac.c" not in paths, "luac.c is not in lua"
assert src + "/src/liblua.a" in paths, "the archive is an input"
assert src + "/src/lua.o" in paths, "lua.o is an input"
assert src + "/src/Makefile" in paths, "the Makefile that ran the link is a build script"
print("ok", len(sources), "sources")
PY
out=$(bt inputs -d "$T/trace.db" --roles src/lua)
assert_contains "$out" "linked objects and archives (" "roles"
assert_contains "$out" "built $src/src/liblua.a" "archive listed"
assert_no_leftovers
