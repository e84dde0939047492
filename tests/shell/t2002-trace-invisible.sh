#!/bin/sh
# The trace database (and its -wal/-shm files) is invisible to the build, even in the workspace.
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir "$T/ws" && cd "$T/ws"
echo src > src.c
bt run -q -- sh -c 'ls -A; test -e buildtrail.db && echo SEEN; test -e buildtrail.db-wal && echo SEEN;
                 { echo x > buildtrail.db; } 2>/dev/null && echo WROTE; ls -A' > "$T/out.txt" 2>&1
assert_eq "$(cat "$T/out.txt")" "src.c
src.c" "what the build saw"
[ "$(bt tree | wc -l)" -ge 1 ] || fail "the trace is not readable"
assert_no_leftovers
