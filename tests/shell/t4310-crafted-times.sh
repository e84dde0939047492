#!/bin/sh
# Times no clock gives: a process that started 292 years before the machine booted and
# ended 292 years after it (start_ns and end_ns at the ends of int64), or a run row so.
# critical-path, report, chrome-trace and show subtracted them (end - start overflowed:
# undefined behaviour, UBSan stopped them; without it critical-path printed a build of
# "-0.000 s").  The recorder writes CLOCK_MONOTONIC nanoseconds: a time below 0 or above
# QDB_TIME_MAX (2^62 ns, 146 years of uptime) is damage, one line, as other crafted rows.
. "$(dirname "$0")/lib.sh"
require_fuse
. "$(dirname "$0")/crafted.sh"
record_sample
craft negstart "UPDATE processes SET start_ns = -9223372036854775803 WHERE id = 1" \
    "UPDATE exits SET end_ns = 9223372036854775807 WHERE process_id = 1"
craft hugeend "UPDATE exits SET end_ns = 9223372036854775807 WHERE process_id = $w"
craft runtimes "UPDATE runs SET start_ns = -9223372036854775803, end_ns = 9223372036854775807"
for db in negstart hugeend runtimes; do
    say "$db"
    refuses "$T/$db.db" critical-path critical-path
    refuses "$T/$db.db" "critical-path --json" critical-path --json
    refuses "$T/$db.db" report report -o -
    refuses "$T/$db.db" chrome-trace export --format chrome-trace
    refuses "$T/$db.db" show show "$w"
    assert_contains "$(cat "$T/err")" "a time no clock gives" "$db"
done
echo ok
