#!/bin/sh
# buildtrail run exits with the build's status, like a shell: the code, 126 for a command that
# cannot be executed, 127 for one that is not found.
. "$(dirname "$0")/lib.sh"
require_fuse
cd "$T"
for code in 0 1 3 42 255; do
    set +e; bt run -- sh -c "exit $code"; st=$?; set -e
    assert_eq "$st" "$code" "exit status"
    assert_eq "$(sql buildtrail.db 'select exit_status, state from runs')" "$code|finished" "run record"
done
echo 'echo hi' > not-executable.sh
set +e; err=$(bt run -- ./not-executable.sh 2>&1); st=$?; set -e
assert_eq "$st" 126 "not executable"
assert_contains "$err" "cannot run './not-executable.sh': Permission denied" "not executable message"
assert_no_leftovers
