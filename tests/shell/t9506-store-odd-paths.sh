#!/bin/sh
# store: paths with a quote, a tab, a newline and a byte that is not UTF-8 round-trip exactly
# (JSON: \udcXX for the byte, as every buildtrail document), text answers escape them (no raw
# newline inside a line), and a FIFO given to who-ships or push is refused without blocking.
. "$(dirname "$0")/lib.sh"
require_postgres
start_store
mkdir "$T/p" && cd "$T/p"
odd=$(printf "it's\tx\ny\377")
printf 'int main(void) { return 0; }\n' > "$odd.c"
bt run -q -- cc -o "$odd" "$odd.c" || fail "the build failed"
bt store init >/dev/null
bt store push >/dev/null || fail "push"
bt store show --json 1 > "$T/show.json"
python3 - "$T/p" "$T/show.json" <<'PY' || fail "the product's path did not round-trip"
import json, os, sys
d = json.load(open(sys.argv[2]))
want = os.fsencode(sys.argv[1]) + b"/it's\tx\ny\xff"
got = [p["path"].encode("utf-8", "surrogateescape") for p in d["builds"][0]["products"]]
assert got == [want], (got, want)
PY
out=$(bt store who-ships "$odd.c")
assert_contains "$out" "in 1 of 1 builds" "who-ships of the odd source"
[ "$(printf '%s\n' "$out" | wc -l)" -le 3 ] || fail "a raw newline in a text answer: $out"
mkfifo "$T/fifo"
one_line_error timeout 10 "$BUILDTRAIL" store who-ships "$T/fifo"
assert_contains "$e" "cannot read $T/fifo as a regular file" "who-ships of a FIFO"
one_line_error timeout 10 "$BUILDTRAIL" store push -d "$T/fifo"
assert_contains "$e" "nothing stored" "push of a FIFO"
