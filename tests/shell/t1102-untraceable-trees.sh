#!/bin/sh
# Trees that cannot be traced (/proc, /sys, /dev, kernel pseudo-filesystems) are refused while
# the options are read, with one line naming the tree and why, before anything is set up.
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir "$T/ws" && cd "$T/ws"
for d in /proc /sys /dev /proc/self /sys/kernel; do
    set +e; err=$(bt run --trace "$d" -- true 2>&1); st=$?; set -e
    assert_eq "$st" 125 "--trace $d: exit status"
    assert_contains "$err" "--trace $d: cannot trace it:" "--trace $d"
    assert_eq "$(printf '%s\n' "$err" | wc -l)" 1 "--trace $d: one line"
done
[ ! -e buildtrail.db ] || fail "a trace was made for a refused run"
cd /proc/self
set +e; err=$(bt run -o "$T/ws/t.db" -- true 2>&1); st=$?; set -e
assert_eq "$st" 125 "workspace in /proc: exit status"
assert_contains "$err" "cannot trace the current directory" "workspace in /proc"
assert_no_leftovers
