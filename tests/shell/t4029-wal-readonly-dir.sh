#!/bin/sh
# A trace left with a write-ahead log (its run was killed: PATH-wal beside it) in a directory
# the reader cannot write is not damaged: SQLite needs a PATH-shm file next to it to read the
# log.  The query says that in one line, with the fix (copy it with its -wal), never "the trace
# is damaged ... record the build again" (it was, since the schema check took every SQLite
# error for damage); copied so, it answers.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd python3
. "$(dirname "$0")/crafted.sh"
record_sample
mkdir "$T/ro"
cp "$T/good.db" "$T/ro/t.db"
# What a killed run leaves: WAL mode, a committed write still in the -wal, the -shm gone.
python3 - "$T/ro/t.db" <<'PY'
import os, sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("PRAGMA journal_mode=WAL")
c.execute("PRAGMA wal_autocheckpoint=0")
c.execute("UPDATE runs SET hostname = hostname || '-wal'")
os._exit(0)
PY
[ -s "$T/ro/t.db-wal" ] || fail "no -wal was left"
rm -f "$T/ro/t.db-shm"
set +e
if [ "$(id -u)" = 0 ]; then
    # root writes anywhere: a read-only bind mount of the directory, in a mount namespace of
    # its own.
    require_cmd unshare
    unshare -m sh -c 'mount --make-rprivate / && mount --bind "$1" "$1" &&
        mount -o remount,bind,ro "$1" && exec "$2" info -d "$1/t.db"' sh "$T/ro" "$BUILDTRAIL" \
        > "$T/out" 2> "$T/err"
else
    chmod 555 "$T/ro"
    on_cleanup "chmod 755 '$T/ro'"
    bt info -d "$T/ro/t.db" > "$T/out" 2> "$T/err"
fi
st=$?
set -e
grep -q 'mount' "$T/err" && skip "no read-only bind mount here: $(cat "$T/err")"
[ "$st" = 1 ] || fail "info in the read-only directory: exit $st: $(cat "$T/err")"
! grep -q damaged "$T/err" || fail "a whole trace called damaged: $(cat "$T/err")"
assert_eq "$(wc -l < "$T/err")" 1 "stderr lines"
assert_contains "$(cat "$T/err")" "copy the trace and its -wal to a directory you can write" "the fix"
[ ! -s "$T/out" ] || fail "an answer besides the refusal: $(head -c 200 "$T/out")"
mkdir "$T/rw"
cp "$T/ro/t.db" "$T/ro/t.db-wal" "$T/rw/"
bt info -d "$T/rw/t.db" > "$T/out" 2> "$T/err" || fail "info on the copy: $(cat "$T/err")"
assert_contains "$(cat "$T/out")" "finished, complete" "info on the copy"
assert_contains "$(grep '^recorded:' "$T/out")" "-wal" "info on the copy: what the -wal holds"
echo ok
