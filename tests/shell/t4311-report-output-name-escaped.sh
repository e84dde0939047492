#!/bin/sh
# report -o NAME where NAME holds a line break and a terminal escape: every line report
# prints about it (wrote, not a report, a directory, cannot write) is one line with the
# name escaped, as every other command prints names.  report printed the name raw, so a
# name could forge a second "buildtrail report: ..." line or colour the terminal.
. "$(dirname "$0")/lib.sh"
require_fuse
cd "$T"
bt run -q -o "$T/t.db" -- true > "$T/build.log" 2>&1 || fail "run: $(cat "$T/build.log")"
forged_name report
bt report -d "$T/t.db" -o "$T/$name.html" 2> "$T/err" || fail "report: $(cat "$T/err")"
[ -s "$T/$name.html" ] || fail "no report written under the odd name"
assert_one_escaped_line report wrote
echo 'not a report' > "$T/$name.txt"
! bt report -d "$T/t.db" -o "$T/$name.txt" 2> "$T/err" || fail "a file no report made was replaced"
assert_one_escaped_line report "not a report"
mkdir "$T/$name.d"
! bt report -d "$T/t.db" -o "$T/$name.d" 2> "$T/err" || fail "a directory was accepted"
assert_one_escaped_line report directory
! bt report -d "$T/t.db" -o "$T/$name.none/r.html" 2> "$T/err" || fail "a missing directory was accepted"
assert_one_escaped_line report "cannot write"
ln -s "$name.loop" "$T/$name.loop"
! bt report -d "$T/t.db" -o "$T/$name.loop" 2> "$T/err" || fail "a link loop was accepted"
assert_one_escaped_line report "stat fails"
echo ok
