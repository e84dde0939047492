#!/bin/sh
# repro's bad input gets one line naming the thing and the fix, exit 2, and leaves nothing
# behind (no output directory made, none touched): no command, -o naming a non-empty directory
# or a file, -o inside the tree or empty (''), an unknown variation, an option repro does not know.  A build
# that fails is exit 2 too, naming its log.  Without -o, the new directory beside the tree is
# named on stderr.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/repro.sh"
require_fuse
require_cmd make
mkdir -p "$T/proj" "$T/full"
echo 'all:; echo hi > x' > "$T/proj/Makefile"
echo keep > "$T/full/f"
echo keep > "$T/file"
cd "$T/proj"
snapshot() { (cd "$T" && find . -path ./tmpdir -prune -o -print | sort; cat full/f file); }
before=$(snapshot)
bad() { # WHAT EXPECTED-TEXT ARGS...
    what=$1 want=$2; shift 2
    set +e; err=$(bt repro "$@" 2>&1 >/dev/null); st=$?; set -e
    [ "$st" = 2 ] || fail "$what: exit $st: $err"
    [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] || fail "$what: one line: $err"
    assert_contains "$err" "$want" "$what"
    [ "$(snapshot)" = "$before" ] || fail "$what: something was left or changed: $(snapshot)"
}
bad "no command" "no command given; e.g. 'buildtrail repro -- make'"
bad "no command after --" "no command given" -o "$T/new" --
bad "a non-empty directory" "-o $T/full is not empty; give a new or empty directory" -o "$T/full" -- make
bad "a file" "-o $T/file is not a directory; give a new or empty directory" -o "$T/file" -- make
bad "inside the tree" "is inside the source tree" -o "$T/proj/out" -- make
bad "an empty -o" "-o '' names no directory; give a new or empty directory" -o "" -- make
bad "an unknown variation" "--vary " --vary umask,hostname -- make
assert_contains "$err" "'hostname'; give a comma-separated list of" "the unknown variation named"
bad "an unknown option" "--frobnicate: not an option of repro" --frobnicate -- make
# a build that fails: exit 2, its log named, the copies kept
set +e; err=$(bt repro --vary umask -o "$T/o" -- false 2>&1 >/dev/null); st=$?; set -e
[ "$st" = 2 ] || fail "a failing build: exit $st: $err"
assert_contains "$err" "the control build failed (exit 1); its output is in $T/o/control.log" "the failed build"
# without -o: a new directory beside the tree, named
set +e; err=$(bt repro --vary umask -- make -s 2>&1 >/dev/null); st=$?; set -e
[ "$st" = 0 ] || fail "default directory: exit $st: $err"
assert_contains "$err" "go to $T/proj.repro" "the default directory named"
[ -f "$T/proj.repro/experiment/proj/x" ] || fail "the default directory holds the copies"
set +e; err=$(bt repro --vary umask -- make -s 2>&1 >/dev/null); st=$?; set -e
assert_contains "$err" "go to $T/proj.repro-2" "the next default directory: a new one"
assert_no_leftovers
