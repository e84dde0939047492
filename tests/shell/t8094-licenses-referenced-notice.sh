#!/bin/sh
# A source whose notice points to another file ("see the file COPYING") that the build never
# read takes that file's license from disk, found whatever the case of the name; a FIFO or
# /dev/zero (through a link) at that name is not read: licenses answers (unknown), never waits
# for ever or fills memory.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd cc
require_cmd timeout
mkdir -p "$T/ws" && cd "$T/ws"
printf '/* Copyright me. For licensing, see the file COPYING. */\nint main(void) { return 0; }\n' > m.c
cat > COPYING <<'L'
Permission is hereby granted, free of charge, to any person obtaining a copy of this software
and associated documentation files (the "Software"), to deal in the Software without
restriction, including without limitation the rights to use, copy, modify, merge, publish,
distribute, sublicense, and/or sell copies of the Software, and to permit persons to whom the
Software is furnished to do so, subject to the following conditions:
The above copyright notice and this permission notice shall be included in all copies or
substantial portions of the Software.
L
bt run -q -- cc -o prog m.c
out=$(bt licenses prog)
assert_contains "$out" "(notice in $T/ws/COPYING)" "the referenced COPYING is read"
assert_contains "$out" "roll-up: MIT" "its license counts"
mv COPYING COPYING.txt
mkfifo copying
st=0; out=$(timeout 20 "$BUILDTRAIL" licenses prog 2>&1) || st=$?
[ "$st" != 124 ] || fail "licenses waited on a FIFO named by a notice"
assert_contains "$out" "unknown" "a FIFO gives no license"
rm copying && ln -s /dev/zero copying
st=0; out=$(timeout 20 "$BUILDTRAIL" licenses prog 2>&1) || st=$?
[ "$st" != 124 ] || fail "licenses read /dev/zero named by a notice"
assert_contains "$out" "unknown" "a device gives no license"
rm copying
assert_no_leftovers
