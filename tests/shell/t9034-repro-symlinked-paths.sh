#!/bin/sh
# repro run from a directory reached through a symbolic link builds the real tree (cp -a
# copied the link itself, and the build could not even start); -o through a link into the
# tree is refused before anything is made; run from / it refuses, one line, exit 2.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd make
mkdir -p "$T/real"
printf 'all:\n\techo hi > out\n' > "$T/real/Makefile"
ln -s real "$T/link"
cd "$T/link"
set +e; out=$(bt repro -o "$T/o1" -- make -s 2>"$T/err"); st=$?; set -e
[ "$st" = 0 ] || fail "from a linked cwd: exit $st: $out $(cat "$T/err")"
[ -f "$T/o1/control/real/out" ] || fail "the real tree built: $(ls -R "$T/o1")"
# -o through a link into the source tree
cd "$T/real"
set +e; bt repro -o "$T/link/o2" -- make -s 2>"$T/err"; st=$?; set -e
[ "$st" = 2 ] || fail "-o into the tree through a link: exit $st: $(cat "$T/err")"
assert_contains "$(cat "$T/err")" "inside the source tree" "the reason"
[ ! -e "$T/real/o2" ] || fail "nothing made in the tree"
# from /
cd /
set +e; bt repro -o "$T/o3" -- true 2>"$T/err"; st=$?; set -e
[ "$st" = 2 ] || fail "from /: exit $st"
[ "$(wc -l < "$T/err")" = 1 ] || fail "one line: $(cat "$T/err")"
assert_contains "$(cat "$T/err")" "cd into the source tree" "the fix"
[ ! -e "$T/o3" ] || fail "nothing made from /"
cd "$T"
assert_no_leftovers
