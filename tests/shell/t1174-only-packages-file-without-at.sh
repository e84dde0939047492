#!/bin/sh
# run --only-packages debian/control (the '@' forgotten) says the name is a file and to give
# @debian/control, rather than that a package "debian/control" is not installed; exit 2,
# nothing run.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd dpkg-query
mkdir -p "$T/ws/debian" && cd "$T/ws"
printf 'Source: x\nBuild-Depends: make\n\nPackage: x\n' > debian/control
one_line_error timeout 20 "$BUILDTRAIL" run -o "$T/t.db" --system --only-packages debian/control \
    -- touch "$T/ran"
assert_eq "$st" 2 "exit status"
assert_contains "$e" "--only-packages: debian/control is a file, not a package; give @debian/control" \
    "the error"
[ ! -e "$T/ran" ] || fail "the command ran"
# A name with '/' that is no file: still "not installed".
one_line_error timeout 20 "$BUILDTRAIL" run -o "$T/t.db" --system --only-packages make,nope/x \
    -- touch "$T/ran"
assert_contains "$e" "--only-packages: nope/x is not installed" "a name that is not a file"
assert_no_leftovers
