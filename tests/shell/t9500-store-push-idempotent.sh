#!/bin/sh
# store: init creates the schema (and again does nothing); a trace pushed twice is one build
# (the second push says so and adds nothing); list, show and rm; JSON that parses; a bad
# --store and a password in --store are one line each, with the fix.
. "$(dirname "$0")/lib.sh"
store_with_build

one_line_error bt store list
assert_contains "$e" "run 'buildtrail store init'" "a store before init"
bt store init | grep -q 'now version 3 (was 0)' || fail "init did not create the schema"
bt store init | grep -q 'nothing to do' || fail "init again did something"

out=$(bt store push --name first --label distro=bookworm --label arch=amd64)
assert_contains "$out" "stored as build 1" "the first push"
out=$(cp buildtrail.db "$T/copy.db" && bt store push -d "$T/copy.db")
assert_contains "$out" "already stored as build 1" "the same trace again (a copy)"
out=$(bt store push --json)
printf '%s' "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["already_stored"] and d["build"] == 1, d' ||
    fail "push --json: $out"
assert_eq "$(psql -c 'SELECT count(*) FROM build')" 1 "builds after three pushes of one trace"
assert_eq "$(psql -c 'SELECT count(*) FROM product')" 1 "products after three pushes"

out=$(bt store list)
assert_contains "$out" "1 build in the store" "list"
assert_contains "$out" "labels: arch=amd64 distro=bookworm" "list's labels"
assert_contains "$(bt store show 1)" "$T/p/a " "show names the product"
bt store show 1 --json | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["builds_covered"] == 1 and d["builds"][0]["product_count"] == 1 and len(d["builds"][0]["products"]) == 1, d' ||
    fail "show --json"
bt store list --json | python3 -m json.tool >/dev/null || fail "list --json is not JSON"
bt store who-ships --json a.c | python3 -c 'import json,sys; d=json.load(sys.stdin); assert [s["product"] for s in d["ships"]] == ["'"$T/p/a"'"], d' ||
    fail "who-ships --json a.c"

one_line_error bt store show 7
assert_contains "$e" "no build 7" "show of a build that is not there"
one_line_error bt store rm x
bt store rm 1 | grep -q 'removed build 1' || fail "rm"
assert_eq "$(psql -c 'SELECT count(*) FROM build') $(psql -c 'SELECT count(*) FROM closure')" "0 0" "after rm"
bt store push | grep -q 'stored as build 2' || fail "a push after rm"

one_line_error bt store list --store "host=$T/nowhere dbname=x user=bt"
assert_contains "$e" "cannot connect to the store named by --store" "a bad --store"
one_line_error bt store list --store "host=$pg dbname=postgres user=bt password=hunter2"
assert_contains "$e" "holds a password; put it in ~/.pgpass" "a password in --store"
(
    BUILDTRAIL_STORE="postgresql://bt:hunter2@localhost/postgres"
    one_line_error bt store list
    assert_contains "$e" "\$BUILDTRAIL_STORE holds a password" "a password in a URI in the variable"
)
one_line_error bt store list --store "not a conninfo"
one_line_error bt store frobnicate
one_line_error bt store push --label novalue
one_line_error bt -d buildtrail.db store push
assert_contains "$e" "'buildtrail store push -d FILE' names the trace it pushes" "-d before store"
# a build's name is the pusher's: printed escaped, never a raw escape sequence or newline
bt run -q -o "$T/esc.db" -- true
bt store push -d "$T/esc.db" --name "$(printf 'x\033[31my\nz')" --label "$(printf 'k=\033]0;t\007')" >/dev/null
out=$(bt store list)
if printf '%s' "$out" | grep -q "$(printf '\033')"; then fail "a raw escape in list: $out"; fi
[ "$(printf '%s\n' "$out" | wc -l)" = 5 ] || fail "a raw newline in list: $out"
