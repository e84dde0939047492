#!/bin/sh
# The CLI finds what was meant: 'buildtrail -d FILE QUERY' reads FILE as 'git -C' does; a
# mistyped command gets "did you mean"; a bad BUILDTRAIL_DB is named in its error; option
# errors are one line "buildtrail CMD: what; the fix" (with the options it may have meant),
# never getopt's "invalid option -- 'x'".
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd python3
cp -r "$SAMPLE" "$T/s" && cd "$T/s"
bt run -q -- make -j2 > "$T/build.log" 2>&1 || fail "sample build: $(cat "$T/build.log")"
mkdir "$T/elsewhere" && cd "$T/elsewhere"
# A trace named before the command, as git -C.
out=$(bt -d "$T/s/buildtrail.db" who-wrote "$T/s/hello") || fail "buildtrail -d FILE who-wrote failed"
assert_contains "$out" "written by [" "buildtrail -d FILE who-wrote"
bt --db="$T/s/buildtrail.db" info > /dev/null || fail "buildtrail --db=FILE info"
bt -d "$T/s/buildtrail.db" tree -d "$T/s/buildtrail.db" > /dev/null || fail "-d before and after"
one_line_error bt -d "$T/s/buildtrail.db" run -- true
assert_eq "$st" 2 "-d before run"
assert_contains "$e" "'buildtrail run -o FILE' names the trace it writes" "-d before run"
one_line_error bt -d
assert_contains "$e" "-d needs a trace FILE" "-d alone"
cd "$T/s"
# Mistyped commands.
one_line_error bt rnu -- true
assert_eq "$st" 2 "exit status of a mistyped command"
assert_contains "$e" "'rnu' is not a command; did you mean 'buildtrail run'?" "rnu"
one_line_error bt who
assert_contains "$e" "did you mean 'buildtrail who-wrote' or 'buildtrail who-read'?" "who"
one_line_error bt help infp
assert_contains "$e" "did you mean 'buildtrail info'?" "help infp"
# BUILDTRAIL_DB named in its errors.
one_line_error env BUILDTRAIL_DB="$T/nope.db" "$BUILDTRAIL" info
assert_contains "$e" "BUILDTRAIL_DB=$T/nope.db: No such file or directory; set BUILDTRAIL_DB to a trace" "BUILDTRAIL_DB missing"
one_line_error env BUILDTRAIL_DB="$T" "$BUILDTRAIL" tree
assert_contains "$e" "BUILDTRAIL_DB=$T: not a buildtrail trace" "BUILDTRAIL_DB a directory"
# Option errors.
one_line_error bt info -x
assert_eq "$st" 2 "exit status of an option error"
assert_contains "$e" "buildtrail info: unknown option '-x'; see 'buildtrail info --help'" "-x"
one_line_error bt info --json -xq
assert_contains "$e" "buildtrail info: unknown option '-x'" "-x inside a cluster after a long option"
one_line_error bt info --no-pager -d
assert_contains "$e" "option '-d' needs a value" "-d at the end after a long option"
one_line_error bt who-read --jsn hello
assert_contains "$e" "unknown option '--jsn'; did you mean --json?" "--jsn"
one_line_error bt info --json=yes
assert_contains "$e" "option '--json' takes no value" "--json=yes"
one_line_error bt info --db
assert_contains "$e" "option '--db' needs a value" "--db"
one_line_error bt tree -d
assert_contains "$e" "option '-d' needs a value" "-d"
one_line_error bt inputs --no hello
assert_contains "$e" "ambiguous option '--no'; did you mean one of --no-pager, --no-scripts?" "--no"
assert_no_leftovers
