#!/bin/sh
# run --only-inputs with an empty manifest (comments only): the build sees none of the files
# that existed before it, so make finds no makefile and the build fails; the first line on
# stderr is buildtrail's, saying that the manifest declares nothing and what that hides.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd make
mkdir "$T/ws" && cd "$T/ws"
printf 'all:\n\t@echo built\n' > Makefile
printf '# nothing declared\n\n' > EMPTY
set +e
bt run -q -o "$T/t.db" --only-inputs EMPTY -- make > "$T/out" 2> "$T/err"
st=$?
set -e
[ "$st" != 0 ] || fail "the build succeeded with nothing declared: $(cat "$T/out" "$T/err")"
first=$(head -n 1 "$T/err")
assert_contains "$first" "buildtrail run: warning: --only-inputs declares no file" "the first error"
assert_contains "$first" "$T/ws" "the first error names the directory"
assert_contains "$(cat "$T/err")" "No targets specified and no makefile found" "make's own error"
# The same with the Makefile declared builds.
echo Makefile > M
out=$(bt run -q -o "$T/t2.db" --only-inputs M -- make 2>&1) || fail "declared: $out"
assert_contains "$out" "built" "the declared build"
assert_no_leftovers
