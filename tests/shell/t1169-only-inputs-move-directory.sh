#!/bin/sh
# run --only-inputs: a directory that existed before the build cannot be renamed (EXDEV, so
# mv copies what the build sees of it), because the gate judges by path: moved into a declared
# DIR/, what it held that was hidden showed there — a stale directory taken over with mkdir,
# or a directory shown only on the way to a declared file.  A directory the build made moves
# as natively.  The hidden files stay where they were.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd python3
mkdir -p "$T/ws/stale" "$T/ws/inc" "$T/ws/src" && cd "$T/ws"
echo STALE-SECRET > stale/secret
echo '#define D 1' > inc/decl.h
echo INC-SECRET > inc/undecl.h
echo 'int x;' > src/x.c
printf 'src/\ninc/decl.h\n' > M
out=$(bt run -q -o "$T/t.db" --only-inputs M -- sh -c '
    mkdir stale && mv stale src/ 2>/dev/null; cat src/stale/secret 2>/dev/null
    mv inc src/ 2>/dev/null; cat src/inc/undecl.h 2>/dev/null; echo "COPIED $(cat src/inc/decl.h)"
    python3 -c "
import os
try:
    os.rename(\"inc\", \"src/inc2\")
except OSError as e:
    print(\"RENAME\", e.errno)"
    mkdir made && echo mine > made/f && mv made src/ && echo "MADE $(cat src/made/f)"' 2>&1) ||
    fail "the build failed: $out"
case $out in *SECRET*) fail "a hidden file was shown through a moved directory: $out" ;; esac
assert_contains "$out" "COPIED #define D 1" "mv copies what the build sees"
assert_contains "$out" "RENAME 18" "rename(2) of a pre-existing directory: EXDEV"
assert_contains "$out" "MADE mine" "a directory the build made moves"
assert_eq "$(cat stale/secret)" STALE-SECRET "the stale file afterwards"
assert_eq "$(cat inc/undecl.h)" INC-SECRET "the undeclared header afterwards"
assert_no_leftovers
