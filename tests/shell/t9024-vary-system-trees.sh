#!/bin/sh
# --vary all with --system: as root the system trees are watched by fanotify, listed by the
# real filesystem, so fileordering is made only in the served trees and the run says so (in
# its line and the trace's why_not); unprivileged (--system serves them through FUSE) and with
# --system=full, /usr's listings are reversed too.  The other variations hold under the
# watched build's seccomp guard (a UTS and a user namespace of the build's own are not mount
# namespaces: nothing is marked unseen).
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir "$T/ws" "$T/ws/d"
cd "$T/ws"
for f in a b c d e; do : > "d/$f"; done
dir=/usr/share
listing() { ls -f "$1" | grep -v '^\.\.\?$' | tr '\n' ' '; }
native_usr=$(listing $dir)
reversed_usr=$(ls -f $dir | grep -v '^\.\.\?$' | tac | tr '\n' ' ')
reversed_d=$(ls -f d | grep -v '^\.\.\?$' | tac | tr '\n' ' ')
[ "$native_usr" != "$reversed_usr" ] || skip "$dir has one entry"
check() { # NAME OPTION: the run, its listings of $dir and d, its umask and hostname
    bt run -o "$T/$1.db" $2 --vary all -- sh -c "ls -f $dir | grep -v '^\.\.\?\$' | tr '\n' ' '; echo
        ls -f d | grep -v '^\.\.\?\$' | tr '\n' ' '; echo; umask; hostname" \
        > "$T/$1.out" 2> "$T/$1.err" || fail "$1: $(cat "$T/$1.err")"
    assert_eq "$(sed -n 2p "$T/$1.out")" "$reversed_d" "$1: the workspace's listing"
    assert_eq "$(sed -n 3,4p "$T/$1.out" | tr '\n' ' ')" "0002 reprotest-capture-hostname " "$1: umask, hostname"
    ! sql "$T/$1.db" "SELECT notes FROM runs" | grep -q 'unseen=' || fail "$1: marked unseen"
}
if [ "$(id -u)" = 0 ]; then
    check watched --system
    assert_eq "$(sed -n 1p "$T/watched.out")" "$native_usr" "watched: $dir as the real filesystem lists it"
    assert_contains "$(cat "$T/watched.err")" "fileordering (partly: not in the system trees watched by fanotify"
    assert_eq "$(sql "$T/watched.db" "SELECT applied FROM variations WHERE name = 'fileordering'")" 1 "applied, partly"
    assert_contains "$(sql "$T/watched.db" "SELECT why_not FROM variations WHERE name = 'fileordering'")" "--system=full"
fi
check full --system=full
assert_eq "$(sed -n 1p "$T/full.out")" "$reversed_usr" "full: $dir reversed too"
assert_eq "$(sql "$T/full.db" "SELECT why_not IS NULL FROM variations WHERE name = 'fileordering'")" 1 "full: wholly made"
assert_no_leftovers
echo ok
