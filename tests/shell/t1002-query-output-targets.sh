#!/bin/sh
# A query's -o writes as a shell redirection would and never replaces what is not a regular file:
# a symlink is followed (the link stays), /dev/stdout and links to /proc/self/fd/1 are written in
# place, a FIFO gets the data, a device node is written not replaced, a directory is refused,
# a regular file is replaced atomically.  (t4014: links and files another user planted.)
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir "$T/ws" && cd "$T/ws"
bt run -- sh -c 'echo x > a.o'
bt export --format dot -o expected.dot
[ -s expected.dot ] || fail "export -o wrote nothing"

# A symlink to a regular file: its target is written, the link stays a link.
echo old > target.dot
ln -s target.dot link.dot
bt export --format dot -o link.dot
[ -L link.dot ] || fail "-o replaced the symlink"
cmp -s target.dot expected.dot || fail "the symlink's target was not written"

# A link to /proc/self/fd/1, and /dev/stdout: the data goes to standard output.
ln -s /proc/self/fd/1 out-link
bt export --format dot -o out-link > via-link.dot
[ -L out-link ] || fail "-o replaced the link to /proc/self/fd/1"
cmp -s via-link.dot expected.dot || fail "-o /proc/self/fd/1 did not write standard output"
bt export --format dot -o /dev/stdout > via-dev.dot
cmp -s via-dev.dot expected.dot || fail "-o /dev/stdout did not write standard output"
[ -c /dev/stdout ] || [ -L /dev/stdout ] || fail "/dev/stdout was replaced"
bt export --format dot -o - > via-dash.dot
cmp -s via-dash.dot expected.dot || fail "-o - did not write standard output"

# A FIFO: written as a reader takes it.
mkfifo pipe
cat pipe > from-pipe.dot &
reader=$!
timeout 20 "$BUILDTRAIL" export --format dot -o pipe || fail "-o FIFO failed"
wait "$reader"
[ -p pipe ] || fail "-o replaced the FIFO"
cmp -s from-pipe.dot expected.dot || fail "the FIFO's reader did not get the document"

# A device node (root): written, not replaced.
if [ "$(id -u)" = 0 ]; then
    mknod devnull c 1 3
    bt export --format dot -o devnull
    [ -c devnull ] || fail "-o replaced a device node with a regular file"
fi

# A directory: refused, one line, non-zero.
mkdir adir
set +e; err=$(bt export --format dot -o adir 2>&1); st=$?; set -e
[ "$st" != 0 ] || fail "-o a directory succeeded"
assert_contains "$err" "cannot write adir: Is a directory" "directory refused"

# A regular file: replaced atomically (a new inode; a reader holding the old one keeps it),
# with the trace's permissions (t4015 has the rest of --output-mode).
echo old > plain.dot && chmod 644 plain.dot
ino=$(stat -c %i plain.dot)
bt export --format dot -o plain.dot
cmp -s plain.dot expected.dot || fail "the regular file was not replaced"
[ "$(stat -c %i plain.dot)" != "$ino" ] || fail "the regular file was rewritten in place, not replaced"
assert_eq "$(stat -c %a plain.dot)" "$(stat -c %a buildtrail.db)" "permissions of the replaced file"
assert_no_leftovers
