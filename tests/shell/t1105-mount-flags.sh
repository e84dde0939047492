#!/bin/sh
# Each traced tree has the mount flags of the filesystem it shadows: on a nosuid,nodev workspace
# a set-uid program does not raise a step that dropped to nobody and a device node does not
# work, on a noexec tree a script does not run, exactly as natively; a read-only tree stays
# read-only.
# (root: the test mounts tmpfs and makes a set-uid file and a device node)
. "$(dirname "$0")/lib.sh"
require_fuse
require_root
require_cmd setpriv
mkdir "$T/ws" "$T/nx" "$T/ro"
mount -t tmpfs -o nosuid,nodev,mode=755 tmpfs "$T/ws"
mount -t tmpfs -o noexec,mode=755 tmpfs "$T/nx"
printf '#!/bin/sh\necho ran\n' > "$T/nx/x.sh" && chmod 755 "$T/nx/x.sh"
mount -t tmpfs -o ro tmpfs "$T/ro"
on_cleanup "umount -l '$T/ws' '$T/nx' '$T/ro' 2>/dev/null"
cd "$T/ws"
cp "$(command -v id)" ./id && chmod 4755 ./id
mknod ./null c 1 3 && chmod 666 ./null
cat > probe.sh <<EOS
setpriv --reuid=65534 --regid=65534 --clear-groups ./id -u 2>&1 | sed 's/^/setuid: /'
(echo hi > ./null) 2>&1 | sed 's/.*: /dev: /'; echo "dev status: \$?"
$T/nx/x.sh 2>&1 | sed 's/.*: /exec: /'
(touch $T/ro/x) 2>&1 | sed 's/.*: /ro: /'
EOS
native=$(sh probe.sh 2>&1)
assert_contains "$native" "setuid: 65534" "native nosuid"
traced=$(bt run -q --trace "$T/nx" --trace "$T/ro" -- sh probe.sh 2>&1)
assert_eq "$traced" "$native" "the build's powers on a nosuid,nodev,noexec tree and a read-only one"
assert_no_leftovers
