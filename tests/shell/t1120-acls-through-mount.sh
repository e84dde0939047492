#!/bin/sh
# POSIX ACLs through the mount, as natively: the kernel checks permissions with the files' ACLs
# (FUSE_POSIX_ACL), so they can be read and set by the build in both modes — also in a user
# namespace, where the kernel used to refuse them — and a file whose ACL names an id the
# build's namespace does not hold (a uid at or above 65536) stays readable (the kernel rejected
# the whole ACL: EINVAL).  Setting an ACL over such an entry is refused in a user namespace (it
# would drop the entry the build cannot see) and the real ACL is left as it was.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd setfacl
require_cmd getfacl
mkdir "$T/ws" && cd "$T/ws"
echo big > big && chmod 644 big
setfacl -m u:70000:rw big 2>/dev/null || missing "ACL support on the filesystem of $T"
cat > probe.sh <<'EOS'
cat big 2>&1
touch own && setfacl -m u:0:r own 2>&1 && getfacl -cn own 2>&1 | grep '^user:0:'
mkdir inh && setfacl -d -m u:0:rwx inh 2>&1 && touch inh/f && getfacl -cn inh/f 2>&1 | grep '^user:0:'
rm -rf own inh
EOS
native=$(sh probe.sh 2>&1)
assert_eq "$native" "big
user:0:r--
user:0:rwx	#effective:rw-" "native results"
traced=$(bt run -q -o "$T/t.db" -- sh probe.sh 2>&1)
if [ "$(id -u)" != 0 ] && sql "$T/t.db" 'select notes from runs' | grep -q 'kernel_checks=0'; then
    skip "no kernel checks here (ids not mapped, or a group no subgid line maps: see the run's notes)"
fi
assert_eq "$traced" "$native" "ACLs through the mount"
# Over an entry naming an id outside the namespace: refused unprivileged, as natively as root.
over=$(bt run -q -- sh -c 'setfacl -m g:0:r big 2>&1 && echo set' | sed 's/.*: //')
if [ "$(id -u)" = 0 ]; then
    assert_eq "$over" "set" "setting an ACL as root"
else
    assert_eq "$over" "Operation not permitted" "setting an ACL over an entry the build cannot see"
fi
assert_contains "$(getfacl -cn big 2>/dev/null)" "user:70000:rw-" "the real ACL's hidden entry"
assert_no_leftovers
