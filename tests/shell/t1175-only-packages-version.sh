#!/bin/sh
# run --only-packages checks a relation's version against the installed package's, as sbuild's
# dependency installation would: 'make (>= 999)' with make at 4.3 stops before anything runs
# (one line naming the relation, exit 2); 'make (>= 1)' and 'make (<< 999)' run.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd dpkg-query
dpkg-query -W -f '${Status}' make 2>/dev/null | grep -q ' installed$' || missing "make"
mkdir "$T/ws" && cd "$T/ws"
one_line_error timeout 20 "$BUILDTRAIL" run -o "$T/t.db" --system \
    --only-packages 'make (>= 999), libc6' -- touch "$T/ran"
assert_eq "$st" 2 "exit status"
assert_contains "$e" "--only-packages: make (>= 999) is not installed" "the error"
[ ! -e "$T/ran" ] || fail "the command ran"
out=$(bt run -q -o "$T/ok.db" --system --only-packages 'make (>= 1), libc6 (<< 999)' -- echo ran) ||
    fail "a version met: $out"
assert_eq "$out" ran "a version met"
assert_no_leftovers
