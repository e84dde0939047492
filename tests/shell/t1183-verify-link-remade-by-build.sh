#!/bin/sh
# verify --inputs reads a declared path through its symlinks as run --only-inputs does, but
# only through links the build left as they were: it resolves them after the build, so a
# build that read an undeclared file and then pointed a declared link at it (ln -sfn
# secret.txt lnk) made that read declared, and the input the link led to undeclared.  A link
# the build wrote is taken as it is: what it leads to now is no declaration.
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir -p "$T/ws/vendor" && cd "$T/ws"
echo v > vendor/v.h
echo SECRET > secret.txt
ln -s vendor/v.h lnk
echo lnk > M
bt run -q -o "$T/t.db" -- sh -c 'cat lnk secret.txt > /dev/null; ln -sfn secret.txt lnk' ||
    fail "the build failed"
out=$(bt verify -d "$T/t.db" --inputs M 2>&1) && fail "verify passed a read the build hid: $out"
assert_contains "$out" "undeclared $T/ws/secret.txt" "the read made declared by a link remade"
# A link the build did not touch still declares where it leads.
rm lnk && ln -s vendor/v.h lnk
bt run -q -o "$T/kept.db" -- sh -c 'cat lnk > /dev/null' || fail "the second build failed"
out=$(bt verify -d "$T/kept.db" --inputs M 2>&1) || fail "verify through a kept link: $out"
assert_no_leftovers
