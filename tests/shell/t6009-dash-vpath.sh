#!/bin/sh
# An autotools VPATH build with no flag: dash's `../dash-0.5.12/configure && make` from a
# build directory beside the source tree, under /tmp.  It builds as natively (src/dash runs),
# and the answers reach into the sibling source tree: `inputs src/dash` names the C sources
# there (and builtins.def, which a generator read), `who-read` of a source names the compile
# that read it, and compile-commands entries point into the source tree from build
# directories under the build tree.
# cost: workload (a real upstream build: its unprivileged variant is left out of the ASan pass)
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd cc
require_cmd make
require_cmd python3
tarball=$(workload dash_0.5.12.orig.tar.gz)
mkdir -p "$T/lay/build"
tar -xzf "$tarball" -C "$T/lay"
src=$T/lay/dash-0.5.12
cd "$T/lay/build"
bt run -o "$T/trace.db" -- sh -c '../dash-0.5.12/configure >/dev/null && make -j2 >/dev/null' \
    > "$T/out" 2>&1 || fail "the VPATH build failed: $(tail -5 "$T/out")"
[ "$(./src/dash -c 'echo ok')" = ok ] || fail "the built dash does not run"
[ ! -e "$src/src/dash" ] && [ ! -e "$src/config.h" ] || fail "the build wrote into the source tree"
inputs=$(bt inputs -d "$T/trace.db" src/dash)
for f in src/main.c src/eval.c src/shell.h src/builtins.def src/mkbuiltins; do
    printf '%s\n' "$inputs" | grep -qF "$src/$f" || fail "inputs of src/dash lack $src/$f: $(printf '%s\n' "$inputs" | head -20)"
done
printf '%s\n' "$inputs" | grep -qF "$T/lay/build/config.h" || fail "inputs of src/dash lack the build tree's config.h"
bt who-read -d "$T/trace.db" ../dash-0.5.12/src/eval.c | grep -q "cc1" || fail "who-read of a source names no compile"
bt export -d "$T/trace.db" --format compile-commands | python3 -c '
import json, sys, os
src, build = sys.argv[1], sys.argv[2]
entries = json.load(sys.stdin)
main = [e for e in entries if e["file"].endswith("/main.c")]
assert main, [e["file"] for e in entries][:10]
for e in main:
    path = os.path.normpath(os.path.join(e["directory"], e["file"]))
    assert path == src + "/src/main.c", (path, e)
    assert e["directory"] == build + "/src", e
' "$src" "$T/lay/build" || fail "compile-commands entries"
cd "$T"
assert_no_leftovers
