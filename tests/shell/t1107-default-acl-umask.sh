#!/bin/sh
# Files the build creates get the mode a native create gives: the caller's umask, except in a
# directory with a default ACL, which replaces the umask.  (Unprivileged, the ACLs themselves
# can be read through the mount only with kernel checks, which depend on the machine's subgid
# lines (t1120 reads them); their effect is checked in both modes.)
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd setfacl
mkdir "$T/ws" && cd "$T/ws"
mkdir acl plain
setfacl -d -m u::rwx,g::rwx,o::r-x acl 2>/dev/null || missing "ACL support on the filesystem of $T"
cat > probe.sh <<'EOS'
umask 077
touch acl/f plain/f
mkdir acl/d plain/d
stat -c '%a %n' acl/f acl/d plain/f plain/d
[ "$(id -u)" = 0 ] && getfacl -cp acl/f acl/d 2>/dev/null
rm -rf acl/f acl/d plain/f plain/d
EOS
native=$(sh probe.sh 2>&1)
assert_contains "$native" "664 acl/f" "native: the default ACL, not the umask"
traced=$(bt run -q -- sh probe.sh 2>&1)
assert_eq "$traced" "$native" "modes of created files"
assert_no_leftovers
