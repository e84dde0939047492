#!/bin/sh
# repro --bisect on an output that differs only when two variations are made together (umask
# and home take the experiment's values: 0002 and /nonexistent/second-build): pinned to those
# two, never to the other variations made beside them (it was pinned to the whole union of the
# halves that split them); $(umask) hints umask.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd make
mkdir -p "$T/proj"
printf 'all:\n\tif [ "$$(umask)" = 0002 ] && [ "$$HOME" = /nonexistent/second-build ]; then echo diff; else echo same; fi > out\n' \
    > "$T/proj/Makefile"
cd "$T/proj"
set +e; out=$(bt repro --bisect --vary umask,home,num_cpus,timezone -o "$T/o" -- make -s 2>"$T/err"); st=$?; set -e
[ "$st" = 1 ] || fail "exit $st: $out $(cat "$T/err")"
assert_contains "$out" "pinned by --bisect to: home, umask (each, or together)" "the two together"
assert_contains "$out" "may be explained by: home, umask" "the hints"
assert_no_leftovers
