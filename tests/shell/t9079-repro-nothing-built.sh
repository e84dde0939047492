#!/bin/sh
# repro in a tree whose build makes no file (built already: make has nothing to do) is an
# error naming why and the fix (exit 2), never "reproducible: 0 artifacts identical" (exit 0,
# as it said): a verdict on nothing compared.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/repro.sh"
require_fuse
mkdir "$T/p"
printf 'out.txt:\n\techo hi > out.txt\n' > "$T/p/Makefile"
cd "$T/p"
make -s
set +e; bt repro -o "$T/o" -- make -s > "$T/out" 2> "$T/err"; st=$?; set -e
[ "$st" = 2 ] || fail "a build that made nothing: exit $st: $(cat "$T/out" "$T/err")"
assert_contains "$(cat "$T/err")" "neither build made a file, so there is nothing to compare" "the reason"
assert_contains "$(cat "$T/err")" "make clean" "the fix"
[ ! -s "$T/out" ] || fail "a report on nothing: $(cat "$T/out")"
# Cleaned, the same tree is compared and reproducible.
rm out.txt
bt repro -o "$T/o2" -- make -s > "$T/out" 2> "$T/err" || fail "clean tree: $(cat "$T/out" "$T/err")"
assert_contains "$(cat "$T/out")" "reproducible: 1 artifact" "the verdict on the clean tree"
cd "$T"
assert_no_leftovers
