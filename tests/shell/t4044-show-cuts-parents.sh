#!/bin/sh
# show on a terminal (script(1), 80 columns) cuts its parents' and children's command lines
# to the width with "…", as tree does, and prints the process's own command line whole;
# --full prints every line whole; off a terminal nothing is cut.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd script
require_cmd python3
mkdir "$T/ws" && cd "$T/ws"
pad=$(printf 'x%.0s' $(seq 200))
bt run -q -- sh -c ": $pad; sh -c 'echo child > c.txt; : $pad'; true"
bt tree --json > "$T/tree.json"
ids=$(python3 -c '
import json, sys
root = json.load(open(sys.argv[1]))["processes"][0]
kid = [c for c in root["children"] if c["process"]["argv"][2].startswith("echo child")][0]
print(root["process"]["id"], kid["process"]["id"])' "$T/tree.json")
set -- $ids
root=$1 kid=$2
on_tty() { # on_tty ARGS: buildtrail ARGS on an 80-column terminal, its output in $T/tty.txt
    script -qec "stty cols 80 rows 50 2>/dev/null; BUILDTRAIL_PAGER=cat '$BUILDTRAIL' $*" \
        /dev/null > "$T/tty.out" 2>&1 || true
    tr -d '\r' < "$T/tty.out" > "$T/tty.txt"
}
on_tty show "$kid"
python3 - "$T/tty.txt" "$root" <<'PY' || fail "show $kid on a terminal: $(cat "$T/tty.txt")"
import sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
parents = [l for l in lines if l.startswith("  parents:")]
assert parents and len(parents[0]) <= 80 and parents[0].endswith("\u2026"), parents
assert "[%s] sh -c" % sys.argv[2] in parents[0], parents
PY
head -n 1 "$T/tty.txt" | grep -q "^\[$kid\] sh -c 'echo child > c.txt; : x*x'$" ||
    fail "show $kid cut its own line: $(head -n 1 "$T/tty.txt")"
on_tty show --full "$kid"
grep -q "^  parents:   \[$root\] sh -c ': x*x; sh -c '\\\\''echo child > c.txt; : x*x'\\\\''; true'$" "$T/tty.txt" ||
    fail "--full cut the parent: $(cat "$T/tty.txt")"
bt show "$kid" | grep -q "^  parents:   \[$root\] sh -c ': x*x; sh -c" || fail "cut off a terminal"
# its children cut
on_tty show "$root"
head -n 1 "$T/tty.txt" | grep -q "^\[$root\] sh -c ': x*x; sh -c '\\\\''echo child > c.txt; : x*x'\\\\''; true'$" ||
    fail "show $root cut its own line: $(head -n 1 "$T/tty.txt")"
# (its child is the shell's fork, before it exec'd: the same long argv)
python3 - "$T/tty.txt" <<'PY' || fail "children on a terminal: $(cat "$T/tty.txt")"
import sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
kids = [l for l in lines if l.startswith("  children:")]
assert kids and len(kids[0]) <= 80 and kids[0].endswith("\u2026"), kids
PY
on_tty show --full "$root"
grep -q "^  children:  \[[0-9]*\] sh -c ': x*x; sh -c '\\\\''echo child > c.txt; : x*x'\\\\''; true'$" "$T/tty.txt" ||
    fail "--full cut a child: $(cat "$T/tty.txt")"
assert_no_leftovers
