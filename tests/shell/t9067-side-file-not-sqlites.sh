#!/bin/sh
# A side file beside a trace that is not SQLite's (a FIFO named TRACE-journal, a symbolic link
# named TRACE-wal, a file of the user's named TRACE-journal) makes a query say so in one line
# and exit 1, without blocking on the FIFO, following the link (its target unchanged) or
# removing the file; once it is gone the trace reads again.
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir "$T/ws"
cd "$T/ws"
bt run -q -o "$T/t.db" -- sh -c 'echo hi > out' 2> "$T/err0" || fail "run: $(cat "$T/err0")"
mkfifo "$T/t.db-journal"
st=0
timeout 20 "$BUILDTRAIL" info -d "$T/t.db" > "$T/out" 2> "$T/err" || st=$?
[ "$st" != 124 ] || fail "info blocked on the FIFO t.db-journal"
assert_eq "$st" 1 "info with a FIFO t.db-journal: exit status"
assert_eq "$(wc -l < "$T/err")" 1 "lines said"
assert_contains "$(cat "$T/err")" "t.db-journal beside it is a FIFO, not SQLite's journal file"
rm "$T/t.db-journal"
echo precious > "$T/target"
chmod 644 "$T/target"
ln -s "$T/target" "$T/t.db-wal"
one_line_error timeout 20 "$BUILDTRAIL" who-wrote -d "$T/t.db" out
assert_eq "$st" 1 "who-wrote with a link t.db-wal: exit status"
assert_contains "$e" "t.db-wal beside it is a symbolic link, not SQLite's wal file"
assert_eq "$(cat "$T/target")" precious "the link's target"
assert_eq "$(stat -c %a "$T/target")" 644 "the link's target's mode"
rm "$T/t.db-wal"
echo "my notes, not a journal" > "$T/t.db-journal"
one_line_error "$BUILDTRAIL" info -d "$T/t.db"
assert_eq "$st" 1 "info with a file of the user's at t.db-journal: exit status"
assert_contains "$e" "t.db-journal beside it does not begin as SQLite's journal file does"
assert_eq "$(cat "$T/t.db-journal")" "my notes, not a journal" "the user's file"
rm "$T/t.db-journal"
bt info -d "$T/t.db" > "$T/out" 2> "$T/err" || fail "info once the side files are gone: $(cat "$T/err")"
assert_no_leftovers
echo ok
