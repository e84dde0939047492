#!/bin/sh
# repro -o DIR, an empty directory the caller cannot write in: one line naming it, exit 2,
# before anything runs; never "the copies ... go to DIR" followed by "the copies are in DIR"
# (none were made).  Root writes anywhere: the unprivileged variant tests it.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" != 0 ] || skip "root can write in a directory of mode 0555"
require_fuse
mkdir "$T/p" "$T/ro"
printf 'all:\n\techo hi > out.txt\n' > "$T/p/Makefile"
chmod 555 "$T/ro"
on_cleanup 'chmod 755 "$T/ro"'
cd "$T/p"
set +e; bt repro -o "$T/ro" -- make -s > "$T/out" 2> "$T/err"; st=$?; set -e
[ "$st" = 2 ] || fail "exit $st: $(cat "$T/out" "$T/err")"
assert_eq "$(wc -l < "$T/err")" 1 "one line: $(cat "$T/err")"
assert_contains "$(cat "$T/err")" "-o $T/ro: cannot write in it" "the directory named"
[ -z "$(ls "$T/ro")" ] || fail "something made in it"
cd "$T"
assert_no_leftovers
