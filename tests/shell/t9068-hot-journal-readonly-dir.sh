#!/bin/sh
# A trace its owner reads with a hot journal beside it (a run killed mid-write) in a directory
# the owner cannot write: the rollback cannot remove the journal, and the one line says so and
# what to do, not "only its owner can read it" (said to the owner); once the directory is
# writable the same query reads the trace, the unfinished write rolled back.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd python3
[ "$(id -u)" != 0 ] || skip "root writes in any directory (the user variant tests this)"
mkdir "$T/d" "$T/ws"
cd "$T/ws"
bt run -q -o "$T/d/t.db" -- true 2> "$T/err0" || fail "run: $(cat "$T/err0")"
python3 - "$T/d/t.db" <<'PY'
import os, sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("PRAGMA cache_size=1")
c.execute("BEGIN")
c.execute("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 2000) "
          "INSERT INTO meta SELECT 'junk' || i, printf('%.500c', 'x') FROM n")
os._exit(0)  # killed mid-write: no COMMIT, no close
PY
[ -s "$T/d/t.db-journal" ] || fail "no hot journal made"
chmod 555 "$T/d"
on_cleanup 'chmod 755 "$T/d"'
one_line_error "$BUILDTRAIL" info -d "$T/d/t.db"
assert_eq "$st" 1 "info: exit status"
assert_contains "$e" "killed mid-write ($T/d/t.db-journal beside it); rolling that write back needs its directory $T/d writable"
case $e in *"only its owner can read it"*) fail "told the owner only its owner can read it: $e" ;; esac
chmod 755 "$T/d"
bt info -d "$T/d/t.db" > "$T/out" 2> "$T/err" || fail "info, the directory writable: $(cat "$T/err")"
[ ! -e "$T/d/t.db-journal" ] || fail "the journal is still there"
assert_eq "$(sql "$T/d/t.db" "SELECT count(*) FROM meta WHERE key LIKE 'junk%'")" 0 "rows of the unfinished write"
assert_no_leftovers
echo ok
