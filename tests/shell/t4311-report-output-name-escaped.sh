#!/bin/sh
# report -o NAME where NAME holds a line break and a terminal escape: every line report
# prints about it (wrote, not a report, a directory, cannot write) is one line with the
# name escaped, as every other command prints names.  report printed the name raw, so a
# name could forge a second "buildtrail report: ..." line or colour the terminal.
. "$(dirname "$0")/lib.sh"
require_fuse
cd "$T"
bt run -q -o "$T/t.db" -- true > "$T/build.log" 2>&1 || fail "run: $(cat "$T/build.log")"
nl='
'
esc=$(printf '\033')
name="a${nl}buildtrail report: forged${esc}[31m"
one_line() { # LABEL: $T/err is one line, no ESC byte, no forged line
    [ "$(wc -l < "$T/err")" = 1 ] || fail "$1: not one line: $(cat "$T/err")"
    ! grep -q "$esc" "$T/err" || fail "$1: a raw escape byte on stderr"
    ! grep -q '^buildtrail report: forged' "$T/err" || fail "$1: a forged line"
}
bt report -d "$T/t.db" -o "$T/$name.html" 2> "$T/err" || fail "report: $(cat "$T/err")"
[ -s "$T/$name.html" ] || fail "no report written under the odd name"
one_line wrote
echo 'not a report' > "$T/$name.txt"
! bt report -d "$T/t.db" -o "$T/$name.txt" 2> "$T/err" || fail "a file no report made was replaced"
one_line "not a report"
mkdir "$T/$name.d"
! bt report -d "$T/t.db" -o "$T/$name.d" 2> "$T/err" || fail "a directory was accepted"
one_line directory
! bt report -d "$T/t.db" -o "$T/$name.none/r.html" 2> "$T/err" || fail "a missing directory was accepted"
one_line "cannot write"
ln -s "$name.loop" "$T/$name.loop"
! bt report -d "$T/t.db" -o "$T/$name.loop" 2> "$T/err" || fail "a link loop was accepted"
one_line "stat fails"
echo ok
