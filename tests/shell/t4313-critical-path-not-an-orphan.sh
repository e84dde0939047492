#!/bin/sh
# critical-path and report explain the build's command, not an orphan: a process the trace
# saw without its parent (/proc-only mode sees a daemon the build left only once reparented:
# parent NULL, orphan 1) that ended after the build.  The path started at the parentless task
# that ended last, so it explained the daemon ("[3] setsid sh -c ..."), with its wall time.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd python3
. "$(dirname "$0")/crafted.sh"
record_sample
root=$(sqlite3 "$T/good.db" "SELECT root_process_id FROM runs")
[ -n "$root" ] || fail "no root process in the sample's trace"
craft orphan "INSERT INTO processes (id, pid, start_ticks, parent_id, orphan, start_ns, first_seen_ns, comm, exe, cwd, argv)
    SELECT MAX(id) + 1, 4242, 1, NULL, 1, (SELECT start_ns FROM processes WHERE id = $root) + 1000,
           (SELECT start_ns FROM processes WHERE id = $root) + 1000, 'daemon', '/usr/bin/daemon', '/', CAST('daemon' AS BLOB)
    FROM processes" \
    "INSERT INTO exits (process_id, end_ns, exit_code, exit_signal, killed_at_end)
    SELECT MAX(id), (SELECT end_ns FROM exits WHERE process_id = $root) + 60000000000, NULL, 9, 1 FROM processes"
bt critical-path -d "$T/good.db" --json > "$T/good.json" 2> "$T/err" || fail "critical-path: $(cat "$T/err")"
bt critical-path -d "$T/orphan.db" --json > "$T/orphan.json" 2> "$T/err" || fail "critical-path: $(cat "$T/err")"
python3 - "$T/good.json" "$T/orphan.json" <<'PY' || fail "the orphan set the critical path"
import json, sys
good, orph = (json.load(open(p)) for p in sys.argv[1:3])
ids = lambda d: [s["process"]["id"] for s in d["steps"]]
assert "daemon" not in json.dumps(orph["steps"]), ids(orph)
assert orph["wall_ns"] == good["wall_ns"], (orph["wall_ns"], good["wall_ns"])
assert ids(orph) == ids(good), (ids(orph), ids(good))
PY
bt report -d "$T/orphan.db" -o "$T/r.html" 2> "$T/err" || fail "report: $(cat "$T/err")"
wall=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["wall_ns"] // 1000)' "$T/good.json")
grep -q "\"wall\":$wall," "$T/r.html" || fail "the report's wall time is not the build's ($wall us)"
echo ok
