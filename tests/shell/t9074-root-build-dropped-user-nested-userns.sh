#!/bin/sh
# A root run where a step of the build drops to another user (setpriv, as a package's test
# suite run as nobody), then makes a user namespace of its own (`unshare -U -r`): /proc shows
# every capability, held in that namespace only.  Where buildtrail's filesystem judges
# permissions itself (BUILDTRAIL_NO_KERNEL_CHECKS=1), the step still reads and writes nothing
# of root's mode-600 file, and takes no file (chown to itself): it is the other user to the real filesystem.
# (Root only: unprivileged, the daemon is the caller's own user and the kernel judges.)
. "$(dirname "$0")/lib.sh"
require_fuse
require_root
require_cmd unshare
require_cmd setpriv
mkdir "$T/ws"
cd "$T/ws"
echo secret > secret && chmod 600 secret
before=$(stat -c %u:%g:%a:%s secret)
BUILDTRAIL_NO_KERNEL_CHECKS=1 "$BUILDTRAIL" run -o "$T/t.db" -- sh -c '
    setpriv --reuid=4321 --regid=4321 --clear-groups -- unshare -U -r sh -c "
        grep CapEff /proc/self/status; cat secret; echo x >> secret; chown 0:0 secret" 2>&1
    true' > "$T/out" 2> "$T/err" || fail "run: $(cat "$T/err")"
assert_contains "$(cat "$T/out")" "CapEff:	000001ff" "the nested namespace's capabilities, shown"
assert_contains "$(cat "$T/out")" "cat: secret: Permission denied"
assert_contains "$(cat "$T/out")" "cannot create secret: Permission denied"
assert_contains "$(cat "$T/out")" "Operation not permitted"
assert_eq "$(stat -c %u:%g:%a:%s secret)" "$before" "root's file on disk"
assert_no_leftovers
echo ok
