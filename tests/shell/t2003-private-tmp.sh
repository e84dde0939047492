#!/bin/sh
# The build gets a private, empty, traced /tmp, removed afterwards; --no-tmp gives the real one.
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir "$T/ws" && cd "$T/ws"
real_marker=/tmp/bt-real-$$-marker
touch "$real_marker"; on_cleanup rm -f "$real_marker"

bt run -- sh -c "ls -A /tmp | wc -l; test -e $real_marker && echo SEES-REAL; echo data > /tmp/made-by-build; cat /tmp/made-by-build; stat -c %a /tmp" > out.txt
# An empty /tmp (the workspace's mount point appears there when the workspace is under /tmp).
case "$T" in
    /tmp/*) want_entries=1 ;;
    *) want_entries=0 ;;
esac
assert_eq "$(sed -n 1p out.txt)" "$want_entries" "entries in the private /tmp"
! grep -q SEES-REAL out.txt || fail "the build saw the real /tmp"
assert_eq "$(sed -n 2p out.txt)" data "read back from the private /tmp"
assert_eq "$(sed -n 3p out.txt)" 1777 "the private /tmp's mode"
[ ! -e /tmp/made-by-build ] || fail "the private /tmp leaked into the real one"
assert_eq "$(sql buildtrail.db "select count(*) from files f join accesses a on a.file_id=f.id where f.path='/tmp/made-by-build' and a.kind=3")" 1 "the /tmp write was traced"
assert_no_leftovers

bt run --no-tmp -- sh -c "test -e $real_marker && echo SEES-REAL" > out2.txt
assert_eq "$(cat out2.txt)" SEES-REAL "--no-tmp shows the real /tmp"
assert_no_leftovers
