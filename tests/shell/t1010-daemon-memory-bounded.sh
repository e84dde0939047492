#!/bin/sh
# The daemon's memory is bounded by what is live, not by how many processes the build ran:
# 1500 processes, each with its own 16 KiB argument and 16 KiB environment variable (48 MiB
# of argv and environment in all), leave its peak RSS (runs.notes daemon_maxrss_kb) far below
# that.  The daemon used to keep every environment's text (to number the distinct ones) and
# every process's argv and program path until the end.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd python3
# A sanitizer keeps freed memory in quarantine: RSS says nothing about what is held.
[ -z "${ASAN_OPTIONS:-}" ] || skip "RSS is not meaningful under AddressSanitizer"
mkdir "$T/ws" && cd "$T/ws"
cat > many.sh <<'SH'
pad=$(head -c 16384 /dev/zero | tr '\0' x)
i=0
while [ $i -lt 1500 ]; do
    BT_BIG="$i$pad" /bin/true "$i$pad"
    i=$((i + 1))
done
SH
bt run -q -- sh many.sh || fail "the build failed"
kb=$(python3 -c '
import re, sqlite3, sys
notes = sqlite3.connect("buildtrail.db").execute("SELECT notes FROM runs").fetchone()[0]
print(re.search(r"daemon_maxrss_kb=(\d+)", notes).group(1))')
n=$(bt info --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["counts"]["processes"])')
[ "$n" -ge 1500 ] || fail "only $n processes recorded"
say "daemon peak RSS: $kb KiB for $n processes"
[ "$kb" -lt 32768 ] || fail "the daemon's peak RSS grew with the build: $kb KiB for $n processes"
assert_no_leftovers
