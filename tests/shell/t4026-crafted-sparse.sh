#!/bin/sh
# A sparse file is not a big trace: the sample's trace grown to 2 TiB by `truncate` (a few
# KiB on disk, and SQLite told to count pages from the file's size), with a file id of 10^12,
# is refused as damaged within 20 s and 1 GiB.  An id was allowed up to the file's size in
# bytes, so the arrays sized by it (export spdx, copies) asked for terabytes and aborted.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd truncate
require_cmd dd
. "$(dirname "$0")/crafted.sh"
record_sample
craft sparse "UPDATE files SET id = 1000000000000 WHERE id = (SELECT MAX(id) FROM files)"
# "version-valid-for" (offset 92) unlike the change counter: SQLite then takes the number of
# pages from the file's size, not from the header.
printf '\377\377\377\377' | dd of="$T/sparse.db" bs=1 seek=92 conv=notrunc 2> /dev/null ||
    fail "editing the header"
truncate -s 2T "$T/sparse.db" 2> /dev/null || { say "no 2 TiB sparse file here"; exit 77; }
[ "$(sqlite3 "$T/sparse.db" "PRAGMA page_count")" -gt 1000000000 ] ||
    fail "SQLite does not count the sparse pages: the test proves nothing"
refuses "$T/sparse.db" "export spdx" export --format spdx
assert_contains "$(cat "$T/err")" "that no trace of its size has" "export spdx"
refuses "$T/sparse.db" copies copies
every_query answers_or_refuses "$T/sparse.db"
rm -f "$T/sparse.db"
echo ok
