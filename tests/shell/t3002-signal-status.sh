#!/bin/sh
# A build killed by a signal: buildtrail exits 128+signal, and the run records the signal.
. "$(dirname "$0")/lib.sh"
require_fuse
cd "$T"
for pair in TERM:15 KILL:9 SEGV:11; do
    sig=${pair%:*} num=${pair#*:}
    set +e; bt run -- sh -c "kill -$sig \$\$"; st=$?; set -e
    assert_eq "$st" $((128 + num)) "exit status for SIG$sig"
    assert_eq "$(sql buildtrail.db 'select exit_status, term_signal from runs')" "$((128 + num))|$num" "run record for SIG$sig"
done
assert_no_leftovers
