#!/bin/sh
# A program the caller may execute but not read runs, as natively: exec needs only the x bit
# (the kernel reads the file itself).  The daemon judges the exec right as the caller and must
# not then refuse because the caller cannot open the file for reading.  Checked for a binary
# executable by others only, and for one executable through a group that the process added
# with setgroups() without exec before its execve (the exec is the process's next request).
# Root only: unprivileged, the daemon is the caller's own user and cannot read such a file
# either (conformance.md, known differences).
. "$(dirname "$0")/lib.sh"
require_fuse
require_root
require_cmd python3
mkdir "$T/ws" && cd "$T/ws"
cp /bin/true xother && chmod 711 xother
cp /bin/true xgroup && chgrp 4242 xgroup && chmod 710 xgroup
cat > probe.py <<'EOS'
import os, sys
def run(path, groups):
    pid = os.fork()
    if pid == 0:
        try:
            os.setgroups(groups)
            os.setresgid(65534, 65534, 65534)
            os.setresuid(65534, 65534, 65534)
            os.execv(path, [path])
        except OSError as e:
            print(path, "errno", e.errno)
        os._exit(9)
    print(path, os.waitpid(pid, 0)[1] >> 8)
run("./xother", [])
run("./xgroup", [4242])
EOS
native=$(python3 probe.py 2>&1)
assert_eq "$native" "./xother 0
./xgroup 0" "native: execute-only programs run"
traced=$(bt run -q -- python3 probe.py 2>&1)
assert_eq "$traced" "$native" "execute-only programs through the mount"
assert_no_leftovers
