#!/bin/sh
# A trace's tables must be buildtrail's: a view where a table should be (a recursive one would
# run forever), a virtual table, a generated column, a column renamed, dropped or added.  Every
# query ends within 20 s and 1 GiB with one line saying the trace is damaged; `run -o` on such
# a file refuses to replace it, at once.
. "$(dirname "$0")/lib.sh"
require_fuse
. "$(dirname "$0")/crafted.sh"
record_sample
forever="WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r)"

craft metaview "ALTER TABLE meta RENAME TO meta_t" \
    "CREATE VIEW meta AS $forever SELECT key, value FROM meta_t, r"
craft procview "ALTER TABLE processes RENAME TO p_t" \
    "CREATE VIEW processes AS $forever SELECT p_t.* FROM p_t, r"
craft runsview "ALTER TABLE runs RENAME TO runs_t" \
    "CREATE VIEW runs AS $forever SELECT runs_t.* FROM runs_t, r"
craft virtual "ALTER TABLE files RENAME TO f_t" "CREATE VIRTUAL TABLE files USING fts5(id, path)" \
    "INSERT INTO files SELECT id, path FROM f_t"
craft generated "ALTER TABLE processes DROP COLUMN argv" \
    "ALTER TABLE processes ADD COLUMN argv BLOB GENERATED ALWAYS AS (zeroblob(100000000)) VIRTUAL"
craft renamed "ALTER TABLE processes RENAME COLUMN parent_id TO parent"
craft dropped "ALTER TABLE accesses DROP COLUMN bytes"
craft added "ALTER TABLE accesses ADD COLUMN extra INTEGER"
craft retyped "DROP INDEX versions_base" "ALTER TABLE versions DROP COLUMN base_id" "ALTER TABLE versions ADD COLUMN base_id TEXT"
for db in metaview procview runsview virtual generated renamed dropped added retyped; do
    say "$db"
    every_query refuses "$T/$db.db"
done
refuses "$T/metaview.db" "the reason" tree
assert_contains "$(cat "$T/err")" "it has a view 'meta' where a table should be" "metaview"
refuses "$T/renamed.db" "the reason" tree
assert_contains "$(cat "$T/err")" "its table 'processes' does not have the columns buildtrail made" "renamed"

# run -o on it: not a trace of buildtrail's, so never replaced (and never read forever).
sum=$(cksum < "$T/metaview.db")
set +e
(cd "$T/s" && timeout 20 "$BUILDTRAIL" run -o "$T/metaview.db" -- true) > "$T/out" 2> "$T/err"
st=$?
set -e
[ "$st" != 124 ] || fail "run -o on a crafted file: still running after 20 s"
[ "$st" != 0 ] || fail "run -o replaced a file that is not a buildtrail trace"
assert_eq "$(cksum < "$T/metaview.db")" "$sum" "run -o left the crafted file as it was"
echo ok
