#!/bin/sh
# store-bench.sh BUILDTRAIL TRACE... — push each trace into a private PostgreSQL 15 (initdb on
# a Unix socket in a temporary directory, removed at the end) and print, per trace: its size,
# the push's time (reading the trace, sending it) and what the database grew by
# (pg_database_size before and after, after a CHECKPOINT), then one push again (nothing
# added) and the time of who-ships and uses on what was pushed.  docs/performance.md has the
# numbers.  As root the server runs as postgres ($PG_USER) (initdb refuses root).
set -eu
bt=$(readlink -f "$1"); shift
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
d=$(mktemp -d "${TMPDIR:-/tmp}/bt-store-bench.XXXXXX")
chmod 755 "$d"
as=""
if [ "$(id -u)" = 0 ]; then
    chown "${PG_USER:-postgres}" "$d"
    as="setpriv --reuid="${PG_USER:-postgres}" --regid="${PG_USER:-postgres}" --clear-groups"
fi
trap '$as "$PG_BIN/pg_ctl" -D "$d/data" -m immediate -w stop >/dev/null 2>&1; rm -rf "$d"' EXIT
$as "$PG_BIN/initdb" -D "$d/data" -A trust -U bt --no-sync >/dev/null
$as "$PG_BIN/pg_ctl" -D "$d/data" -l "$d/log" -w -o "-k $d -c listen_addresses=" start >/dev/null
export BUILDTRAIL_STORE="host=$d dbname=postgres user=bt"
sql() { psql -X -q -At -h "$d" -U bt -d postgres -c "$1"; }
"$bt" store init >/dev/null
size() { sql "CHECKPOINT" >/dev/null; sql "SELECT pg_database_size('postgres')"; }
printf '%-22s %10s %8s %8s %8s %12s %9s %9s\n' trace trace_MiB read_s sent_s total_s grew_MiB closure processes
first=$1
for t in "$@"; do
    before=$(size)
    s0=$(date +%s.%N)
    out=$("$bt" store push --allow-incomplete -d "$t" --json)
    s1=$(date +%s.%N)
    after=$(size)
    set -- $(printf '%s' "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["read_seconds"], d["send_seconds"], d["rows"]["closure"], d["rows"]["process"])') "$@"
    read_s=$1 sent_s=$2 rows="$3 $4"; shift 4
    printf '%-22s %10.1f %8s %8s %8.2f %12.1f %9s %9s\n' "$(basename "$t")" \
        "$(echo "$(stat -c %s "$t") / 1048576" | bc -l)" "$read_s" "$sent_s" \
        "$(echo "$s1 - $s0" | bc -l)" "$(echo "($after - $before) / 1048576" | bc -l)" $rows
done
s0=$(date +%s.%N); "$bt" store push --allow-incomplete -d "$first" >/dev/null; s1=$(date +%s.%N)
echo "push again (nothing added): $(echo "$s1 - $s0" | bc -l) s"
for q in "who-ships sha256:$(sql "SELECT encode(sha256,'hex') FROM content c JOIN version v ON v.content_id = c.id JOIN closure cl ON cl.build_id = v.build_id AND cl.vid = v.vid WHERE cl.role = 'header' LIMIT 1")" "uses libc6-dev"; do
    s0=$(date +%s.%N); "$bt" store $q >/dev/null || true; s1=$(date +%s.%N)
    echo "store $q: $(echo "$s1 - $s0" | bc -l) s"
done
sql "SELECT relname, pg_size_pretty(pg_total_relation_size(oid)) FROM pg_class WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace ORDER BY pg_total_relation_size(oid) DESC"
