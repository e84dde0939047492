#!/bin/sh
# The build inherits the signal state buildtrail was started with, as a native build inherits
# its shell's: an ignored signal stays ignored (nohup, a script's background job) and a blocked
# one stays blocked.
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir "$T/ws" && cd "$T/ws"
probe='kill -USR1 $$; kill -HUP $$; echo survived; grep -E "^Sig(Blk|Ign)" /proc/self/status'
native=$(sh -c 'trap "" USR1 HUP; exec sh -c "$1"' sh "$probe" 2>&1)
traced=$(sh -c 'trap "" USR1 HUP; exec "$0" run -q -- sh -c "$1"' "$BUILDTRAIL" "$probe" 2>&1) || true
assert_contains "$native" survived "native"
assert_eq "$traced" "$native" "signal state of the traced build"
assert_no_leftovers
