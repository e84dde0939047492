#!/bin/sh
# diff of two different projects (each made products, none at a path of the other's) warns
# on stderr, naming each build's command and directory, and JSON says "unrelated": true; two
# builds of one project at two paths do not warn.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd python3
mkdir "$T/p1" "$T/p2" "$T/p1b" && cd "$T/p1"
bt run -q -o "$T/1.db" -- sh -c 'echo a > alpha.txt; echo b > beta.txt'
cd "$T/p1b"
bt run -q -o "$T/1b.db" -- sh -c 'echo a > alpha.txt; echo B > beta.txt'
cd "$T/p2"
bt run -q -o "$T/2.db" -- sh -c 'echo x > gamma.txt'
set +e; bt diff "$T/1.db" "$T/2.db" > "$T/out" 2> "$T/err"; st=$?; set -e
[ "$st" = 1 ] || fail "exit $st"
assert_contains "$(cat "$T/err")" "buildtrail diff: A and B have no product in common (A: sh -c 'echo a > alpha.txt; echo b > beta.txt' in $T/p1; B: sh -c 'echo x > gamma.txt' in $T/p2): they look like builds of two different projects" "the warning"
[ "$(wc -l < "$T/err")" = 1 ] || fail "one line: $(cat "$T/err")"
assert_contains "$(cat "$T/out")" "products: 0 identical, 0 differ, 2 only in A, 1 only in B" "the answer"
bt diff --json "$T/1.db" "$T/2.db" 2> /dev/null | python3 -c '
import json, sys; assert json.load(sys.stdin)["unrelated"] is True' || fail "--json unrelated"
set +e; bt diff "$T/1.db" "$T/1b.db" > "$T/out" 2> "$T/err"; st=$?; set -e
[ "$st" = 1 ] && [ ! -s "$T/err" ] || fail "one project at two paths: exit $st, $(cat "$T/err")"
bt diff --json "$T/1.db" "$T/1b.db" | python3 -c '
import json, sys; assert json.load(sys.stdin)["unrelated"] is False' || fail "--json related"
assert_no_leftovers
