#!/bin/sh
# The trace is readable by its owner only (it holds names, sizes and hashes of every file the
# build read), whatever the umask; --output-mode gives another mode.
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir "$T/ws" && cd "$T/ws"
umask 022
bt run -- sh -c 'echo x > x.txt; sleep 0.3'
assert_eq "$(stat -c %a buildtrail.db)" 600 "mode of a new trace"
bt run -- sh -c 'ls -l /proc/self/fd >/dev/null; sleep 0.5' &
pid=$!
wait_until 5 test -e buildtrail.db-wal
[ -e buildtrail.db-wal ] && assert_eq "$(stat -c %a buildtrail.db-wal)" 600 "mode of the trace's WAL"
wait $pid
bt run --output-mode 0644 -o shared.db -- true
assert_eq "$(stat -c %a shared.db)" 644 "mode with --output-mode 0644"
set +e; err=$(bt run --output-mode 999 -- true 2>&1); st=$?; set -e
assert_eq "$st" 2 "exit status of a bad --output-mode"
assert_contains "$err" "--output-mode '999' is not a file mode" "message"
bt run --help | grep -q -- "--output-mode" || fail "run --help does not mention --output-mode"
assert_no_leftovers
