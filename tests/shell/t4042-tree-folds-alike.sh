#!/bin/sh
# A run of alike siblings (the same argv and program, the same exit, alike below them in any order,
# one after the other) is one line in tree ending in "×N (alike, to [LAST])", what is below
# them shown once: a shell's 37 command substitutions as libtool runs them.  One that differs
# (another exit) breaks the run; --json lists every process.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd bash
require_cmd python3
mkdir "$T/ws" && cd "$T/ws"
cat > build.sh <<'B'
for i in $(seq 37); do x=$(echo a); done
for i in 1 2 3; do y=$(sleep 0.1 | cat); done
(exit 3)
for i in 1 2; do z=$(echo a); done
echo done > out.txt
B
bt run -q -- bash build.sh
out=$(bt tree)
n=$(printf '%s\n' "$out" | wc -l)
[ "$n" -lt 20 ] || fail "$n lines: $out"
printf '%s\n' "$out" | grep -q "^  \[[0-9]*\] bash build.sh  ×37 (alike, to \[[0-9]*\])$" ||
    fail "no ×37 line: $out"
three=$(printf '%s\n' "$out" | grep -n "×3 " | head -n 1)
[ -n "$three" ] || fail "no ×3 line for the subshells with a pipe: $out"
# its subtree once, under it: the pipe's two sides
at=${three%%:*}
printf '%s\n' "$out" | sed -n "$((at + 1)),$((at + 2))p" | grep -q '^    \[[0-9]*\] sleep 0.1$' ||
    fail "the pipe's sleep is not under the ×3 line: $out"
printf '%s\n' "$out" | sed -n "$((at + 1)),$((at + 2))p" | grep -q '^    \[[0-9]*\] cat$' ||
    fail "the pipe's cat is not under the ×3 line: $out"
[ "$(printf '%s\n' "$out" | grep -c '\] cat$')" = 1 ] || fail "cat shown more than once: $out"
# the subshell that failed is its own line, and breaks the run: the two after it are ×2
printf '%s\n' "$out" | grep -q "^  \[[0-9]*\] bash build.sh  \[exit 3\]$" || fail "exit 3: $out"
printf '%s\n' "$out" | grep -q "^  \[[0-9]*\] bash build.sh  ×2 " || fail "no ×2 after it: $out"
# the last id named is the last of the run
last=$(printf '%s\n' "$out" | sed -n 's/.*×37 (alike, to \[\([0-9]*\)\])$/\1/p')
bt show "$last" | sed -n 1p | grep -q "^\[$last\] bash build.sh$" || fail "[$last] is not one of them"
# --json: all of them
bt tree --json | python3 -c '
import json, sys
root = json.load(sys.stdin)["processes"][0]
kids = root["children"]
alike = [k for k in kids if k["process"]["argv"] == ["bash", "build.sh"] and not k["children"]]
assert len(alike) >= 37 + 1 + 2, len(alike)
' || fail "--json folded processes"
assert_no_leftovers
