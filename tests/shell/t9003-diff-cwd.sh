#!/bin/sh
# diff names the directory a program ran in as the root cause when that is all that differs:
# the same command run from a fresh temporary directory (outside both builds, so not mapped)
# writes where it ran.  PWD, which follows the directory, is not reported as an environment
# cause in its place.
. "$(dirname "$0")/lib.sh"
require_fuse
for d in one two; do
    mkdir "$T/$d" "$T/$d-tmp"
    (cd "$T/$d" && bt run -q -o "$T/$d.db" -- sh -c 'cd "$(mktemp -d "$1/w.XXXXXX")" && /bin/pwd > "$2/where.txt"' sh "$T/$d-tmp" "$T/$d") ||
        fail "build $d"
done
set +e; out=$(bt diff "$T/one.db" "$T/two.db"); st=$?; set -e
[ "$st" = 1 ] || fail "exit $st: $out"
assert_contains "$out" "products: 0 identical, 1 differ, 0 only in A, 0 only in B" "counts"
assert_contains "$out" "root cause 1: cwd: where.txt" "the cause is the directory"
printf '%s\n' "$out" | grep -q "run in $T/one-tmp/w\.[^ ]* in A and $T/two-tmp/w\.[^ ]* in B" ||
    fail "the two directories: $out"
printf '%s\n' "$out" | grep -q "in A: \[[0-9]*\] /bin/pwd" || fail "the process: $out"
case $out in *PWD*) fail "PWD reported: $out" ;; esac
assert_no_leftovers
