#!/bin/sh
# A build whose command could not be run (not found: 127; not executable: 126): `run` keeps no
# trace of it (#34: a mistyped run leaves the previous trace alone; t1130 has the rest).  A
# trace that holds such a run all the same — as buildtrail wrote them before #34, or one
# copied from elsewhere — has no process: every query says why on stderr (the command did not
# start, with its exit status), not that a root process is missing (as if the trace had lost
# it), and info and tree still answer (exit 0).
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd python3
require_cmd sqlite3
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
    [ -e "$T/buildtrail.db" ] && fail "a run whose command did not start left a trace"
    # Such a trace, as an older buildtrail left it: a run of `true` with its processes taken
    # out and the exit status of the command that could not start.
    bt run -- true > /dev/null 2>&1 || fail "run true"
    sqlite3 "$T/buildtrail.db" "DELETE FROM accesses; DELETE FROM output; DELETE FROM exits;
        DELETE FROM processes; UPDATE runs SET root_process_id = NULL, exit_status = $want,
        process_tree = 'complete'" || fail "could not make the trace"
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
