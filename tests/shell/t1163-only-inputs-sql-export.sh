#!/bin/sh
# export --format sql carries what run --only-inputs hid (bt_denials: process, file, how and
# why by name, package), because the dump left the denials out and an archive of loaded traces
# could not say which builds were refused which files.  Loaded into PostgreSQL, the denial
# joins its file's path and its process.
. "$(dirname "$0")/lib.sh"
require_fuse
require_postgres
mkdir "$T/ws" && cd "$T/ws"
echo secret > hidden.h
echo ok > ok
echo ok > M
bt run -q -o "$T/t.db" --only-inputs M -- sh -c 'cat hidden.h 2>/dev/null; cat ok' > /dev/null ||
    fail "the build failed"
bt export -d "$T/t.db" --format sql -o "$T/t.sql"
grep -q '^CREATE TABLE IF NOT EXISTS bt_denials (' "$T/t.sql" || fail "no bt_denials: $(head -c 2000 "$T/t.sql")"
start_postgres
psql -f "$T/t.sql" > /dev/null || fail "t.sql did not load"
got=$(psql -c "SELECT convert_from(f.path, 'UTF8'), d.how, d.reason, convert_from(p.comm, 'UTF8')
                 FROM bt_denials d JOIN bt_files f ON f.trace = d.trace AND f.id = d.file_id
                 JOIN bt_processes p ON p.trace = d.trace AND p.id = d.process_id
                WHERE convert_from(f.path, 'UTF8') LIKE '%/hidden.h'")
assert_eq "$got" "$T/ws/hidden.h|lookup|undeclared|cat" "the denial loaded"
assert_eq "$(psql -c 'SELECT count(*) FROM bt_denials')" "$(sql "$T/t.db" 'SELECT count(*) FROM denials')" "every denial"
assert_no_leftovers
