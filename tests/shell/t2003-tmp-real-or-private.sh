#!/bin/sh
# The build sees the real /tmp, traced, as it would natively (nothing there disappears), and
# never buildtrail's own private directory in it; --private-tmp gives it a private, empty,
# traced /tmp instead, removed afterwards (--no-tmp, the old opt-out, is accepted and does
# nothing).
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir "$T/ws" && cd "$T/ws"
real_marker=/tmp/bt-real-$$-marker
echo native > "$real_marker"; on_cleanup rm -f "$real_marker" /tmp/bt-made-$$

# Default: the real /tmp, read and written through the trace.
bt run -- sh -c "cat $real_marker; echo data > /tmp/bt-made-$$; ls -A $TMPDIR | wc -l" > out.txt
assert_eq "$(sed -n 1p out.txt)" native "the build reads the real /tmp"
assert_eq "$(cat /tmp/bt-made-$$)" data "the build writes the real /tmp"
# buildtrail's private directory (in $TMPDIR) is hidden from the build.
assert_eq "$(sed -n 2p out.txt)" 0 "buildtrail's private directory is hidden"
assert_eq "$(sql buildtrail.db "select count(*) from files f join accesses a on a.file_id=f.id where f.path='$real_marker' and a.kind=1")" 1 "the /tmp read was traced"
assert_eq "$(sql buildtrail.db "select count(*) from files f join accesses a on a.file_id=f.id where f.path='/tmp/bt-made-$$' and a.kind=3")" 1 "the /tmp write was traced"
assert_no_leftovers
rm -f /tmp/bt-made-$$

# --private-tmp: an empty /tmp (but for the workspace's mount point when it lies under /tmp).
bt run --private-tmp -- sh -c "ls -A /tmp | wc -l; test -e $real_marker && echo SEES-REAL; echo data > /tmp/made-by-build; cat /tmp/made-by-build; stat -c %a /tmp" > out.txt
case "$T" in
    /tmp/*) want_entries=1 ;;
    *) want_entries=0 ;;
esac
assert_eq "$(sed -n 1p out.txt)" "$want_entries" "entries in the private /tmp"
! grep -q SEES-REAL out.txt || fail "the build saw the real /tmp"
assert_eq "$(sed -n 2p out.txt)" data "read back from the private /tmp"
assert_eq "$(sed -n 3p out.txt)" 1777 "the private /tmp's mode"
[ ! -e /tmp/made-by-build ] || fail "the private /tmp leaked into the real one"
assert_eq "$(sql buildtrail.db "select count(*) from files f join accesses a on a.file_id=f.id where f.path='/tmp/made-by-build' and a.kind=3")" 1 "the private /tmp write was traced"
assert_no_leftovers

bt run --no-tmp -- sh -c "cat $real_marker" > out2.txt
assert_eq "$(cat out2.txt)" native "--no-tmp is accepted and the real /tmp is there"
assert_no_leftovers
