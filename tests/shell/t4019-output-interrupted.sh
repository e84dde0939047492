#!/bin/sh
# An export ended by a signal before it is written (Ctrl-C, kill, a file size limit) leaves
# no temporary file beside its -o, and the file it was to replace keeps its old content;
# the process still ends by that signal.  (Once NAME.XXXXXX stayed behind.)
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir "$T/ws" "$T/out" && cd "$T/ws"
bt run -q -- sh -c 'for i in $(seq 2000); do echo $i > f$i; done'
echo old > "$T/out/x.sql"
# A file size limit (ulimit -f, 512-byte blocks) the export passes: SIGXFSZ ends it mid-write,
# every time.
set +e
(ulimit -f 4 && exec "$BUILDTRAIL" export --format sql -o "$T/out/x.sql") 2> "$T/err"
st=$?
set -e
[ "$st" -gt 128 ] || fail "the export was not ended by SIGXFSZ: exit $st: $(cat "$T/err")"
assert_eq "$(ls -A "$T/out")" "x.sql" "what is in -o's directory after SIGXFSZ"
assert_eq "$(cat "$T/out/x.sql")" "old" "the replaced file's content after SIGXFSZ"
# SIGTERM (kill; Ctrl-C's SIGINT takes the same path, but a background job of a script
# ignores SIGINT), at whatever point the export has reached.
for delay in 0.01 0.02 0.03 0.05 0.1 0.2; do
    set +e
    "$BUILDTRAIL" export --format slsa -o "$T/out/y.json" &
    pid=$!
    sleep "$delay"
    kill -TERM "$pid" 2>/dev/null
    wait "$pid"
    set -e
    left=$(ls -A "$T/out" | grep -v '^\(x\.sql\|y\.json\)$' || true)
    [ -z "$left" ] || fail "SIGTERM after ${delay}s left: $left"
done
assert_no_leftovers
