#!/bin/sh
# run --only-inputs: the build cannot reach the real directory it starts in through pid 1 of
# its pid namespace (buildtrail's init, which reaps orphans): /proc/1/cwd led to the directory
# beneath the FUSE mount, where every hidden file could be listed and read, untraced, by any
# build (unprivileged too: init is the build's own user).  Init works from "/" now, the path
# through the mounts.
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir "$T/ws" && cd "$T/ws"
echo SECRET > hidden
echo ok > ok
echo ok > M
out=$(bt run -q -o "$T/t.db" --only-inputs M -- sh -c '
    cat /proc/1/cwd/hidden 2>/dev/null
    ls /proc/1/cwd/ 2>/dev/null | grep -qx hidden && echo LISTED
    cat "/proc/1/cwd$PWD/hidden" 2>/dev/null
    echo done' 2>&1) || fail "the build failed: $out"
case $out in *SECRET* | *LISTED*) fail "the build reached a hidden file through init: $out" ;; esac
assert_contains "$out" done "the build ran"
assert_eq "$(cat hidden)" SECRET "the hidden file afterwards"
assert_no_leftovers
