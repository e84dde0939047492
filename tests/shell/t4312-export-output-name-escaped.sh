#!/bin/sh
# export -o NAME (and --append) where NAME holds a line break and a terminal escape: the one
# line export prints about it (cannot write, cannot read, not a compilation database) names it
# escaped, as every other command prints names.  export printed it raw: a name could forge
# a second "buildtrail export: ..." line or colour the terminal.
. "$(dirname "$0")/lib.sh"
require_fuse
cd "$T"
bt run -q -o "$T/t.db" -- true > "$T/build.log" 2>&1 || fail "run: $(cat "$T/build.log")"
forged_name export
! bt export -d "$T/t.db" --format dot -o "$T/$name.none/x.dot" 2> "$T/err" ||
    fail "a missing directory was accepted"
assert_one_escaped_line export "cannot write"
echo 'not json' > "$T/$name.json"
! bt export -d "$T/t.db" --format compile-commands --append -o "$T/$name.json" 2> "$T/err" ||
    fail "--append onto a file that is no compilation database"
assert_one_escaped_line export "--append: not a database"
mkdir "$T/$name.d"
! bt export -d "$T/t.db" --format compile-commands --append -o "$T/$name.d" 2> "$T/err" ||
    fail "--append onto a directory"
assert_one_escaped_line export "--append: a directory"
echo ok
