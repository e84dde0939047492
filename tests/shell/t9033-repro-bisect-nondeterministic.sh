#!/bin/sh
# repro --bisect on a build that is not deterministic by itself (random bytes, nothing varied):
# its cause is pinned to no variation ("differs with nothing varied"), never to one of those
# made, in the text and in --json ("unvaried": true, "pinned": []).
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd make
require_cmd python3
mkdir -p "$T/proj"
printf 'all:\n\thead -c8 /dev/urandom > out\n' > "$T/proj/Makefile"
cd "$T/proj"
set +e; out=$(bt repro --bisect --vary umask,home -o "$T/o1" -- make -s 2>"$T/err"); st=$?; set -e
[ "$st" = 1 ] || fail "exit $st: $out $(cat "$T/err")"
assert_contains "$out" "pinned by --bisect to: no variation: it differs with nothing varied" "not blamed"
printf '%s\n' "$out" | grep 'pinned by' | grep -q 'umask\|home' && fail "blamed on a variation: $out"
set +e; js=$(bt repro --bisect --json --vary umask,home -o "$T/o2" -- make -s 2>"$T/err"); st=$?; set -e
[ "$st" = 1 ] || fail "json exit $st: $(cat "$T/err")"
printf '%s' "$js" | python3 -c '
import json, sys
d = json.load(sys.stdin)
c = d["root_causes"]
assert c and all(x["unvaried"] is True and x["pinned"] == [] for x in c), c
' || fail "json: $js"
assert_no_leftovers
