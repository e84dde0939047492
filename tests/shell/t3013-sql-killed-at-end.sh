#!/bin/sh
# export --format sql carries exits.killed_at_end (schema 7) into PostgreSQL: a process the
# build left running, killed at its end, is 1 in bt_exits.killed_at_end.  The script loads
# into a database an older buildtrail made (bt_exits without the column: it is added), and a
# trace older than schema 7 still exports (the column NULL: not recorded then).
. "$(dirname "$0")/lib.sh"
require_fuse
require_postgres
mkdir "$T/ws"
(cd "$T/ws" && bt run -o "$T/a.db" -- sh -c 'sleep 0; sleep 0') 2> "$T/run.err" || fail "run: $(cat "$T/run.err")"
case $(cat "$T/run.err") in
    *"partial"*) skip "no process events here (exits are not recorded)" ;;
esac
# (Which processes run marks is t3010's and t3012's: here one exit is marked by hand.)
sqlite3 "$T/a.db" "insert or replace into exits (process_id, end_ns, exit_code, exit_signal, killed_at_end)
    select id, start_ns + 1, null, 9, 1 from processes where id = (select max(id) from processes)"
assert_eq "$(sql "$T/a.db" "select count(*) from exits where killed_at_end")" 1 "one exit marked"
bt export -d "$T/a.db" --format sql -o "$T/a.sql" || fail "export"
# The same trace as schema 6 wrote it (no killed_at_end).
cp "$T/a.db" "$T/old.db"
sqlite3 "$T/old.db" "alter table exits drop column killed_at_end; update meta set value = '6' where key = 'schema_version'; update runs set argv = cast('old' as blob)"
bt export -d "$T/old.db" --format sql -o "$T/old.sql" 2> "$T/old.err" || fail "export of a schema 6 trace: $(cat "$T/old.err")"

start_postgres
# The tables as the export before schema 7 made them.
psql -c "CREATE TABLE bt_traces (trace text PRIMARY KEY, command bytea, cwd bytea, host text,
    started timestamptz, start_ns bigint, end_ns bigint, exit_status integer, state text, buildtrail_version text);
  CREATE TABLE bt_exits (trace text NOT NULL REFERENCES bt_traces (trace) ON DELETE CASCADE,
    process_id bigint, end_ns bigint, exit_code integer, exit_signal integer, PRIMARY KEY (trace, process_id))" ||
    fail "the older tables"
psql -f "$T/a.sql" > "$T/a.load" 2>&1 || fail "a.sql did not load into the older database: $(cat "$T/a.load")"
psql -f "$T/old.sql" > "$T/old.load" 2>&1 || fail "old.sql did not load: $(cat "$T/old.load")"
id=$(sql "$T/a.db" "select process_id from exits where killed_at_end")
assert_eq "$(psql -c "SELECT e.process_id FROM bt_exits e JOIN bt_traces t USING (trace)
    WHERE e.killed_at_end = 1 AND t.command <> 'old'::bytea")" "$id" "bt_exits.killed_at_end of the one left running"
assert_eq "$(psql -c "SELECT count(*) FROM bt_exits e JOIN bt_traces t USING (trace)
    WHERE e.killed_at_end = 0 AND t.command <> 'old'::bytea")" \
    "$(sql "$T/a.db" "select count(*) from exits where not killed_at_end")" "the others are 0"
assert_eq "$(psql -c "SELECT count(*) FROM bt_exits e JOIN bt_traces t USING (trace)
    WHERE e.killed_at_end IS NOT NULL AND t.command = 'old'::bytea")" 0 "a schema 6 trace's: unknown (NULL)"
assert_no_leftovers
