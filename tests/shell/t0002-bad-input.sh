#!/bin/sh
# Bad input: a clear one-line error naming the problem and the fix, a non-zero exit, and
# nothing mounted, running or left in the private directory afterwards.
. "$(dirname "$0")/lib.sh"
require_fuse
cd "$T"

one_line_error() { # STATUS-EXPECTED TEXT-EXPECTED -- COMMAND...
    want_status=$1; want_text=$2; shift 3
    set +e
    err=$("$@" 2>&1 >/dev/null); st=$?
    set -e
    [ "$st" = "$want_status" ] || fail "$*: exit $st, expected $want_status ($err)"
    assert_contains "$err" "$want_text" "$*"
    assert_eq "$(printf '%s\n' "$err" | wc -l)" 1 "$*: one line"
    assert_no_leftovers
}

# A --trace directory that does not exist.
one_line_error 125 "--trace $T/nope: No such file or directory; give an existing directory" -- \
    bt run --trace "$T/nope" -- true
# A trace path that cannot be written.
mkdir ro && chmod 555 ro
if [ "$(id -u)" != 0 ]; then
    one_line_error 125 "cannot write the trace $T/ro/x.db" -- bt run -o ro/x.db -- true
fi
one_line_error 125 "cannot write the trace $T/missing-dir/x.db" -- bt run -o missing-dir/x.db -- true
# An existing file that is not a trace is never overwritten.
echo precious > notes.txt
one_line_error 125 "exists and is not a buildtrail trace; remove it or choose another file with -o" -- \
    bt run -o notes.txt -- true
assert_eq "$(cat notes.txt)" precious "a non-trace file was overwritten"
# Queries on a missing database and on a file that is not a trace.
one_line_error 1 "no buildtrail.db in $T or any directory above it; record one with 'buildtrail run" -- bt tree
one_line_error 1 "not a buildtrail trace" -- bt tree -d notes.txt
sqlite3 other.db 'create table x(y); insert into x values (1);'
one_line_error 1 "not a buildtrail trace" -- bt who-wrote -d other.db foo
# A command that does not exist: like a shell, 127 and a message.
one_line_error 127 "cannot run 'no-such-program-$$': No such file or directory" -- \
    bt run -- "no-such-program-$$"
