#!/bin/sh
# Temp file then rename keeps the chain: a tool writes out.tmp and renames it over the target;
# inputs of the target reach the sources through the temp file, outputs of the source reach
# the target; an intermediate deleted after use still links its readers and writers.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd make
mkdir "$T/ws" && cd "$T/ws"
echo alpha > alpha.in
echo beta > beta.in
echo unrelated > other.in
cat > Makefile <<'M'
all:
	cat alpha.in > stage.tmp
	sort stage.tmp beta.in > target.tmp
	mv target.tmp target
	rm stage.tmp
	cat other.in > other.out
M
bt run -o "$T/trace.db" -- make -s
out=$(bt inputs -d "$T/trace.db" --leaves target)
assert_contains "$out" "$T/ws/alpha.in" "alpha.in through a deleted intermediate"
assert_contains "$out" "$T/ws/beta.in" "beta.in"
case "$out" in *other.in*) fail "other.in is not an input of target: $out";; esac
out=$(bt inputs -d "$T/trace.db" target)
assert_contains "$out" "$T/ws/stage.tmp" "the deleted intermediate is in the chain"
out=$(bt outputs -d "$T/trace.db" alpha.in)
assert_contains "$out" "$T/ws/target" "target is made from alpha.in"
case "$out" in *other.out*) fail "other.out is not made from alpha.in: $out";; esac
# The Makefile (read by make, which started the writers) is a script input; without scripts
# only what the writers themselves read counts.
bt inputs -d "$T/trace.db" target | grep -Eq "found +script +$T/ws/Makefile\$" || fail "the Makefile is not a script input"
case "$(bt inputs -d "$T/trace.db" --no-scripts target)" in *Makefile*) fail "--no-scripts kept the Makefile";; esac
# A path the build never read or wrote, and a bad option: one-line errors, non-zero exits.
set +e
bt inputs -d "$T/trace.db" nowhere 2>"$T/err"; st=$?
set -e
[ "$st" = 1 ] || fail "inputs of an untouched path exits $st"
assert_contains "$(cat "$T/err")" "the build never touched this path" "message"
[ "$(wc -l < "$T/err")" = 1 ] || fail "more than one line: $(cat "$T/err")"
assert_no_leftovers
