#!/bin/sh
# On a terminal (given by script(1), 80 columns), tree cuts long command lines to the width
# with "…" and keeps each [ID] and what follows the argv; --full prints them whole; show ID
# prints the whole argv.  Off a terminal nothing is cut.  Long answers go through the pager
# ($BUILDTRAIL_PAGER, else $PAGER) only on a terminal, never with --no-pager.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd script
require_cmd cc
cp -r "$SAMPLE" "$T/s" && cd "$T/s"
rm -f hello libgreet.a version.h src/*.o
bt run -q -- make -s > /dev/null
# The sample's link lines (collect2, ld) are over 1000 characters.
long=$(bt tree | awk 'length($0) > 80' | head -n 1)
[ -n "$long" ] || fail "no long line to cut: $(bt tree)"
id=$(printf '%s\n' "$long" | grep -o '\[[0-9]*\]' | head -n 1 | tr -d '[]')
on_tty() { # on_tty COMMAND: run it on an 80-column terminal, its output in $T/tty.out
    script -qec "stty cols 80 rows 50 2>/dev/null; $*" /dev/null > "$T/tty.out" 2>&1 || true
    tr -d '\r' < "$T/tty.out" > "$T/tty.txt"
}
on_tty "BUILDTRAIL_PAGER=cat '$BUILDTRAIL' tree"
python3 - "$T/tty.txt" "$id" <<'PY' || fail "cut: $(cat "$T/tty.txt")"
import sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
assert lines and all(len(l) <= 80 for l in lines), [l for l in lines if len(l) > 80]
cut = [l for l in lines if l.lstrip().startswith("[%s] " % sys.argv[2])]
assert cut and cut[0].endswith("\u2026"), cut
PY
on_tty "BUILDTRAIL_PAGER=cat '$BUILDTRAIL' tree --full"
awk 'length($0) > 80' "$T/tty.txt" | grep -q . || fail "--full cut lines"
on_tty "BUILDTRAIL_PAGER=cat '$BUILDTRAIL' show $id"
grep -q "$(printf '%s\n' "$long" | sed 's/^ *\[[0-9]*\] //' | cut -c1-200)" "$T/tty.txt" ||
    fail "show $id does not print the whole command"
# Off a terminal: nothing cut.
[ "$(bt tree)" = "$(bt tree --full)" ] || fail "cut off a terminal"
bt tree | grep -q '…' && fail "an ellipsis off a terminal"
# The pager: used on a terminal, not with --no-pager, never off a terminal.
on_tty "BUILDTRAIL_PAGER='cat > $T/paged' '$BUILDTRAIL' tree"
[ -s "$T/paged" ] || fail "the pager was not used on a terminal"
grep -q "^\[1\] make -s" "$T/paged" || fail "the pager got: $(cat "$T/paged")"
rm -f "$T/paged"
on_tty "BUILDTRAIL_PAGER='cat > $T/paged' '$BUILDTRAIL' tree --no-pager"
[ ! -e "$T/paged" ] || fail "--no-pager paged"
grep -q "^\[1\] make -s" "$T/tty.txt" || fail "--no-pager printed nothing"
BUILDTRAIL_PAGER="cat > $T/paged" bt tree > /dev/null
[ ! -e "$T/paged" ] || fail "paged off a terminal"
# A pager that does not exist: the answer is printed anyway.
on_tty "BUILDTRAIL_PAGER=no-such-pager-$$ '$BUILDTRAIL' tree"
grep -q "^\[1\] make -s" "$T/tty.txt" || fail "a missing pager lost the answer: $(cat "$T/tty.txt")"
cd "$T"
assert_no_leftovers
