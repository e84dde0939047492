#!/bin/sh
# store: a server that accepts a connection but never answers (here: its postmaster stopped
# with SIGSTOP; a hung or overloaded host does the same) is one line after a bounded wait, not
# a command that waits forever.  An explicit connect_timeout or $PGCONNECT_TIMEOUT is kept.
. "$(dirname "$0")/lib.sh"
require_postgres
start_store
bt store init > /dev/null
pm=$(head -n 1 "$pg/data/postmaster.pid")
kill -STOP "$pm"
set +e
start=$(date +%s)
# The default bound (20 s) is waited for once, in the strict build's root variant: the other
# three runs of this test check the same bound set by the variable and the string.
if [ "${BT_VARIANT:-}" = user ] || [ -n "${BT_SANITIZED:-}" ]; then
    PGCONNECT_TIMEOUT=2 timeout 90 "$BUILDTRAIL" store list > "$T/out" 2> "$T/err"
else
    timeout 90 "$BUILDTRAIL" store list > "$T/out" 2> "$T/err"
fi
st=$?
took=$(($(date +%s) - start))
PGCONNECT_TIMEOUT=2 timeout 90 "$BUILDTRAIL" store list > /dev/null 2> "$T/err2"
st2=$?
timeout 90 "$BUILDTRAIL" store list --store "$BUILDTRAIL_STORE connect_timeout=3" > /dev/null 2> "$T/err3"
st3=$?
set -e
kill -CONT "$pm"
[ "$st" != 124 ] || fail "store list waited 90 s for a server that does not answer"
assert_eq "$st" 1 "exit status against a hung server (after $took s)"
[ "$(wc -l < "$T/err")" = 1 ] || fail "not one line: $(cat "$T/err")"
assert_contains "$(cat "$T/err")" "cannot connect to the store named by \$BUILDTRAIL_STORE" "the line"
assert_eq "$st2" 1 "with \$PGCONNECT_TIMEOUT"
assert_eq "$st3" 1 "with connect_timeout in the connection string"
bt store list > /dev/null || fail "the server answers again"
