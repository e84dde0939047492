#!/bin/sh
# A path the build never touched gets the traced paths of that name, and a relative path
# asked elsewhere (-d naming the trace of another tree) the path where the build ran; one
# line, exit 1.  (The bundled sample.)
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd python3
cp -r "$SAMPLE" "$T/s" && cd "$T/s"
bt run -q -- make -j2 > "$T/build.log" 2>&1 || fail "sample build: $(cat "$T/build.log")"
# A name alone: the traced paths with that name.
one_line_error bt who-wrote greet.c
assert_eq "$st" 1 "exit status"
assert_contains "$e" "never touched this path; did you mean src/greet.c?" "same-name hint"
one_line_error bt who-read greet.h
assert_contains "$e" "did you mean src/greet.h?" "who-read hint"
one_line_error bt inputs nothere.c
assert_contains "$e" "check the path, or list the files it touched with 'buildtrail files'" "no hint"
# Asked elsewhere with -d: relative to where the build ran.
mkdir "$T/elsewhere" && cd "$T/elsewhere"
one_line_error bt who-wrote -d "$T/s/buildtrail.db" src/greet.o
assert_contains "$e" "did you mean $T/s/src/greet.o? (a path is relative to where you ask; the build ran in $T/s)" "relative to the build"
assert_no_leftovers
