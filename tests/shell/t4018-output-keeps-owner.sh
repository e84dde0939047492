#!/bin/sh
# An -o file that replaces an existing one keeps its owner and group where the caller may give
# them, as `> FILE` would keep them: root's export (sudo buildtrail export -o sbom.json in a
# user's project) over the user's file leaves it the user's, so the user can still read it
# at the trace's 0600; an unprivileged caller keeps the file's group when it is one of
# theirs.  A new file is the caller's.  (Once every replaced file became the caller's.)
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir "$T/ws" && cd "$T/ws"
bt run -q -- sh -c 'echo x > a.o'
me="$(id -u):$(id -g)"
bt export --format dot -o new.dot
assert_eq "$(stat -c %u:%g new.dot)" "$me" "a new file's owner"
# A group other than our primary one (root may give any; others, one they are in): the
# replaced file keeps it.
if [ "$(id -u)" = 0 ]; then
    group=$(getent group users | cut -d: -f3)
else
    group=$(id -G | tr ' ' '\n' | grep -vx "$(id -g)" | head -1)
fi
if [ -n "$group" ]; then
    echo old > grouped.dot && chgrp "$group" grouped.dot
    bt export --format dot -o grouped.dot
    grep -q digraph grouped.dot || fail "the file was not replaced"
    assert_eq "$(stat -c %u:%g grouped.dot)" "$(id -u):$group" "the replaced file's group"
    assert_eq "$(stat -c %a grouped.dot)" 600 "the replaced file's mode"
else
    missing_part "a supplementary group for the test user (.ci/run adds 'users')"
fi
# Another user's file: root keeps it theirs; anyone else makes it their own (the directory is
# theirs, so the kernel lets them replace it, as it would let them remove it).
echo old > theirs.dot
if chown_other theirs.dot; then
    bt export --format dot -o theirs.dot
    grep -q digraph theirs.dot || fail "another user's file was not replaced"
    if [ "$(id -u)" = 0 ]; then
        assert_eq "$(stat -c %u:%g theirs.dot)" "$OTHER_UID:$OTHER_UID" "root kept the owner"
    else
        assert_eq "$(stat -c %u:%g theirs.dot)" "$me" "the caller's, where it cannot give it"
    fi
    assert_eq "$(stat -c %a theirs.dot)" 600 "the trace's mode"
else
    missing_part "another user to own a file (root, or subordinate uids in /etc/subuid)"
fi
[ "$(ls -A | sort | tr '\n' ' ')" = "a.o buildtrail.db grouped.dot new.dot theirs.dot " ] ||
    [ -z "$group" ] || fail "left behind: $(ls -A)"
assert_no_leftovers
