#!/bin/sh
# --system as root watches the build's mount calls through a seccomp filter with a listener
# (launcher/nsguard.h), and the kernel gives a process one listener at most: a build that asks
# for one of its own (SECCOMP_FILTER_FLAG_NEW_LISTENER) gets EBUSY.  The run says so at the
# end, with the fix (--system=full), and the trace is not made incomplete by it; with
# --system=full the same build gets its listener.
. "$(dirname "$0")/lib.sh"
require_fuse
require_private_usr_local
require_cmd python3
cat > "$T/listener.py" <<'PY'
import ctypes, errno, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.prctl(38, 1, 0, 0, 0)                                  # PR_SET_NO_NEW_PRIVS
insn = ctypes.create_string_buffer(struct.pack("=HBBI", 0x06, 0, 0, 0x7fff0000))  # RET ALLOW
prog = ctypes.create_string_buffer(struct.pack("=H6xQ", 1, ctypes.addressof(insn)))
fd = libc.syscall(317, 1, 8, prog)                          # seccomp(SET_MODE_FILTER, NEW_LISTENER)
print("listener" if fd >= 0 else "refused: " + errno.errorcode.get(ctypes.get_errno(), "?"))
PY
[ "$(uname -m)" = x86_64 ] || skip "the probe's syscall numbers are x86-64's"
system_build own 'python3 '"$T"'/listener.py > /dev/null'
case $(sql "$T/own.db" "select notes from runs") in
    *system_trees=watched*) ;;
    *) skip "no fanotify permission events here: --system serves the system trees" ;;
esac
err=$(cat "$T/own.err")
assert_contains "$err" "warning: a build process (python3, pid" "the warning names the process"
assert_contains "$err" "asked for a seccomp listener of its own, which the kernel refuses (EBUSY)" "the warning says what"
assert_contains "$err" "run such a build with --system=full" "the fix"
assert_contains "$err" ", complete" "no access went unseen"
# What the build saw, and the same build with --system=full.
cd "$T/ws"
out=$(unshare -m --propagation private "$BUILDTRAIL" run -q -o "$T/w.db" --system -- python3 "$T/listener.py")
assert_eq "$out" "refused: EBUSY" "the build is refused under the watch"
out=$(bt run -q -o "$T/f.db" --system=full -- python3 "$T/listener.py")
assert_eq "$out" "listener" "--system=full leaves it its listener"
assert_no_leftovers
