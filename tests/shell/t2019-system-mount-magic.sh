#!/bin/sh
# --system as root: a build that mounts over a watched tree with the old magic in its flags
# (MS_MGC_VAL, 0xC0ED0000, which old programs still pass) makes a new mount: the kernel drops
# the magic first, although its bits are those of MS_PRIVATE and MS_SLAVE.  The guard must not
# take it for a propagation change: the trace is marked incomplete with the mount and the fix.
# Root only: the build runs in a private mount namespace with its own /usr/local (a tmpfs).
. "$(dirname "$0")/lib.sh"
require_fuse
require_private_usr_local
require_cmd python3
cat > "$T/magic.py" <<'PY'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
if libc.mount(b"none", b"/usr/local", b"tmpfs", ctypes.c_ulong(0xC0ED0000), None) != 0:
    sys.exit("mount: " + os.strerror(ctypes.get_errno()))
with open("/usr/local/new", "w") as f:
    f.write("x\n")
print(open("/usr/local/new").read(), end="")
PY
system_build magic 'python3 '"$T"'/magic.py > out.txt'
case $(sql "$T/magic.db" "select notes from runs") in
    *system_trees=watched*) ;;
    *) skip "no fanotify permission events here: --system serves the system trees" ;;
esac
assert_eq "$(cat "$T/ws/out.txt")" "x" "the build mounted and wrote there"
err=$(cat "$T/magic.err")
assert_contains "$err" "INCOMPLETE" "the summary"
assert_contains "$err" "mounted /usr/local" "the reason"
assert_contains "$err" "--system=full" "the fix"
case $err in *", complete"*) fail "said complete: $err" ;; esac
assert_contains "$(sql "$T/magic.db" "select notes from runs")" "unseen=" "the notes"
assert_no_leftovers
