#!/bin/sh
# run --only-inputs as root: the build cannot uncover the real trees behind the FUSE mounts —
# unmount its tree, bind-mount the root filesystem without the mounts on it, or do either in a
# mount namespace of its own — because a root build that did read the hidden files there,
# untraced.  (The build runs without CAP_SYS_ADMIN and CAP_DAC_READ_SEARCH; unprivileged, it
# never had them, and a user namespace it makes holds the mounts locked.)
. "$(dirname "$0")/lib.sh"
require_fuse
require_root
require_cmd findmnt
require_cmd unshare
mkdir -p "$T/ws" "$T/m" && cd "$T/ws"
echo SECRET > hidden
echo ok > ok
echo ok > M
out=$(bt run -q -o "$T/t.db" --only-inputs M -- sh -c "
    tree=\$(findmnt -n -o TARGET -T '$T/ws')
    umount -l \"\$tree\" 2>/dev/null; cat '$T/ws/hidden' 2>/dev/null
    mount --bind / '$T/m' 2>/dev/null; cat '$T/m$T/ws/hidden' 2>/dev/null
    unshare -m sh -c \"umount -l '\$tree'; cat '$T/ws/hidden'\" 2>/dev/null
    unshare -m sh -c \"mount --bind / '$T/m' && cat '$T/m$T/ws/hidden'\" 2>/dev/null
    echo done" 2>&1) || fail "the build failed: $out"
case $out in *SECRET*) fail "the build read a hidden file: $out" ;; esac
assert_contains "$out" done "the build ran"
assert_eq "$(cat hidden)" SECRET "the hidden file afterwards"
# Without --only-inputs a root build keeps its capabilities.
out=$(bt run -q -o "$T/t2.db" -- grep CapEff /proc/self/status)
assert_eq "$out" "$(grep CapEff /proc/self/status)" "the capabilities without --only-inputs"
assert_no_leftovers
