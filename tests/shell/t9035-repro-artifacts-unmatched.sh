#!/bin/sh
# repro --artifacts GLOB that matches no file either build made: exit 2, the glob named on
# one line, never the verdict "reproducible" on nothing compared; a glob that matches goes on.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd make
mkdir -p "$T/proj"
printf 'all:\n\tmkdir -p out; echo hi > out/a.txt\n' > "$T/proj/Makefile"
cd "$T/proj"
set +e; out=$(bt repro --vary umask --artifacts 'out/*.txt' --artifacts 'nomatch/*.deb' -o "$T/o1" -- make -s 2>"$T/err"); st=$?; set -e
[ "$st" = 2 ] || fail "exit $st: $out $(cat "$T/err")"
case "$out" in *reproducible*) fail "a verdict on nothing: $out" ;; esac
assert_contains "$(cat "$T/err")" "--artifacts nomatch/*.deb matches no file" "the glob named"
set +e; out=$(bt repro --vary umask --artifacts 'out/*.txt' -o "$T/o2" -- make -s 2>"$T/err"); st=$?; set -e
[ "$st" = 0 ] || fail "a glob that matches: exit $st: $out $(cat "$T/err")"
assert_contains "$out" "reproducible: 1 artifact identical" "compared"
assert_no_leftovers
