#!/bin/sh
# tree ID prints process ID and what it started (and what it exec'd into), nothing else;
# --depth N stops N levels below the top and says how many processes are below a cut line;
# --json takes both (children_omitted); an ID the trace does not have is one line, exit 1.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd python3
mkdir "$T/ws" && cd "$T/ws"
bt run -q -- sh -c 'sh -c "sh -c \"sh -c \\\"echo deep > deep.txt\\\"\"; echo mid > mid.txt"; echo top > top.txt; true'
full=$(bt tree)
# the second level: the sh that runs "sh -c ...; echo mid"
mid=$(printf '%s\n' "$full" | grep '^  \[' | grep -F 'echo mid' | head -n 1)
id=$(printf '%s\n' "$mid" | sed 's/^ *\[\([0-9]*\)\].*/\1/')
[ -n "$id" ] || fail "no second-level sh: $full"
sub=$(bt tree "$id")
printf '%s\n' "$sub" | sed -n 1p | grep -q "^\[$id\] sh -c " || fail "tree $id starts elsewhere: $sub"
! printf '%s\n' "$sub" | grep -qF 'echo top' || fail "tree $id shows its parent: $sub"
printf '%s\n' "$sub" | grep -q "^    \[[0-9]*\] sh -c 'echo deep > deep.txt'" ||
    fail "tree $id lacks the innermost sh, two levels down: $sub"
# --depth
d0=$(bt tree --depth 0)
[ "$(printf '%s\n' "$d0" | grep -c '^\[')" = 1 ] || fail "--depth 0 shows more than the top: $d0"
below=$(printf '%s\n' "$full" | grep -c '\[')
assert_contains "$d0" "… $((below - 1)) more processes below (buildtrail tree 1)" "--depth 0"
d1=$(bt tree --depth 1 "$id")
printf '%s\n' "$d1" | grep -q "^  \[[0-9]*\] sh -c 'sh -c " || fail "--depth 1 lacks the child: $d1"
! printf '%s\n' "$d1" | grep -qF "echo deep > deep.txt'" || fail "--depth 1 went deeper: $d1"
assert_contains "$d1" "    … 1 more process below" "--depth 1 under ID"
bt tree --json --depth 1 "$id" | python3 -c '
import json, sys
top = json.load(sys.stdin)["processes"]
assert len(top) == 1 and top[0]["process"]["id"] == int(sys.argv[1]), top
kids = top[0]["children"]  # every image, forked copies too
assert kids and all(k["children"] == [] for k in kids), kids
cut = [k for k in kids if "children_omitted" in k]
assert len(cut) == 1 and cut[0]["children_omitted"] >= 1, kids
assert "deep" in " ".join(cut[0]["process"]["argv"]), cut
assert "children_omitted" not in top[0]
' "$id" || fail "--json --depth"
# Bad operands
set +e
bt tree 99999 > "$T/out" 2> "$T/err"; st=$?
set -e
[ "$st" = 1 ] && [ ! -s "$T/out" ] || fail "tree 99999: exit $st, $(cat "$T/out")"
assert_contains "$(cat "$T/err")" "buildtrail tree: no process 99999 in this trace" "unknown id"
for bad in "--depth -1" "--depth x" "1 2"; do
    set +e; bt tree $bad > /dev/null 2> "$T/err"; st=$?; set -e
    [ "$st" = 2 ] || fail "tree $bad: exit $st"
    [ "$(wc -l < "$T/err")" -le 2 ] || fail "tree $bad: $(cat "$T/err")"
done
assert_no_leftovers
