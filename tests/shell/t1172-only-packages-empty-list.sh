#!/bin/sh
# run --only-packages with a list that names no package ('' from an unset "$PKGS", or only
# separators) stops before anything runs — one line naming the fix, exit 2 — rather than
# building with the base set alone as though that were asked for.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd dpkg-query
mkdir "$T/ws" && cd "$T/ws"
for list in '' ' , ,' '
'; do
    one_line_error timeout 20 "$BUILDTRAIL" run -o "$T/t.db" --system --only-packages "$list" \
        -- touch "$T/ran"
    assert_eq "$st" 2 "exit status for the list [$list]"
    assert_contains "$e" "buildtrail run: --only-packages names no package; give the packages" \
        "the error for [$list]"
    [ ! -e "$T/ran" ] || fail "the command ran with the list [$list]"
    [ ! -e "$T/t.db" ] || fail "a trace was written for the list [$list]"
done
assert_no_leftovers
