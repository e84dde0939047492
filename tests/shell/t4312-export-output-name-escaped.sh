#!/bin/sh
# export -o NAME (and --append) where NAME holds a line break and a terminal escape: the one
# line export prints about it (cannot write, cannot read, not a compilation database) names it
# escaped, as every other command prints names.  export printed it raw: a name could forge
# a second "buildtrail export: ..." line or colour the terminal.
. "$(dirname "$0")/lib.sh"
require_fuse
cd "$T"
bt run -q -o "$T/t.db" -- true > "$T/build.log" 2>&1 || fail "run: $(cat "$T/build.log")"
nl='
'
esc=$(printf '\033')
name="a${nl}buildtrail export: forged${esc}[31m"
one_line() { # LABEL: $T/err is one line, no ESC byte, no forged line
    [ "$(wc -l < "$T/err")" = 1 ] || fail "$1: not one line: $(cat "$T/err")"
    ! grep -q "$esc" "$T/err" || fail "$1: a raw escape byte on stderr"
    ! grep -q '^buildtrail export: forged' "$T/err" || fail "$1: a forged line"
}
! bt export -d "$T/t.db" --format dot -o "$T/$name.none/x.dot" 2> "$T/err" ||
    fail "a missing directory was accepted"
one_line "cannot write"
echo 'not json' > "$T/$name.json"
! bt export -d "$T/t.db" --format compile-commands --append -o "$T/$name.json" 2> "$T/err" ||
    fail "--append onto a file that is no compilation database"
one_line "--append: not a database"
mkdir "$T/$name.d"
! bt export -d "$T/t.db" --format compile-commands --append -o "$T/$name.d" 2> "$T/err" ||
    fail "--append onto a directory"
one_line "--append: a directory"
echo ok
