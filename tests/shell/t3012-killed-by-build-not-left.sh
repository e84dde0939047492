#!/bin/sh
# A process the build killed itself (SIGKILL) just before its command ended was not left
# running: natively it dies all the same.  But it may finish dying only after the command's
# end (freeing much memory takes milliseconds), i.e. after the instant
# buildtrail kills the build's pid namespace.  buildtrail waits for such dying processes before
# taking that instant, so that only what the build really left running is marked killed at
# the end.  (Not covered: a process of hundreds of threads dying under a loaded CPU, one of
# which may report its exit milliseconds after the whole process has left /proc.)
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd python3
mkdir "$T/ws" && cd "$T/ws"
cat > "$T/big.py" <<'EOF2'
import sys, time
b = b"x" * (256 << 20)
open(sys.argv[1], "w").close()
time.sleep(1000)
EOF2
# One daemon really left running; ten sleeps and one big process killed by the build as its
# last act (without waiting for them).
for i in 1 2 3; do
    bt run -o "$T/r$i.db" -- sh -c 'setsid sleep 1000 & until [ "$(cat /proc/$!/comm 2>/dev/null)" = sleep ]; do sleep 0.01; done
        python3 "$1" ready & p=$!; until [ -e ready ]; do sleep 0.01; done
        for i in 1 2 3 4 5 6 7 8 9 10; do sleep 100 & p="$p $!"; done; kill -9 $p' sh "$T/big.py" \
        > "$T/r$i.out" 2> "$T/r$i.err" || fail "run $i: $(cat "$T/r$i.err")"
    rm -f ready
    summary=$(grep '^buildtrail run: ' "$T/r$i.err")
    case $summary in
        *"partial"*) skip "no process events here (exits are not recorded): $summary" ;;
    esac
    assert_eq "$(sql "$T/r$i.db" "select count(*) from exits where exit_signal = 9")" 12 \
        "run $i: the eleven killed by the build and the one left, killed at the end"
    assert_eq "$(sql "$T/r$i.db" "select count(*) from exits where killed_at_end")" 1 \
        "run $i: only the process left running is marked ($summary)"
    assert_contains "$summary" "; 1 process left running by the build, killed at its end: sleep 1000;" \
        "run $i: the summary line"
done
assert_no_leftovers
