#!/bin/sh
# store who-ships --limit N: the rows of the first N builds only, the count of builds hit
# exact all the same (text and JSON), a line saying the rows stopped; --limit 0 lists every
# build; a --limit that is not a number is a usage error.
. "$(dirname "$0")/lib.sh"
store_with_build
bt store init >/dev/null
bt store push >/dev/null || fail "push one"
mkdir "$T/q" && cp a.c "$T/q/" && (cd "$T/q" && bt run -q -- cc -o a a.c) || fail "the second build"
bt store push -d "$T/q/buildtrail.db" >/dev/null || fail "push two"
out=$(bt store who-ships --limit 1 a.c)
assert_contains "$out" "in 2 of 2 builds" "the count with --limit 1"
assert_contains "$out" "(rows for the first 1 of the 2 builds; --limit 0 lists every one)" "the line"
case $out in *"build 2"*) fail "a row of build 2 with --limit 1: $out" ;; esac
assert_contains "$(bt store who-ships --limit 0 a.c)" "build 2" "--limit 0"
bt store who-ships --json --limit 1 a.c | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["builds_hit"] == 2 and d["builds_listed"] == 1 and {s["build"] for s in d["ships"]} == {1}, d' ||
    fail "who-ships --json --limit 1"
one_line_error bt store who-ships --limit x a.c
assert_contains "$e" "--limit 'x' is not a number of builds" "a bad --limit"
