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
# A daemon really left running; ten sleeps and one big process killed by the build as its last
# act (without waiting for them).
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
    # The eleven it killed (python, and the sleeps or the shells about to exec them).
    assert_eq "$(sql "$T/r$i.db" "select count(*) from exits e join processes p on p.id = e.process_id
        where e.exit_signal = 9 and p.argv is not cast('sleep' || char(0) || '1000' || char(0) as blob)")" 11 \
        "run $i: the processes the build killed"
    assert_eq "$(sql "$T/r$i.db" "select group_concat(p.id) from exits e join processes p on p.id = e.process_id
        where e.killed_at_end and p.argv is not cast('sleep' || char(0) || '1000' || char(0) as blob)")" "" \
        "run $i: a process the build killed is marked left running ($summary)"
    # (The daemon really left running is marked: t3010.)
done
assert_no_leftovers
