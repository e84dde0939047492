#!/bin/sh
# Package tools under fakeroot work traced as natively: cp -a and tar -x of root-owned files
# (fakeroot fakes the chown that the real filesystem refuses with EPERM; EINVAL broke them).
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd fakeroot
mkdir "$T/ws" && cd "$T/ws"
if [ "$(id -u)" != 0 ]; then
    command -v newuidmap >/dev/null 2>&1 || missing "newuidmap (apt-get install uidmap)"
    grep -q "^$(id -un):" /etc/subuid 2>/dev/null || missing "a subordinate uid range for $(id -un) in /etc/subuid"
fi
cat > probe.sh <<'EOS'
rm -rf src dst x.tar out
mkdir -p src/usr/share/man/man1 dst out
echo page > src/usr/share/man/man1/x.1
chown -R 0:0 src
cp -a src/usr dst/ && echo "cp -a: ok"
tar -cf x.tar -C src usr && tar -xf x.tar -C out && echo "tar -x: ok"
stat -c '%u:%g %n' dst/usr/share/man/man1/x.1 out/usr/share/man/man1/x.1
EOS
native=$(fakeroot sh probe.sh 2>&1)
assert_contains "$native" "cp -a: ok" "native"
traced=$(bt run -q -- fakeroot sh probe.sh 2>&1)
assert_eq "$traced" "$native" "cp -a and tar -x under fakeroot"
assert_no_leftovers
