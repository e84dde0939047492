#!/bin/sh
# log keeps each make job's output together, in job start order, also through a recursive make;
# --raw gives the exact interleaving with a [process] prefix on every line.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd make
mkdir -p "$T/ws/sub" && cd "$T/ws"
# Pairs of jobs that each print a line, wait until the other has printed its first line, then
# print a second: under -j2 their lines interleave every time (no timing involved).
cat > Makefile <<'MK'
pair = @echo "$@ first"; touch $@.started; while [ ! -e $(1).started ]; do sleep 0.02; done; echo "$@ second"
all: a b sub
a:
	$(call pair,b)
b:
	$(call pair,a)
sub: a b
	@$(MAKE) --no-print-directory -C sub
.PHONY: all a b sub
MK
cat > sub/Makefile <<'MK'
pair = @echo "$@ first"; touch $@.started; while [ ! -e $(1).started ]; do sleep 0.02; done; echo "$@ second"
all: c d
c:
	$(call pair,d)
d:
	$(call pair,c)
.PHONY: all c d
MK
bt run -- make -j2 > "$T/live.txt"
# Live output interleaves: both first lines come before any second line.
sed -n 3p "$T/live.txt" | grep -q second || fail "the jobs did not interleave: $(cat "$T/live.txt")"
grouped=$(bt log)
for j in a b c d; do
    printf '%s\n' "$grouped" | grep -A1 "^$j first" | grep -q "^$j second" ||
        fail "job $j's lines are not together: $grouped"
done
# Job order follows start order: a and b (started first) before the sub-make's c and d.
last_ab=$(printf '%s\n' "$grouped" | grep -n '^[ab] ' | tail -n 1 | cut -d: -f1)
first_cd=$(printf '%s\n' "$grouped" | grep -n '^[cd] ' | head -n 1 | cut -d: -f1)
[ "$last_ab" -lt "$first_cd" ] || fail "the sub-make's jobs are not after a and b: $grouped"
raw=$(bt log --raw)
assert_eq "$(printf '%s\n' "$raw" | grep -c '^\[[0-9]*\] [abcd] \(first\|second\)$')" 8 "every raw line has a prefix"
# --process: one process's output only.
id=$(bt log --json | python3 -c 'import json,sys; print([c["process"] for c in json.load(sys.stdin)["chunks"] if c["data"].startswith("c first")][0])')
assert_eq "$(bt log --process "$id")" "c first
c second" "log --process (one recipe shell printed both lines)"
assert_no_leftovers
