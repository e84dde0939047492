#!/bin/sh
# diff with one trace or none says that it needs two, naming what was given, in one line,
# exit 2 (not "no A.db B.db given"); three is a usage error too.
. "$(dirname "$0")/lib.sh"
mkdir "$T/ws" && cd "$T/ws"
set +e
bt diff a.db > "$T/out" 2> "$T/err"; st=$?
set -e
[ "$st" = 2 ] && [ ! -s "$T/out" ] || fail "diff a.db: exit $st, $(cat "$T/out")"
assert_eq "$(cat "$T/err")" "buildtrail diff: diff needs two traces, only a.db given; compare it with another: buildtrail diff A.db B.db" "one trace"
set +e; bt diff 2> "$T/err"; st=$?; set -e
[ "$st" = 2 ] || fail "diff: exit $st"
assert_eq "$(cat "$T/err")" "buildtrail diff: diff needs two traces, the builds to compare: buildtrail diff A.db B.db" "none"
set +e; bt diff a.db b.db c.db 2> "$T/err"; st=$?; set -e
[ "$st" = 2 ] && [ "$(wc -l < "$T/err")" = 1 ] || fail "three: exit $st, $(cat "$T/err")"
assert_no_leftovers
