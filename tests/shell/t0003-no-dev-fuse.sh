#!/bin/sh
# Without /dev/fuse: one line saying so and how to fix it, exit 125, nothing left behind.
. "$(dirname "$0")/lib.sh"
require_root
require_cmd unshare
cd "$T"
set +e
err=$(unshare -m sh -c 'mount -t tmpfs none /dev && exec "$0" run -- true' "$BUILDTRAIL" 2>&1); st=$?
set -e
assert_eq "$st" 125 "exit status without /dev/fuse"
assert_contains "$err" "cannot use /dev/fuse: No such file or directory; load the fuse module" "message"
[ ! -e buildtrail.db ] || fail "a trace was created although nothing ran"
assert_no_leftovers
