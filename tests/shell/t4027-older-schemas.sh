#!/bin/sh
# A trace written by an older buildtrail (schema 1 to 8: the sample's trace taken back, one
# migration at a time, to the tables that version made) is a trace, never "damaged": every
# query answers or says what the older trace lacks, and info describes it.  info called a
# schema 2 trace damaged ("no such table: versions": it counted versions).
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd python3
. "$(dirname "$0")/crafted.sh"
record_sample
# What each migration added, taken away: back[N] makes a schema N+1 trace one of schema N.
back8="DROP TABLE variations"
back7="DROP TABLE denials"
back6="ALTER TABLE exits DROP COLUMN killed_at_end"
back5="ALTER TABLE runs DROP COLUMN options"
back4="ALTER TABLE processes DROP COLUMN env_id; DROP TABLE environments"
back3="ALTER TABLE runs DROP COLUMN failure"
back2="DROP INDEX accesses_version; ALTER TABLE accesses DROP COLUMN version_id; DROP TABLE versions"
back1="DROP TABLE exits; ALTER TABLE runs DROP COLUMN process_tree"
cp "$T/good.db" "$T/older.db"
for v in 8 7 6 5 4 3 2 1; do
    eval "sql=\$back$v"
    sqlite3 "$T/older.db" "$sql; UPDATE meta SET value = '$v' WHERE key = 'schema_version'" ||
        fail "taking the trace back to schema $v"
    cp "$T/older.db" "$T/schema$v.db"
    say "schema $v"
    every_query answers_or_refuses "$T/schema$v.db"
    for q in tree log "show 1" "who-wrote $T/s/hello" info "info --json"; do
        # shellcheck disable=SC2086 # (the query's words)
        bounded $q -d "$T/schema$v.db"
        [ "$st" = 0 ] || fail "schema $v: $q failed (exit $st): $(head -c 300 "$T/err")"
        ! grep -q 'damaged' "$T/err" || fail "schema $v: $q calls it damaged: $(cat "$T/err")"
    done
    python3 - "$T/out" "$v" <<'EOF' || fail "schema $v: info --json: $(head -c 300 "$T/out")"
import json, sys
d, v = json.load(open(sys.argv[1])), int(sys.argv[2])
c = d["counts"]
assert d["schema_version"] == v and c["processes"] > 0 and c["files_written"] > 0, d
assert (c["versions_written"] is None) == (v < 3), c
EOF
    bounded info -d "$T/schema$v.db"
    if [ "$v" -ge 2 ]; then
        assert_contains "$(cat "$T/out")" "finished, complete" "schema $v: info's state"
    fi
    [ "$v" -ge 3 ] || assert_contains "$(cat "$T/out")" "versions not recorded" "schema $v: info"
done
echo ok
