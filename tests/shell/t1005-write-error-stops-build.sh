#!/bin/sh
# A write error other than lack of space (here EFBIG, from a file-size limit) is reported the
# moment it happens and the build is stopped rather than run on unrecorded: exit 125, state
# failed, runs.failure says why.
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir "$T/ws" && cd "$T/ws"
cat > build.sh <<EOS
i=0
while [ \$i -lt 4000 ]; do echo \$i > f\$i.txt; i=\$((i + 1)); done
exec sh -c 'sleep 60; echo never > never.txt' $TEST_MARK
EOS
set +e
# SIGXFSZ ignored (inherited), so that a write past the limit fails with EFBIG.  (dash's
# ulimit -f counts 512-byte blocks: 512 KiB, more than the empty trace, less than this one.)
( trap "" XFSZ; ulimit -f 1000; exec "$BUILDTRAIL" run -- sh build.sh ) > /dev/null 2> "$T/run.err"
st=$?
set -e
assert_eq "$st" 125 "exit status ($(cat "$T/run.err"))"
assert_contains "$(cat "$T/run.err")" "buildtrail run: cannot write the trace $T/ws/buildtrail.db: File too large; stopping the build" "message"
[ ! -e never.txt ] || fail "the build ran on after the trace failed"

assert_eq "$(sql buildtrail.db 'select state from runs')" failed "run state"
assert_contains "$(sql buildtrail.db 'select failure from runs')" "File too large" "runs.failure"
assert_no_leftovers
