#!/bin/sh
# Two runs started together on one trace path: one records, the other stops at once with
# "another buildtrail run (pid N) is recording it"; never both fail, never a stub, and the next
# run works.  20 pairs, each on an existing trace.
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir "$T/ws" && cd "$T/ws"
bt run -- true
for i in $(seq 20); do
    "$BUILDTRAIL" run -- sh -c "echo a$i > a.txt" > "$T/a.out" 2>&1 &
    a=$!
    "$BUILDTRAIL" run -- sh -c "echo b$i > b.txt" > "$T/b.out" 2>&1 &
    b=$!
    set +e; wait $a; sa=$?; wait $b; sb=$?; set -e
    ok=0
    [ $sa = 0 ] && ok=$((ok + 1))
    [ $sb = 0 ] && ok=$((ok + 1))
    [ $ok -ge 1 ] || fail "pair $i: both runs failed: $(cat "$T/a.out" "$T/b.out")"
    if [ $ok = 1 ]; then
        loser=$T/b.out; [ $sa = 0 ] || loser=$T/a.out
        grep -q "another buildtrail run (pid [0-9]*) is recording it" "$loser" ||
            fail "pair $i: the refused run said: $(cat "$loser")"
    fi
    assert_eq "$(sql buildtrail.db 'select state from runs')" finished "pair $i: the trace"
    ls -A | grep -q '^\.buildtrail-new' && fail "pair $i: a temporary trace was left: $(ls -A)"
    rm -f a.txt b.txt
done
bt run -- true || fail "the run after the pairs failed"
assert_no_leftovers
