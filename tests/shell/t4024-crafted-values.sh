#!/bin/sh
# Values of the wrong kind where the schema allows none: NULL in a NOT NULL column (SQLite
# checks only what it writes: writable_schema makes such a file), text where an id should be,
# bytes that are not UTF-8, a line break in the run's failure.  No query crashes or runs away: each answers or refuses in one
# line within 20 s and 1 GiB; a NULL path (which every query would print) is damage.
. "$(dirname "$0")/lib.sh"
require_fuse
. "$(dirname "$0")/crafted.sh"
record_sample
# craft_nulls NAME TABLE 'DECL' 'DECL WITHOUT NOT NULL' SQL: SQL run with the constraint lifted
craft_nulls() {
    craft "$1" "PRAGMA writable_schema=ON; UPDATE sqlite_schema SET sql = replace(sql, '$3', '$4') WHERE name = '$2'" \
        "$5" \
        "PRAGMA writable_schema=ON; UPDATE sqlite_schema SET sql = replace(sql, '$4', '$3') WHERE name = '$2'"
    sqlite3 "$T/$1.db" "SELECT sql FROM sqlite_schema WHERE name = '$2'" | grep -qF "$3" ||
        fail "crafting $1: the constraint was not put back"
}
craft_nulls nullpath files 'path TEXT NOT NULL' 'path TEXT' \
    "UPDATE files SET path = NULL WHERE id IN (SELECT file_id FROM accesses)"
craft_nulls nullrun runs 'cwd TEXT NOT NULL' 'cwd TEXT' "UPDATE runs SET cwd = NULL"
craft_nulls nullkind accesses 'kind INTEGER NOT NULL' 'kind INTEGER' \
    "UPDATE accesses SET kind = NULL WHERE id % 2 = 0"
craft_nulls nulldata output 'data BLOB NOT NULL' 'data BLOB' "UPDATE output SET data = NULL"
craft_nulls nullenv environments 'env BLOB NOT NULL' 'env BLOB' "UPDATE environments SET env = NULL"
craft_nulls nullorigin versions 'origin INTEGER NOT NULL' 'origin INTEGER' \
    "UPDATE versions SET origin = NULL, begin_ns = 0"
craft nullable "UPDATE processes SET argv = NULL, comm = NULL, exe = NULL, cwd = NULL, env_id = NULL"
craft textid "UPDATE processes SET parent_id = 'abc' WHERE id = $w" \
    "UPDATE accesses SET file_id = 'x', process_id = X'00ff' WHERE id % 3 = 0"
craft notutf8 "UPDATE files SET path = CAST(X'2F746D702FFFFE1B5B33316D' || id AS TEXT) WHERE id IN (SELECT file_id FROM accesses WHERE id % 2 = 0)" \
    "UPDATE processes SET comm = CAST(X'FFFE1B5B3331' AS TEXT), argv = X'FF001B5D303B6869070A00'"
craft linebreak "UPDATE runs SET state = 'failed', failure = 'disk full' || char(10) || 'buildtrail tree: all is well'"
for db in nullpath nullrun nullkind nulldata nullenv nullorigin nullable textid notutf8 linebreak; do
    say "$db"
    every_query answers_or_refuses "$T/$db.db"
done
for db in nullpath nullrun; do
    refuses "$T/$db.db" tree tree
    assert_contains "$(cat "$T/err")" "holds NULL where it may not" "$db"
done
refuses "$T/textid.db" who-wrote who-wrote "$T/s/hello"
# A line break in what the run row says would make the warning two lines, the second forged.
refuses "$T/linebreak.db" tree tree
assert_contains "$(cat "$T/err")" "control character" "linebreak"
echo ok
