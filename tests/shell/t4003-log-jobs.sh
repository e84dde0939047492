#!/bin/sh
# log keeps each make job's output together, in job start order, also through a recursive make;
# --raw gives the exact interleaving with a [process] prefix on every line.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd make
mkdir -p "$T/ws/sub" && cd "$T/ws"
# Jobs that print in two halves with a pause, so that under -j2 their lines interleave.
cat > Makefile <<'MK'
all: a b sub
a b:
	@echo "$@ first"; sleep 0.4; echo "$@ second"
sub:
	@$(MAKE) --no-print-directory -C sub
.PHONY: all a b sub
MK
cat > sub/Makefile <<'MK'
all: c d
c d:
	@echo "$@ first"; sleep 0.4; echo "$@ second"
.PHONY: all c d
MK
bt run -- make -j2 > "$T/live.txt"
# Live output interleaves (a first, b first, a second ...).
sed -n 2p "$T/live.txt" | grep -q first || fail "the test jobs did not run in parallel: $(cat "$T/live.txt")"
grouped=$(bt log)
for j in a b c d; do
    printf '%s\n' "$grouped" | grep -A1 "^$j first" | grep -q "^$j second" ||
        fail "job $j's lines are not together: $grouped"
done
# Job order follows start order: a and b (started first) before the sub-make's c and d.
assert_eq "$(printf '%s\n' "$grouped" | grep -n 'a first' | cut -d: -f1)" 1 "a comes first"
raw=$(bt log --raw)
assert_eq "$(printf '%s\n' "$raw" | grep -c '^\[[0-9]*\] [abcd] \(first\|second\)$')" 8 "every raw line has a prefix"
# --process: one process's output only.
id=$(bt log --json | python3 -c 'import json,sys; print([c["process"] for c in json.load(sys.stdin) if c["data"].startswith("c first")][0])')
assert_eq "$(bt log --process "$id")" "c first
c second" "log --process (one recipe shell printed both lines)"
assert_no_leftovers
