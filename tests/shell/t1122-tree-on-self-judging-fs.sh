#!/bin/sh
# A traced tree reaching a filesystem that decides permissions by its own rules, not by the
# modes and owners it shows (NFS whose id mapping shows files as nobody's, CIFS `noperm`,
# sshfs: here a FUSE mirror showing every file as nobody's 0644 that lets anyone write):
# a write the filesystem allows natively is allowed traced.  The kernel's checks on the traced
# mount would judge by the modes shown and refuse, so the run does without them and its notes
# say why; a FUSE mount with default_permissions (the kernel judges by modes there too) keeps
# them.
. "$(dirname "$0")/lib.sh"
require_fuse
: "${NOBODYFS:?NOBODYFS must name the nobodyfs test tool}"
mkdir "$T/ws" && cd "$T/ws"
mkdir src mnt
echo one > src/f && chmod 644 src/f
if [ "$(id -u)" = 0 ]; then
    opts="-o allow_other,fsname=$TEST_MARK"
    as_other="setpriv --reuid=4321 --regid=4321 --clear-groups"
    require_cmd setpriv
    unmount="umount"
else
    require_cmd fusermount3
    opts="-o fsname=$TEST_MARK"
    as_other=""
    unmount="fusermount3 -u"
fi
"$NOBODYFS" src mnt $opts >/dev/null 2>&1 &
nobodyfs=$!
on_cleanup "$unmount -z '$T/ws/mnt' 2>/dev/null || umount -l '$T/ws/mnt' 2>/dev/null"
wait_until 5 grep -q " $T/ws/mnt " /proc/self/mountinfo
grep -q " $T/ws/mnt " /proc/self/mountinfo || missing "a FUSE mount by $(id -un) (nobodyfs)"
assert_eq "$(stat -c %u mnt/f)" "65534" "nobodyfs shows the file as nobody's"
native=$($as_other sh -c 'echo native >> mnt/f && echo written' 2>&1)
assert_eq "$native" "written" "native: the filesystem allows the write"
traced=$(bt run -q -o "$T/t.db" -- $as_other sh -c 'echo traced >> mnt/f && echo written' 2>&1)
assert_eq "$traced" "$native" "a write the filesystem allows, traced"
assert_eq "$(cat src/f)" "one
native
traced" "the file's contents"
notes=$(sql "$T/t.db" 'select notes from runs')
assert_contains "$notes" "$T/ws/mnt (fuse" "the run's notes name the mount"
assert_contains "$notes" "kernel_checks=0 (permissions judged by the filesystem: " \
    "the run's notes say why the kernel does not check"
$unmount mnt
wait "$nobodyfs" || true
# With default_permissions the kernel judges that mount by its modes too: checks stay on.
"$NOBODYFS" src mnt $opts,default_permissions >/dev/null 2>&1 &
nobodyfs=$!
wait_until 5 grep -q " $T/ws/mnt .*default_permissions" /proc/self/mountinfo
grep -q " $T/ws/mnt .*default_permissions" /proc/self/mountinfo || fail "nobodyfs with default_permissions"
bt run -q -o "$T/t2.db" -- true
notes=$(sql "$T/t2.db" 'select notes from runs')
case $notes in
*"$T/ws/mnt ("*) fail "a FUSE mount with default_permissions turned kernel checks off: $notes" ;;
esac
$unmount mnt
wait "$nobodyfs" || true
assert_no_leftovers
