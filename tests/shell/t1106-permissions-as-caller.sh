#!/bin/sh
# Permissions are decided as for the caller, at once, as natively: a POSIX ACL entry that denies
# or grants a user, a file readable only through a supplementary group, a chmod made outside
# the build while it runs, execute permission, a device node made by a non-root step, trusted.*
# extended attributes.  Each step runs as nobody (65534) in a root build.
# (root: the steps switch users; the test sets ACLs)
. "$(dirname "$0")/lib.sh"
require_fuse
require_root
require_cmd setfacl
require_cmd setpriv
mkdir "$T/ws" && cd "$T/ws"
as_nobody="setpriv --reuid=65534 --regid=65534 --groups=4242"
echo denied > denied.txt; chmod 644 denied.txt; setfacl -m u:65534:--- denied.txt
echo granted > granted.txt; chmod 600 granted.txt; setfacl -m u:65534:r-- granted.txt
echo group > group.txt; chgrp 4242 group.txt; chmod 640 group.txt
echo later > later.txt; chmod 644 later.txt
printf '#!/bin/sh\necho ran\n' > ownerx.sh; chmod 744 ownerx.sh
mkdir pub && chmod 777 pub
setxattr="import os
try:
    os.setxattr('pub', 'trusted.x', b'1'); print('set')
except OSError as e:
    print(e.strerror)"
probe() { # the build: every step as nobody
    cat > probe.sh <<EOS
$as_nobody cat denied.txt 2>&1 | sed 's/.*: //'
$as_nobody cat granted.txt 2>&1 | sed 's/.*: //'
$as_nobody cat group.txt 2>&1 | sed 's/.*: //'
$as_nobody cat later.txt 2>&1 | sed 's/.*: //'
touch ready; while [ ! -e go ]; do sleep 0.05; done
$as_nobody cat later.txt 2>&1 | sed 's/.*: //'
$as_nobody ./ownerx.sh 2>&1 | sed 's/.*: //'
$as_nobody mknod pub/dev c 1 3 2>&1 | sed 's/.*: //'
$as_nobody /usr/bin/python3 -c "$setxattr" 2>&1
EOS
}
probe
run_probe() { # COMMAND...: run the probe, chmod 600 later.txt while it waits
    rm -f ready go; chmod 644 later.txt
    "$@" > "$T/probe.out" 2>&1 &
    pid=$!
    wait_until 10 test -e ready
    chmod 600 later.txt
    touch go
    wait $pid || true
    cat "$T/probe.out"
}
native=$(run_probe sh probe.sh)
assert_contains "$native" "Permission denied
granted
group
later
Permission denied" "native results"
traced=$(run_probe "$BUILDTRAIL" run -q -o "$T/t.db" -- sh probe.sh)
assert_eq "$traced" "$native" "the steps' permissions"
assert_no_leftovers
