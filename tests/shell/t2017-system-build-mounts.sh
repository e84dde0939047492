#!/bin/sh
# --system as root: a build that mounts over a watched tree itself (a tmpfs over /usr/local,
# a bind mount of /usr elsewhere) reaches files there through mounts without fanotify marks.
# Its trace must not say "complete": it is marked incomplete with the mount and the fix
# (--system=full); so is one that unmounts a watched mount, uncovering what lies under it.  A
# remount or a propagation change adds no mount and keeps it complete.
# Root only: the build runs in a private mount namespace with its own /usr/local (a tmpfs).
. "$(dirname "$0")/lib.sh"
require_fuse
require_private_usr_local
mkdir "$T/mnt"
system_build propagation 'mount --make-rprivate / && mount -o remount,bind,ro /usr/local && cat /usr/local/data > /dev/null'
case $(sql "$T/propagation.db" "select notes from runs") in
    *system_trees=watched*) ;;
    *) skip "no fanotify permission events here: --system serves the system trees" ;;
esac
assert_contains "$(cat "$T/propagation.err")" ", complete" "a propagation change and a remount keep the trace complete"
assert_eq "$(sql "$T/propagation.db" "select count(*) from accesses a join files f on f.id = a.file_id where f.path = '/usr/local/data'")" 1 "the read is recorded"

check() { # NAME MOUNT-POINT
    err=$(cat "$T/$1.err")
    assert_contains "$err" "INCOMPLETE" "$1: the summary"
    assert_contains "$err" "mounted $2" "$1: the reason"
    assert_contains "$err" "--system=full" "$1: the fix"
    case $err in *", complete"*) fail "$1: said complete: $err" ;; esac
    info=$(bt info -d "$T/$1.db" 2>&1 >/dev/null) || true
    assert_contains "$info" "is incomplete" "$1: info says so"
}
system_build tmpfs 'mount -t tmpfs none /usr/local && echo x > /usr/local/new && cat /usr/local/new > /dev/null'
check tmpfs /usr/local
system_build bind "mount --rbind /usr $T/mnt && cat $T/mnt/local/data > /dev/null"
check bind "$T/mnt"
system_build umount 'umount /usr/local && ls /usr/local > /dev/null'
check umount /usr/local
assert_no_leftovers
