#!/bin/sh
# store list and show: labels each shown as one shell word (KEY=VALUE, quoted as argv is), so
# that one label 'k=v k2=v2' and two labels k=v, k2=v2 read differently; --json gives them
# as an object (label_map; labels stays the string json_version 1 readers know).
. "$(dirname "$0")/lib.sh"
store_with_build
bt store init >/dev/null
bt store push --label 'k=v k2=v2' --label a=b >/dev/null || fail "push one"
bt run -q -o "$T/two.db" -- true || fail "the second build"
bt store push -d "$T/two.db" --label k=v --label k2=v2 >/dev/null || fail "push two"
out=$(bt store list)
assert_contains "$out" "labels: a=b 'k=v k2=v2'" "one label with a space"
assert_contains "$out" "labels: k=v k2=v2" "two labels"
assert_contains "$(bt store show 1)" "labels: a=b 'k=v k2=v2'" "show's labels"
bt store show --json 1 | python3 -c 'import json,sys; d=json.load(sys.stdin); l=d["builds"][0]["label_map"]; assert l == {"a": "b", "k": "v k2=v2"}, l' ||
    fail "show --json labels"
bt store list --json | python3 -c 'import json,sys; d=json.load(sys.stdin); l=d["builds"][1]["label_map"]; assert l == {"k": "v", "k2": "v2"}, l; assert d["builds"][1]["labels"] == "k=v k2=v2", d' ||
    fail "list --json labels"
