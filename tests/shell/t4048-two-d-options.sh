#!/bin/sh
# Two -d naming different traces is a usage error, in one line, exit 2, whatever their place
# (before the command, after it, or one of each), never the last one read silently; diff is
# told to take its two traces as operands.  The same trace named twice is fine.
. "$(dirname "$0")/lib.sh"
mkdir "$T/ws" && cd "$T/ws"
bt run -o a.db -- sh -c 'echo a > a.txt' > /dev/null 2>&1 || fail "the traced build failed"
cp a.db b.db

two_d() { # WHAT EXPECTED-LINE COMMAND...
    what=$1 want=$2
    shift 2
    set +e
    bt "$@" > "$T/out" 2> "$T/err"; st=$?
    set -e
    [ "$st" = 2 ] && [ ! -s "$T/out" ] || fail "$what: exit $st, $(cat "$T/out" "$T/err")"
    [ "$(wc -l < "$T/err")" = 1 ] || fail "$what: not one line: $(cat "$T/err")"
    assert_contains "$(cat "$T/err")" "$want" "$what"
}
two_d "after the command" "buildtrail tree: -d given twice (a.db, b.db); a query reads one trace" \
    tree -d a.db -d b.db
two_d "one before, one after" "buildtrail info: -d given twice (a.db, b.db)" -d a.db info -d b.db
two_d "both before" "buildtrail: -d given twice before the command" -d a.db -d b.db tree
two_d "diff" "diff takes the two traces it compares as operands: buildtrail diff a.db b.db" \
    diff -d a.db -d b.db
# The same trace twice is one trace.
bt -d a.db tree -d a.db > "$T/out" || fail "the same -d twice was refused"
assert_contains "$(cat "$T/out")" "sh -c" "the tree of the one trace"
assert_no_leftovers
