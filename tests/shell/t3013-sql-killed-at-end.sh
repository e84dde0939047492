#!/bin/sh
# export --format sql carries exits.killed_at_end (schema 7) into PostgreSQL: the processes the
# build left running, killed at its end, are 1 in bt_exits.killed_at_end.  The script loads
# into a database an older buildtrail made (bt_exits without the column: it is added), and a
# trace older than schema 7 still exports (the column NULL: not recorded then).
. "$(dirname "$0")/lib.sh"
require_fuse
initdb=$(ls /usr/lib/postgresql/*/bin/initdb 2>/dev/null | tail -n 1)
[ -n "$initdb" ] || missing "PostgreSQL (apt-get install postgresql)"
bin=$(dirname "$initdb")
mkdir "$T/ws"
(cd "$T/ws" && bt run -o "$T/a.db" -- sh -c 'setsid sleep 1000 & until [ "$(cat /proc/$!/comm 2>/dev/null)" = sleep ]; do sleep 0.01; done') \
    2> "$T/run.err" || fail "run: $(cat "$T/run.err")"
case $(cat "$T/run.err") in
    *"partial"*) skip "no process events here (exits are not recorded)" ;;
esac
assert_eq "$(sql "$T/a.db" "select count(*) from exits where killed_at_end")" 1 "the trace marks the one left running"
bt export -d "$T/a.db" --format sql -o "$T/a.sql" || fail "export"
# The same trace as schema 6 wrote it (no killed_at_end).
cp "$T/a.db" "$T/old.db"
sqlite3 "$T/old.db" "alter table exits drop column killed_at_end; update meta set value = '6' where key = 'schema_version'; update runs set argv = cast('old' as blob)"
bt export -d "$T/old.db" --format sql -o "$T/old.sql" 2> "$T/old.err" || fail "export of a schema 6 trace: $(cat "$T/old.err")"

pg=$T/pg
mkdir "$pg"
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" = 0 ] && { chown postgres "$pg"; chmod 755 "$T"; chmod a+r "$T"/*.sql; }
as_pg "$bin/initdb" -D "$pg/data" -A trust -U bt > "$T/initdb.log" 2>&1 || fail "initdb: $(tail -3 "$T/initdb.log")"
as_pg "$bin/pg_ctl" -D "$pg/data" -o "-k $pg -c listen_addresses=''" -l "$pg/log" -w start > /dev/null || fail "postgres did not start: $(tail -5 "$pg/log")"
on_cleanup "as_pg '$bin/pg_ctl' -D '$pg/data' -m immediate stop >/dev/null 2>&1"
psql() { as_pg "$bin/psql" -h "$pg" -U bt -d postgres -v ON_ERROR_STOP=1 -qAt "$@"; }
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
