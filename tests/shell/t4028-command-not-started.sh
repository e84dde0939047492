#!/bin/sh
# A build whose command could not be run (not found: 127; not executable: 126) leaves a trace
# with no process.  Every query says why on stderr — the command did not start, with its exit
# status — not that a root process is missing (as if the trace had lost it), and info and
# tree still answer (exit 0).
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd python3
cd "$T"
printf 'exit 3\n' > not-executable.sh
for c in "no-such-command-4028:127" "./not-executable.sh:126"; do
    cmd=${c%:*} want=${c##*:}
    say "$cmd"
    rm -f "$T/buildtrail.db"
    st=0
    bt run -- "$cmd" > "$T/out" 2> "$T/err" || st=$?
    assert_eq "$st" "$want" "run's exit status"
    assert_contains "$(cat "$T/err")" "cannot run" "run's message"
    case $(sql "$T/buildtrail.db" "SELECT process_tree FROM runs") in
        partial*) say "no process events here: the note says so first"; continue ;;
    esac
    bt info > "$T/out" 2> "$T/err" || fail "info: $(cat "$T/err")"
    assert_contains "$(cat "$T/out")" "INCOMPLETE: the build's command did not start (exit $want)" "info's state"
    bt tree > "$T/out" 2> "$T/err" || fail "tree: $(cat "$T/err")"
    assert_eq "$(wc -l < "$T/err")" 1 "tree's stderr lines"
    assert_contains "$(cat "$T/err")" "did not start (exit $want): the trace records no process" "tree's note"
    bt tree --json > "$T/out" 2> "$T/err" || fail "tree --json: $(cat "$T/err")"
    python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["trace"]; assert t["complete"] is False, t' "$T/out" ||
        fail "tree --json: trace.complete is not false"
done
assert_no_leftovers
echo ok
