#!/bin/sh
# One upstream tree (zlib, with debug information: CFLAGS="-g -O2") built in two directories,
# src/up and src/up2, both runs started in src/: the products' tree is the layout (src/up maps
# onto src/up2), so every product and every relative read (../zlib.h) matches, and what the
# compiles embed (their directory, DW_AT_comp_dir) is one cause, the build path, "embedded by
# N steps" — not one "nondeterminism: /tmp/cc….s (a temporary)" per cc1.  configure.log's
# `date` stays what it is.  Then the same two trees, each run from its own directory.
# cost: workload (a real upstream build twice over: its unprivileged variant is left out of the ASan pass)
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd make
require_cmd cc
require_cmd python3
zlib=$(workload zlib_1.2.13.dfsg.orig.tar.bz2)
mkdir -p "$T/src"
for d in up up2; do
    mkdir "$T/src/$d"
    tar xjf "$zlib" -C "$T/src/$d" --strip-components=1
done
cd "$T/src"
for d in up up2; do
    bt run -q -o "$T/$d.db" -- sh -c "cd $d && CFLAGS='-g -O2' ./configure > /dev/null && make -j2 libz.a > /dev/null" ||
        fail "zlib in $d"
done
check() { # A B: one build path cause (OLD → NEW), the date, nothing only in one build
    set +e; out=$(bt diff "$1" "$2"); st=$?; set -e
    [ "$st" = 1 ] || fail "exit $st: $out"
    printf '%s\n' "$out" | grep -Eq "^products: [0-9]+ identical, [0-9]+ differ, 0 only in A, 0 only in B" ||
        fail "every product matched: $out"
    assert_contains "$out" "root cause 1: build path: $T/src/up → $T/src/up2, embedded by " "one build path cause"
    [ "$(printf '%s\n' "$out" | grep -c '^root cause')" = 2 ] || fail "two causes: $out"
    assert_contains "$out" "root cause 2: nondeterminism: up2/configure.log" "configure's date"
    case $out in *"read by the"*) fail "a relative path unpaired: $out" ;; esac
    printf '%s\n' "$out" | grep -q '^root cause.*: nondeterminism: .*(a temporary)' && fail "a temporary: $out"
    :
}
check "$T/up.db" "$T/up2.db"
cd "$T/src/up" && make distclean > /dev/null 2>&1
cd "$T/src/up2" && make distclean > /dev/null 2>&1
for d in up up2; do
    (cd "$T/src/$d" && bt run -q -o "$T/$d-own.db" -- sh -c "CFLAGS='-g -O2' ./configure > /dev/null && make -j2 libz.a > /dev/null") ||
        fail "zlib from $d"
done
set +e; out=$(bt diff "$T/up-own.db" "$T/up2-own.db"); set -e
assert_contains "$out" "root cause 1: build path: $T/src/up → $T/src/up2, embedded by " "from each directory"
printf '%s\n' "$out" | grep -Eq "^products: [0-9]+ identical, [0-9]+ differ, 0 only in A, 0 only in B" ||
    fail "from each directory: $out"
cd "$T"
assert_no_leftovers
