#!/bin/sh
# A process the build leaves running (a daemon it started) is killed with the build's pid
# namespace when the build's command ends (natively it would survive: this is the only way to
# leave nothing behind).  buildtrail says so: the run's summary line counts and names them,
# 'info' lists them, 'show' and 'tree' mark them, and so do their --json.  A build that leaves
# nothing running says nothing, and a process the build itself killed is not marked.
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir "$T/ws" && cd "$T/ws"
# The daemon has exec'd sleep before the build's command ends (else what is killed is the shell
# about to exec it).
bt run -o "$T/left.db" -- sh -c 'setsid sleep 1000 & until [ "$(cat /proc/$!/comm 2>/dev/null)" = sleep ]; do sleep 0.01; done; echo started' \
    > "$T/left.out" 2> "$T/left.err" || fail "run: $(cat "$T/left.err")"
assert_eq "$(cat "$T/left.out")" started "the build's output"
summary=$(grep '^buildtrail run: ' "$T/left.err")
case $summary in
    *"partial"*) skip "no process events here (exits are not recorded): $summary" ;;
esac
assert_contains "$summary" "; 1 process left running by the build, killed at its end: sleep 1000;" "the summary line"
bt info -d "$T/left.db" > "$T/info.out" || fail "info"
grep -q "^killed: .*1 process left running by the build, killed at its end (natively it would have gone on): \[[0-9]*\] sleep 1000$" "$T/info.out" ||
    fail "info names it: $(cat "$T/info.out")"
# (its last image: the one its exit belongs to)
id=$(sql "$T/left.db" "select p.id from exits e join processes p on p.id = e.process_id where p.argv = cast('sleep' || char(0) || '1000' || char(0) as blob)")
[ -n "$id" ] || fail "no sleep 1000 process: $(bt tree -d "$T/left.db")"
bt show -d "$T/left.db" "$id" > "$T/show.out" 2>&1 || fail "show $id: $(cat "$T/show.out")"
assert_contains "$(cat "$T/show.out")" "killed by signal 9 (Killed) at the end of the build" "show marks it"
assert_contains "$(bt tree -d "$T/left.db")" "sleep 1000  (exec of " "tree shows it"
assert_contains "$(bt tree -d "$T/left.db")" "[left running, killed at the end]" "tree marks it"
bt show --json -d "$T/left.db" "$id" | python3 -c '
import json, sys
d = json.load(sys.stdin)
e = d["processes"][0]["process"]["exit"]
assert e["signal"] == 9 and e["killed_at_end"] is True, e' || fail "show --json marks it"
bt info --json -d "$T/left.db" | python3 -c '
import json, sys
d = json.load(sys.stdin)
k = d["killed_at_end"]
assert len(k) == 1 and k[0]["argv"] == ["sleep", "1000"] and k[0]["id"] == int(sys.argv[1]), k
assert d["trace"]["complete"] is True, d["trace"]' "$id" || fail "info --json lists it"

# A build that leaves nothing: nothing said.  One that kills its own child with SIGKILL before
# it ends: that child is not marked.
bt run -o "$T/none.db" -- sh -c 'sleep 1000 & until [ "$(cat /proc/$!/comm 2>/dev/null)" = sleep ]; do sleep 0.01; done; kill -9 $!; wait; echo done' > /dev/null 2> "$T/none.err" ||
    fail "run: $(cat "$T/none.err")"
case $(cat "$T/none.err") in *"killed at its end"*) fail "a build that left nothing: $(cat "$T/none.err")" ;; esac
grep -q '^killed:' "$(bt info -d "$T/none.db" > "$T/none.info"; echo "$T/none.info")" &&
    fail "info of a build that left nothing: $(cat "$T/none.info")"
assert_eq "$(sql "$T/none.db" "select count(*) from exits where killed_at_end")" 0 "the child the build killed is not marked"
bt info --json -d "$T/none.db" | python3 -c '
import json, sys
assert json.load(sys.stdin)["killed_at_end"] == []' || fail "info --json: none"
assert_no_leftovers
