#!/bin/sh
# repro -o LINK (a symbolic link to an empty directory): refused on one line that says it is a
# link and what to give instead (it said "not a directory"), exit 2, nothing made.
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir -p "$T/proj" "$T/empty"
ln -s empty "$T/lnk"
cd "$T/proj"
set +e; bt repro -o "$T/lnk" -- true 2>"$T/err"; st=$?; set -e
[ "$st" = 2 ] || fail "exit $st: $(cat "$T/err")"
[ "$(wc -l < "$T/err")" = 1 ] || fail "one line: $(cat "$T/err")"
assert_contains "$(cat "$T/err")" "is a symbolic link; give the directory itself" "the reason and the fix"
[ -z "$(ls -A "$T/empty")" ] || fail "nothing made through the link"
assert_no_leftovers
