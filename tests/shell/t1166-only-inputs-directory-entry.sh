#!/bin/sh
# run --only-inputs: a manifest line naming a directory without the trailing '/' (a clumsy
# 'src' for 'src/', a git submodule in `git ls-files`) declares the directory alone; the run
# says so before the build, naming it and the fix, because the build then found src/ empty
# with no word why.  'src/' declares what it holds, silently; a declared symlink to a
# directory (as git lists one, with the files it leads to) is no such mistake.
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir -p "$T/ws/src" "$T/ws/lib" && cd "$T/ws"
echo 'int a;' > src/a.c
echo 'int l;' > lib/l.c
ln -s lib lnk
printf 'src\nlib\nlnk\nlib/l.c\n' > M
bt run -q -o "$T/t.db" --only-inputs M -- sh -c 'ls src; cat lib/l.c' > "$T/out" 2> "$T/err" ||
    fail "the build failed: $(cat "$T/out" "$T/err")"
first=$(head -n 1 "$T/err")
assert_contains "$first" "buildtrail run: warning: --only-inputs M names the directory $T/ws/src (and 1 more) without a trailing '/': only the directory is declared, what it holds stays hidden; write DIR/ to declare its contents" "the warning"
assert_eq "$(grep -c 'names the directory' "$T/err")" 1 "one line: $(cat "$T/err")"
assert_eq "$(cat "$T/out")" "int l;" "src/ empty to the build, lib/l.c declared"
printf 'src/\nlnk\nlib/l.c\n' > M2
out=$(bt run -q -o "$T/t2.db" --only-inputs M2 -- cat src/a.c 2>&1) || fail "src/: $out"
assert_eq "$out" "int a;" "src/ declares its contents, without a warning"
assert_no_leftovers
