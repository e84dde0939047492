#!/bin/sh
# export --format sql loads into PostgreSQL; two traces share one database (every row keyed by
# its trace), loading a trace again replaces it, and an archive-wide question works: which
# file contents (by SHA-256) did both builds read?  The environments come along (a database an
# older buildtrail made gets bt_processes.env_id).
. "$(dirname "$0")/lib.sh"
require_fuse
require_postgres
mkdir "$T/a" "$T/b"
printf 'shared input\n' > "$T/a/common.txt"
cp "$T/a/common.txt" "$T/b/common.txt"
printf 'only in a\n' > "$T/a/own.txt"
(cd "$T/a" && bt run -o "$T/a.db" -- sh -c 'cat common.txt own.txt > out.txt')
(cd "$T/b" && bt run -o "$T/b.db" -- sh -c "cat common.txt > out.txt; printf 'it'\\''s \\\\ odd\\n' > \"we'ird\"")
bt export -d "$T/a.db" --format sql -o "$T/a.sql"
bt export -d "$T/b.db" --format sql -o "$T/b.sql"

start_postgres
# A database an older buildtrail made: bt_processes without env_id (added by the load).
psql -c "CREATE TABLE bt_traces (trace text PRIMARY KEY, command bytea, cwd bytea, host text,
    started timestamptz, start_ns bigint, end_ns bigint, exit_status integer, state text,
    buildtrail_version text);
  CREATE TABLE bt_processes (trace text NOT NULL REFERENCES bt_traces (trace) ON DELETE CASCADE,
    id bigint, pid integer, start_ticks bigint, exec_seq integer, parent_id bigint,
    prev_image_id bigint, orphan integer, start_ns bigint, first_seen_ns bigint, comm bytea,
    exe bytea, cwd bytea, argv bytea, PRIMARY KEY (trace, id))" > /dev/null || fail "the old tables"
psql -f "$T/a.sql" > /dev/null || fail "a.sql did not load"
psql -f "$T/b.sql" > /dev/null || fail "b.sql did not load"
psql -f "$T/a.sql" > /dev/null || fail "a.sql did not load again"
assert_eq "$(psql -c 'SELECT count(*) FROM bt_traces')" 2 "two traces"
n_a=$(sqlite3 -readonly "$T/a.db" 'SELECT count(*) FROM accesses')
assert_eq "$(psql -c "SELECT count(*) FROM bt_accesses a JOIN bt_traces t USING (trace) WHERE convert_from(t.cwd, 'UTF8') = '$T/a'")" "$n_a" "a's accesses, once"
# Which contents did both builds read?  (Joins across traces by hash.)
both=$(psql -c "SELECT DISTINCT encode(v1.sha256, 'hex') FROM bt_accesses a1
    JOIN bt_versions v1 ON v1.trace = a1.trace AND v1.id = a1.version_id
    JOIN bt_versions v2 ON v2.sha256 = v1.sha256 AND v2.trace <> v1.trace
    JOIN bt_accesses a2 ON a2.trace = v2.trace AND a2.version_id = v2.id
    WHERE a1.kind = 'read' AND a2.kind = 'read' AND v1.origin = 1 AND v2.origin = 1")
assert_eq "$both" "$(sha256sum "$T/a/common.txt" | cut -d' ' -f1)" "the shared input, by hash"
# Raw bytes survive: the odd file name comes back exactly.
name=$(psql -c "SELECT convert_from(path, 'UTF8') FROM bt_files WHERE convert_from(path, 'UTF8') LIKE '%ird'")
assert_eq "$name" "$T/b/we'ird" "a quote in a path"
# Each process's environment, as recorded, joined through bt_processes.env_id.
env=$(psql -c "SELECT position('\\000PATH='::bytea in '\\000'::bytea || e.env) > 0
    FROM bt_processes p JOIN bt_environments e ON e.trace = p.trace AND e.id = p.env_id
    JOIN bt_traces t ON t.trace = p.trace
    WHERE convert_from(t.cwd, 'UTF8') = '$T/a' AND p.parent_id IS NULL")
assert_eq "$env" t "the build's environment (its PATH) in bt_environments"
assert_no_leftovers
