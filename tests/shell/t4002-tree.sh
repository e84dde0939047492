#!/bin/sh
# tree shows every process that touched a traced file and all its ancestors, nested, with argv.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd python3
mkdir "$T/ws" && cd "$T/ws"
bt run -- sh -c 'sh -c "sh -c \"echo deep > deep.txt\""; echo top > top.txt'
out=$(bt tree)
printf '%s\n' "$out" | sed -n 1p | grep -qF "[1] sh -c 'sh -c " || fail "root line: $out"
printf '%s\n' "$out" | grep -q "^    \[[0-9]*\] sh -c 'echo deep > deep.txt'" ||
    fail "the innermost shell is not two levels down: $out"
# fork-then-exec is one line; no "(exec of …)" note for a mere forked copy
! printf '%s\n' "$out" | grep -q "exec of" || fail "fork-then-exec noted as an exec: $out"
bt tree --json | python3 -c '
import json, sys
roots = json.load(sys.stdin)["processes"]
assert len(roots) == 1
def depth(n): return 1 + max([depth(c) for c in n["children"]] or [0])
assert depth(roots[0]) == 3, roots
'
assert_no_leftovers
