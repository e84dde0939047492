#!/bin/sh
# A process tree as deep as a trace can hold (100 000 processes, each the child of the one
# before) is answered within 20 s and 1 GiB, not a crash or a quadratic wait: tree (text and
# JSON) walks it with a stack of its own and stops indenting, chrome-trace gives out its
# 100 000 overlapping lanes from heaps.
. "$(dirname "$0")/lib.sh"
require_fuse
. "$(dirname "$0")/crafted.sh"
record_sample
max=$(sqlite3 "$T/good.db" "SELECT MAX(id) FROM processes")
last=$((max + 100000))
craft deep "WITH RECURSIVE r(n) AS (SELECT $max + 1 UNION ALL SELECT n + 1 FROM r WHERE n < $last)
    INSERT INTO processes (id, pid, start_ticks, exec_seq, parent_id, prev_image_id, orphan,
    start_ns, first_seen_ns, comm, exe, cwd, argv) SELECT n, n, n, 0, n - 1, NULL, 0, 1, 1,
    'sh', '/bin/sh', '/', X'736800' FROM r"
every_query answers_or_refuses "$T/deep.db"
for q in tree "tree --json" "export --format chrome-trace" "show $last" log; do
    bounded $q -d "$T/deep.db"
    [ "$st" = 0 ] || fail "$q on a deep tree: exit $st: $(head -c 300 "$T/err")"
done
bounded tree -d "$T/deep.db"
tail -1 "$T/out" | grep -Eq "^ {128}\(level 1000[0-9][0-9]\) \[$last\] sh" ||
    fail "the deepest line does not say its level: $(tail -1 "$T/out" | cut -c120-)"
[ "$(wc -l < "$T/out")" -gt 100000 ] || fail "tree left processes out"
echo ok
