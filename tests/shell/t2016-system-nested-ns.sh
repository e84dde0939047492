#!/bin/sh
# --system as root watches the system trees through marks on the build's own mounts of them; a
# mount namespace the build makes itself (unshare -m, bwrap) holds copies of those mounts
# without marks.  A read, an exec and a write there are not seen, so the trace must not say
# "complete": it is marked incomplete, naming the process and the fix (--system=full), in the
# run's summary, its notes and what 'info' says.  A build that does none of it stays complete.
# Root only: the build runs in a private mount namespace with its own /usr/local (a tmpfs).
. "$(dirname "$0")/lib.sh"
require_fuse
require_private_usr_local
system_build plain 'cat /usr/local/data > /dev/null'
case $(sql "$T/plain.db" "select notes from runs") in
    *system_trees=watched*) ;;
    *) skip "no fanotify permission events here: --system serves the system trees" ;;
esac
assert_contains "$(cat "$T/plain.err")" ", complete" "a build without a namespace of its own is complete"
bt info -d "$T/plain.db" > /dev/null 2> "$T/plain.info" || fail "info on the plain trace"
[ ! -s "$T/plain.info" ] || fail "info warns on a complete trace: $(cat "$T/plain.info")"

# Every process of the build carries the filter that sees those calls, its init too (which a
# root build could ptrace into making them).
system_build filters 'grep -h "^Seccomp:" /proc/1/status /proc/self/status > seccomp.txt'
assert_eq "$(tr -d ' \t' < "$T/ws/seccomp.txt" | tr '\n' ' ')" "Seccomp:2 Seccomp:2 " "init and the build are filtered"

check() { # NAME: the trace is marked incomplete, with the reason and the fix
    err=$(cat "$T/$1.err")
    assert_contains "$err" "INCOMPLETE" "$1: the summary"
    assert_contains "$err" "mount namespace of its own" "$1: the reason"
    assert_contains "$err" "--system=full" "$1: the fix"
    case $err in *", complete"*) fail "$1: said complete: $err" ;; esac
    assert_contains "$(sql "$T/$1.db" "select notes from runs")" "unseen=" "$1: the notes"
    info=$(bt info -d "$T/$1.db" 2>&1 >/dev/null) || true
    assert_contains "$info" "is incomplete" "$1: info says so"
    assert_contains "$info" "mount namespace of its own" "$1: info says why"
    set +e
    bt inputs -d "$T/$1.db" > /dev/null 2>&1; st=$?
    set -e
    [ "$st" != 0 ] || fail "$1: inputs answered on the incomplete trace without --allow-incomplete"
}
system_build read 'unshare -m cat /usr/local/data > /dev/null'
check read
system_build exec 'unshare -m /usr/local/tool'
check exec
system_build write 'unshare -m sh -c "echo new > /usr/local/out"'
check write
if command -v bwrap > /dev/null; then
    system_build bwrap 'bwrap --bind / / --dev /dev --proc /proc cat /usr/local/data > /dev/null'
    check bwrap
fi
assert_no_leftovers
