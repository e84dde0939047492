#!/bin/sh
# Right answers on out-of-tree layouts, with no flag: the sources lie in a sibling of the
# build directory (`..`), all under /tmp.  A plain `cc -c ../src/a.c`, a CMake + Ninja build
# and a Meson + Ninja build of the sample from their own build directories: the build succeeds
# as natively, `inputs` of the product names the sources and headers in the sibling tree, and
# `export --format compile-commands` gives CMake's own compile_commands.json entries (file,
# directory and arguments after the compiler; CMake's try-compiles, in directories it removed,
# are not entries).  Temporaries (cc's /tmp/cc*.s) are labelled so, caches are not products.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd python3
mkdir -p "$T/lay" && cp -r "$SAMPLE" "$T/lay/proj"
rm -f "$T/lay/proj/hello" "$T/lay/proj/libgreet.a" "$T/lay/proj/version.h" "$T"/lay/proj/src/*.o

# A plain out-of-tree compile: cc -c ../proj/src/shout.c from a build directory.
mkdir "$T/lay/plain" && cd "$T/lay/plain"
# (It also leaves a file in $HOME's cache and in /var/tmp: traced, but never products.  A
# private HOME: the unprivileged variant's HOME is a shared /tmp.)
export HOME="$T/home"
mkdir -p "$HOME"
cache_file="$HOME/.cache/bt-t6008-$$" var_file="/var/tmp/bt-t6008-$$"
on_cleanup rm -f "$cache_file" "$var_file"
bt run -o "$T/plain.db" -- sh -c "cc -c ../proj/src/shout.c -o shout.o && mkdir -p '$HOME/.cache' && echo c > '$cache_file' && echo v > '$var_file'" > "$T/out" 2>&1 ||
    fail "cc from a sibling build directory failed: $(cat "$T/out")"
bt who-wrote -d "$T/plain.db" "$cache_file" | grep -q "written by" || fail "the cache write is not traced"
bt who-wrote -d "$T/plain.db" "$var_file" | grep -q "written by" || fail "the /var/tmp write is not traced"
bt export -d "$T/plain.db" --format spdx | python3 -c '
import json, sys
d = json.load(sys.stdin)
names = {f["SPDXID"]: f["fileName"] for f in d["files"]}
products = sorted(names[r["relatedSpdxElement"]] for r in d["relationships"] if r["relationshipType"] == "DESCRIBES")
assert products == ["./shout.o"], products
' || fail "the products are not just shout.o"
out=$(bt inputs -d "$T/plain.db" shout.o)
assert_contains "$out" "found  source $T/lay/proj/src/shout.c" "the source in the sibling tree"
assert_contains "$out" "found  header $T/lay/proj/src/greet.h" "the header in the sibling tree"
# cc's assembly went through a temporary file ($TMPDIR/cc*.s): labelled as one, not as a
# built source.
printf '%s\n' "$out" | grep -q "^  temp   source .*/cc[^/]*\.s$" || fail "cc's temporary .s not labelled temp: $out"
! printf '%s\n' "$out" | grep -q "built  source .*/cc[^/]*\.s$" || fail "a temporary shown as built: $out"
bt inputs -d "$T/plain.db" --json shout.o | python3 -c '
import json, sys
import os
temps = [n for n in json.load(sys.stdin)["inputs"]
         if os.path.basename(n["path"]).startswith("cc") and n["path"].endswith(".s")]
assert temps and all(n.get("temporary") is True for n in temps), temps
' || fail "the temporary is not marked in JSON"
bt who-read -d "$T/plain.db" ../proj/src/shout.c | grep -q "read by .*cc1" ||
    fail "who-read of ../proj/src/shout.c"

check_hello() { # TRACE: the product's closure reaches every source and header of the sibling
    out=$(bt inputs -d "$1" hello)
    for f in src/main.c src/greet.c src/shout.c src/greet.h; do
        assert_contains "$out" "found  " "inputs of hello ($1)"
        printf '%s\n' "$out" | grep -q "found .* $T/lay/proj/$f\$" ||
            fail "inputs of hello ($1) misses $T/lay/proj/$f: $out"
    done
}

# CMake + Ninja from a separate build directory.
if command -v cmake > /dev/null && command -v ninja > /dev/null; then
    mkdir "$T/lay/bc" && cd "$T/lay/bc"
    bt run -o "$T/cmake.db" -- sh -c 'cmake -G Ninja -DCMAKE_EXPORT_COMPILE_COMMANDS=ON ../proj && ninja' > "$T/out" 2>&1 ||
        fail "the CMake build failed traced: $(tail -5 "$T/out")"
    ./hello | grep -q "hello, world" || fail "the CMake-built hello does not run"
    check_hello "$T/cmake.db"
    bt export -d "$T/cmake.db" --format compile-commands -o "$T/ours.json"
    python3 - "$T/ours.json" compile_commands.json <<'PY' || fail "compile-commands differ from CMake's"
import json, os, shlex, sys
ours = json.load(open(sys.argv[1]))
theirs = json.load(open(sys.argv[2]))
# CMake writes the command it generates; Ninja's rule adds the dependency-file options (-MD
# -MT X -MF X) when it runs it: what ran has them, CMake's file does not.  CMake 3.25 writes
# no "output".  Everything else must be the same.
def strip_dep(args):
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
        elif a in ("-MT", "-MF", "-MQ"):
            skip = True
        elif a not in ("-MD", "-MMD"):
            out.append(a)
    return out
def norm(e, args, with_output):
    out = e.get("output") if with_output else None
    if out and not os.path.isabs(out):
        out = os.path.normpath(os.path.join(e["directory"], out))
    return (os.path.normpath(e["file"]), e["directory"], out, tuple(strip_dep(args[1:])))
with_output = all("output" in e for e in theirs)
a = sorted(norm(e, e["arguments"], with_output) for e in ours)
b = sorted(norm(e, e.get("arguments") or shlex.split(e["command"]), with_output) for e in theirs)
assert a == b, "\nours:   %s\ncmake's: %s" % (a, b)
PY
else
    missing_part "cmake and ninja (the CMake layout)"
fi

# Meson + Ninja from a separate build directory.
if command -v meson > /dev/null && command -v ninja > /dev/null; then
    mkdir "$T/lay/bm" && cd "$T/lay/bm"
    bt run -o "$T/meson.db" -- sh -c 'meson setup . ../proj && ninja' > "$T/out" 2>&1 ||
        fail "the Meson build failed traced: $(tail -5 "$T/out")"
    ./hello | grep -q "hello, world" || fail "the Meson-built hello does not run"
    check_hello "$T/meson.db"
else
    missing_part "meson and ninja (the Meson layout)"
fi
cd "$T"
assert_no_leftovers
