#!/bin/sh
# A path the build made a symlink and then replaced by a regular file (rm, then a write) answers
# for the file now there, not for the old link's target: the traced link is followed only when
# the build's last write of the path made it a link.
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir -p "$T/ws" && cd "$T/ws"
bt run -q -- sh -c 'echo T > target.txt; ln -s target.txt foo; rm foo; echo regular > foo'
out=$(bt who-wrote foo 2>&1)
printf "%s\n" "$out" | grep -q "foo →" && fail "answered for the old link's target: $out"
assert_contains "$out" "$T/ws/foo" "who-wrote names the file itself"
assert_contains "$out" "echo regular > foo" "who-wrote names the process that wrote it"
# The link kept (removed later, as by make clean) is still followed.
bt run -q -- sh -c 'echo T > target.txt; rm -f foo; ln -s target.txt foo'
rm foo
out=$(bt who-wrote foo 2>&1)
assert_contains "$out" "foo → $T/ws/target.txt" "a removed link answers for its target"
assert_no_leftovers
