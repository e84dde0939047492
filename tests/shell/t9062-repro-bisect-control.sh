#!/bin/sh
# repro --bisect compares each step with the control itself: a step is the control's values
# but for the variations under test (run --vary-control ASKED --vary SUBSET), and the build
# that tells the build's own nondeterminism is a second control build, not one that sets
# nothing.  So aslr, whose experiment value (randomized) is the machine's own, is pinned to
# aslr, where a baseline that set nothing was randomized too and called the build "not
# deterministic by itself"; umask beside it; no bisect-baseline is built.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/repro.sh"
require_fuse
require_cmd make
require_cmd python3
[ "$(cat /proc/sys/kernel/randomize_va_space)" != 0 ] || skip "the machine does not randomize (kernel.randomize_va_space=0)"
mkdir -p "$T/proj"
cat > "$T/proj/Makefile" <<'MK'
all: stack.txt mask.txt
stack.txt:
	grep '\[stack\]' /proc/self/maps | cut -d' ' -f1 > $@
mask.txt:
	umask > $@
MK
cd "$T/proj"
set +e; out=$(bt repro --bisect --vary aslr,umask -o "$T/o" -- make -s 2>"$T/err"); st=$?; set -e
[ "$st" = 1 ] || fail "exit $st: $out $(cat "$T/err")"
b=$(block "$out" stack.txt)
printf '%s\n' "$b" | grep -qx "        pinned by --bisect to: aslr" || fail "stack.txt pinned to aslr: $out"
b=$(block "$out" mask.txt)
printf '%s\n' "$b" | grep -qx "        pinned by --bisect to: umask" || fail "mask.txt pinned to umask: $out"
[ ! -e "$T/o/bisect-baseline.db" ] || fail "a baseline that sets nothing was built: $(ls "$T/o")"
n=$(printf '%s\n' "$out" | sed -n 's/^bisect: \([0-9]*\) more builds*$/\1/p')
assert_eq "$n" 3 "bisect builds: a second control, then each half"
# The first bisect build is the control again: the control's values of both, nothing else
assert_eq "$(sql "$T/o/bisect-1.db" "SELECT group_concat(name || ':' || side, ',') FROM variations")" \
    "umask:control,aslr:control" "the second control build's variations"
# A step: the control's values but the experiment's of the half under test
assert_eq "$(sql "$T/o/bisect-2.db" "SELECT count(*) FROM variations WHERE side = 'experiment'")" 1 \
    "a step varies one"
assert_eq "$(sql "$T/o/bisect-2.db" "SELECT count(*) FROM variations")" 2 "a step fixes the other"
assert_no_leftovers
