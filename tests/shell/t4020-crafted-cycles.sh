#!/bin/sh
# A trace whose links go round is refused, never followed forever: a process that is its own
# parent, a root whose parent is a later process (every ancestor walk meets it), an exec chain
# that loops, a version written on itself or on a later version.  Every query (show, who-wrote,
# who-read, tree, inputs, log, the exports, info) ends within 20 s and 1 GiB with one line
# saying the trace is damaged, or (for a query that never meets the loop) an answer; the ones
# that must walk the loop refuse.
. "$(dirname "$0")/lib.sh"
require_fuse
. "$(dirname "$0")/crafted.sh"
record_sample
max=$(sqlite3 "$T/good.db" "SELECT MAX(id) FROM processes")
prev=$(sqlite3 "$T/good.db" "SELECT prev_image_id FROM processes WHERE id = $w")
[ -n "$prev" ] || fail "the writer of hello ($w) exec'd from nothing"

craft selfparent "UPDATE processes SET parent_id = id WHERE id = $w"
craft rootcycle "UPDATE processes SET parent_id = $max WHERE parent_id IS NULL"
craft imagecycle "UPDATE processes SET prev_image_id = $w WHERE id = $prev"
craft selfimage "UPDATE processes SET prev_image_id = id WHERE id = $w"
for db in selfparent rootcycle imagecycle selfimage; do
    say "$db"
    every_query answers_or_refuses "$T/$db.db"
    # Each of these walks the loop (the writer's ancestors, the whole tree, its images).
    case $db in *parent|rootcycle) refuses "$T/$db.db" who-wrote who-wrote "$T/s/hello" ;; esac
    refuses "$T/$db.db" tree tree
    refuses "$T/$db.db" "show $w" show "$w"
    refuses "$T/$db.db" "export compile-commands" export --format compile-commands
done

# Versions: every version based on the last one, and the last on the first.
vmax=$(sqlite3 "$T/good.db" "SELECT MAX(id) FROM versions")
craft basecycle "UPDATE versions SET base_id = $vmax WHERE id < $vmax" \
    "UPDATE versions SET base_id = 1 WHERE id = $vmax"
craft selfbase "UPDATE versions SET base_id = id"
for db in basecycle selfbase; do
    say "$db"
    every_query answers_or_refuses "$T/$db.db"
    refuses "$T/$db.db" inputs inputs "$T/s/hello"
    refuses "$T/$db.db" "export prov" export --format prov
done
assert_contains "$(cat "$T/err")" "not an earlier version" "the refusal says what is wrong"
echo ok
