#!/bin/sh
# Values no recording makes are answered or refused within seconds, never loaded into all
# of memory: a 200 MB command line, environment or run command (no program can be given more
# than 6 MiB), an id near 2^63 where arrays are sized by the largest id, negative ids, an
# output chunk numbered at the end of the integers.  Every query ends within 20 s and 1 GiB.
. "$(dirname "$0")/lib.sh"
require_fuse
. "$(dirname "$0")/crafted.sh"
record_sample

check_sized() { # NAME SQL...: every query bounded, then the named ones refuse
    _n=$1; shift
    craft "$_n" "$@"
    say "$_n"
    every_query answers_or_refuses "$T/$_n.db"
}
big=200000000
check_sized bigargv "UPDATE processes SET argv = zeroblob($big) WHERE id = $w"
refuses "$T/bigargv.db" tree tree
assert_contains "$(cat "$T/err")" "longer than any buildtrail records" "bigargv"
refuses "$T/bigargv.db" who-wrote who-wrote "$T/s/hello"
rm -f "$T/bigargv.db"
check_sized bigenv "UPDATE environments SET env = zeroblob($big)"
refuses "$T/bigenv.db" "show --json" show --json "$w"
rm -f "$T/bigenv.db"
check_sized runargv "UPDATE runs SET argv = zeroblob($big)"
refuses "$T/runargv.db" info info
rm -f "$T/runargv.db"

max=$(sqlite3 "$T/good.db" "SELECT MAX(id) FROM processes")
check_sized bigprocess "UPDATE processes SET id = 9223372036854775807 WHERE id = $max"
refuses "$T/bigprocess.db" tree tree
refuses "$T/bigprocess.db" "export dot" export --format dot
vmax=$(sqlite3 "$T/good.db" "SELECT MAX(id) FROM versions")
check_sized bigversion "UPDATE versions SET id = 9223372036854775807 WHERE id = $vmax" \
    "UPDATE accesses SET version_id = 9223372036854775807 WHERE version_id = $vmax"
refuses "$T/bigversion.db" "export prov" export --format prov
check_sized bigfile "UPDATE files SET id = 9000000000000000000 WHERE id = (SELECT MAX(id) FROM files)"
refuses "$T/bigfile.db" "export spdx" export --format spdx
check_sized bigaccess "UPDATE accesses SET id = 9223372036854775807 WHERE id = (SELECT MAX(id) FROM accesses)"
check_sized negative "UPDATE processes SET parent_id = -5 WHERE id = $w" \
    "UPDATE accesses SET process_id = -9223372036854775808 WHERE id % 2 = 0" \
    "UPDATE output SET seq = -9223372036854775808 WHERE seq = (SELECT MIN(seq) FROM output)"
refuses "$T/negative.db" who-wrote who-wrote "$T/s/hello"
check_sized lastseq "UPDATE output SET seq = 9223372036854775807 WHERE seq = (SELECT MAX(seq) FROM output)"
echo ok
