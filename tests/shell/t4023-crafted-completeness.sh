#!/bin/sh
# A trace that claims to be complete but records no process, lacks its root process, or says
# something buildtrail never writes in runs.process_tree is not complete: a text answer says so
# on stderr, the JSON trace member has complete false, and what stands only on a complete
# trace (export spdx) refuses it.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd python3
. "$(dirname "$0")/crafted.sh"
record_sample
root=$(sqlite3 "$T/good.db" "SELECT root_process_id FROM runs")
craft noprocess "DELETE FROM processes"
craft noroot "DELETE FROM processes WHERE id = $root"
craft unrooted "UPDATE runs SET root_process_id = NULL"
craft oddtree "UPDATE runs SET process_tree = 'completed, trust me'"
for db in noprocess noroot unrooted oddtree; do
    say "$db"
    every_query answers_or_refuses "$T/$db.db"
    bounded tree -d "$T/$db.db"
    [ "$st" = 0 ] || fail "$db: tree failed: $(cat "$T/err")"
    assert_contains "$(cat "$T/err")" "is incomplete" "$db: tree's note"
    bounded tree --json -d "$T/$db.db"
    complete=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["trace"]["complete"])' "$T/out")
    assert_eq "$complete" False "$db: trace.complete"
    bounded export --format spdx -d "$T/$db.db"
    [ "$st" != 0 ] && [ ! -s "$T/out" ] || fail "$db: export spdx answered on an incomplete trace"
done
echo ok
