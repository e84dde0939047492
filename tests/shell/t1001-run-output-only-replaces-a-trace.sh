#!/bin/sh
# `run -o FILE` replaces only a trace or an empty regular file (with its own -wal/-shm/-journal).
# A device node, a FIFO, a symlink, a directory or another file is refused at once with one line
# naming what it is; SQLite side files that are not the trace's are never deleted.
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir "$T/ws" && cd "$T/ws"

refused() { # WHAT-IN-MESSAGE -- COMMAND...
    want=$1; shift 2
    set +e
    err=$(timeout 20 "$BUILDTRAIL" "$@" 2>&1 >/dev/null); st=$?
    set -e
    [ "$st" != 124 ] || fail "$*: still waiting after 20 s (it must never block)"
    assert_eq "$st" 125 "$*: exit status"
    assert_contains "$err" "$want" "$*"
    assert_eq "$(printf '%s\n' "$err" | wc -l)" 1 "$*: one line"
}

# A FIFO: refused at once, never opened (opening it would wait for a writer).
mkfifo fifo
refused "cannot write the trace $T/ws/fifo: it is a FIFO, not a buildtrail trace" -- run -o fifo -- true
[ -p fifo ] || fail "the FIFO was replaced"

# A device node (root can make one; the same rule applies to any user's).
if [ "$(id -u)" = 0 ]; then
    mknod null c 1 3
    refused "cannot write the trace $T/ws/null: it is a character device, not a buildtrail trace" -- \
        run -o null -- true
    [ -c null ] || fail "the device node was replaced"
fi

# A symlink, even to a trace: refused, and neither the link nor its target changes.
bt run -o real.db -- true
ln -s real.db link.db
before=$(sha256sum real.db)
refused "it is a symbolic link, not a buildtrail trace" -- run -o link.db -- true
[ -L link.db ] || fail "the symlink was replaced"
assert_eq "$(sha256sum real.db)" "$before" "the symlink's target changed"

# A directory: the trace goes into it, as DIR/buildtrail.db (so does a link to one).
mkdir adir
bt run -q -o adir -- true
[ -d adir ] || fail "the directory was replaced"
assert_eq "$(sql adir/buildtrail.db 'select state from runs')" finished "-o DIR: the trace in it"
ln -s adir dirlink
err=$(bt run -o dirlink/ -- true 2>&1)
assert_contains "$err" "trace dirlink/buildtrail.db" "-o DIR/: the summary names the trace"
[ -L dirlink ] || fail "the link to a directory was replaced"

# Another file.
echo precious > notes.txt
refused "it exists and is not a buildtrail trace" -- run -o notes.txt -- true
assert_eq "$(cat notes.txt)" precious "a non-trace file was overwritten"

# Files named like SQLite's side files that are not the trace's: never deleted.
echo mine > new.db-wal
refused "new.db-wal exists beside it and is not that trace's own file" -- run -o new.db -- true
assert_eq "$(cat new.db-wal)" mine "a foreign -wal file was touched"
[ ! -e new.db ] || fail "a trace was created beside a foreign -wal file"
bt run -o real.db -- true
echo notes > real.db-journal
refused "real.db-journal exists beside it and is not that trace's own file" -- run -o real.db -- true
assert_eq "$(cat real.db-journal)" notes "a foreign -journal file was touched"
rm real.db-journal

# What may be replaced is: an empty regular file and an earlier trace.
: > empty.db
bt run -o empty.db -- true || fail "an empty file was not replaced by a trace"
assert_eq "$(sql empty.db 'select state from runs')" finished "trace in the empty file"
bt run -o real.db -- sh -c 'echo again > again.txt' || fail "an earlier trace was not replaced"
bt who-wrote -d real.db again.txt | grep -q "written by" || fail "the replacing trace is not complete"
assert_no_leftovers
