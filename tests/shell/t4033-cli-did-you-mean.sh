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
err() { # CMD...: run it, expecting exit 2 or 1; its stderr in $e, one line
    set +e; "$@" > "$T/out" 2> "$T/err"; st=$?; set -e
    [ "$st" != 0 ] || fail "$* succeeded"
    e=$(cat "$T/err")
    [ "$(wc -l < "$T/err")" = 1 ] || fail "$*: not one line: $e"
    case $e in "buildtrail"*) ;; *) fail "$*: not buildtrail's form: $e" ;; esac
    case $e in *"invalid option"*|*"unrecognized option"*|*"requires an argument"*|*"Try '"*)
        fail "$*: getopt's wording: $e" ;; esac
}
mkdir "$T/elsewhere" && cd "$T/elsewhere"
# A trace named before the command, as git -C.
out=$(bt -d "$T/s/buildtrail.db" who-wrote "$T/s/hello") || fail "buildtrail -d FILE who-wrote failed"
assert_contains "$out" "written by [" "buildtrail -d FILE who-wrote"
bt --db="$T/s/buildtrail.db" info > /dev/null || fail "buildtrail --db=FILE info"
bt -d "$T/s/buildtrail.db" tree -d "$T/s/buildtrail.db" > /dev/null || fail "-d before and after"
err bt -d "$T/s/buildtrail.db" run -- true
assert_eq "$st" 2 "-d before run"
assert_contains "$e" "'buildtrail run -o FILE' names the trace it writes" "-d before run"
err bt -d
assert_contains "$e" "-d needs a trace FILE" "-d alone"
cd "$T/s"
# Mistyped commands.
err bt rnu -- true
assert_eq "$st" 2 "exit status of a mistyped command"
assert_contains "$e" "'rnu' is not a command; did you mean 'buildtrail run'?" "rnu"
err bt who
assert_contains "$e" "did you mean 'buildtrail who-wrote' or 'buildtrail who-read'?" "who"
err bt help infp
assert_contains "$e" "did you mean 'buildtrail info'?" "help infp"
# BUILDTRAIL_DB named in its errors.
err env BUILDTRAIL_DB="$T/nope.db" "$BUILDTRAIL" info
assert_contains "$e" "BUILDTRAIL_DB=$T/nope.db: No such file or directory; set BUILDTRAIL_DB to a trace" "BUILDTRAIL_DB missing"
err env BUILDTRAIL_DB="$T" "$BUILDTRAIL" tree
assert_contains "$e" "BUILDTRAIL_DB=$T: not a buildtrail trace" "BUILDTRAIL_DB a directory"
# Option errors.
err bt info -x
assert_eq "$st" 2 "exit status of an option error"
assert_contains "$e" "buildtrail info: unknown option '-x'; see 'buildtrail info --help'" "-x"
err bt who-read --jsn hello
assert_contains "$e" "unknown option '--jsn'; did you mean --json?" "--jsn"
err bt info --json=yes
assert_contains "$e" "option '--json' takes no value" "--json=yes"
err bt info --db
assert_contains "$e" "option '--db' needs a value" "--db"
err bt tree -d
assert_contains "$e" "option '-d' needs a value" "-d"
err bt inputs --no hello
assert_contains "$e" "ambiguous option '--no'; did you mean one of --no-pager, --no-scripts?" "--no"
assert_no_leftovers
