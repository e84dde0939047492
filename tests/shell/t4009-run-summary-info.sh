#!/bin/sh
# run ends with one summary line on stderr: processes, programs run, files read and written,
# output, the trace's path and size, completeness, and what the build ran from trees that
# were not traced (with the option that traces them); -q silences it; the build's own
# stderr is untouched.  `info` describes the run: command, directory, UTC times, exit,
# state, counts, trees, the options given; --json the same.
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir "$T/ws" && cd "$T/ws"
echo data > in.txt
bt run -o "$T/a.db" -- sh -c 'cat in.txt > out.txt; echo to-stderr >&2; exit 3' 2> "$T/err" && fail "exit status lost"
sum=$(grep '^buildtrail run: ' "$T/err") || fail "no summary line: $(cat "$T/err")"
[ "$(grep -c '^buildtrail run: ' "$T/err")" = 1 ] || fail "more than one line of ours: $(cat "$T/err")"
grep -qx 'to-stderr' "$T/err" || fail "the build's stderr changed: $(cat "$T/err")"
printf '%s\n' "$sum" | grep -Eq '^buildtrail run: 2 processes \(2 programs run\), 1 file read, 1 written, 10 B of output; trace [^ ]*a\.db \([0-9.]+ KiB\), complete; not traced: /usr \(ran 2 programs from it\); --system records' ||
    fail "summary: $sum"
# With --system nothing the build ran is outside the trace.
bt run --system -o "$T/s.db" -- sh -c 'cat in.txt > /dev/null' 2> "$T/err"
sum=$(grep '^buildtrail run: ' "$T/err")
assert_contains "$sum" ", complete" "complete"
printf '%s\n' "$sum" | grep -q "not traced" && fail "--system: $sum"
# -q: no line of ours.
bt run -q -o "$T/q.db" -- sh -c 'echo only >&2' 2> "$T/err"
[ "$(cat "$T/err")" = only ] || fail "-q: $(cat "$T/err")"
# An incomplete trace says so.
BUILDTRAIL_NO_PROC_EVENTS=1 bt run -o "$T/p.db" -- true 2> "$T/err"
grep '^buildtrail run: ' "$T/err" | grep -q "INCOMPLETE: process tree partial" || fail "incomplete: $(cat "$T/err")"

out=$(bt info -d "$T/a.db")
assert_contains "$out" "command:    sh -c 'cat in.txt > out.txt; echo to-stderr >&2; exit 3'" "command"
assert_contains "$out" "directory:  $T/ws" "directory"
assert_contains "$out" "exit:       3" "exit"
assert_contains "$out" "state:      finished, complete" "state"
assert_contains "$out" "holds:      2 processes (2 programs run), 1 file read, 1 written (1 version)" "counts"
assert_contains "$out" "options:    -o $T/a.db" "options"
assert_contains "$out" "not the system trees (--system)" "trees"
printf '%s\n' "$out" | grep -Eq '^started: +20[0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9:]+Z$' || fail "started: $out"
bt info -d "$T/s.db" | grep -q "not the system trees" && fail "info: --system trace"
bt info -d "$T/p.db" | grep -q "state:      finished, INCOMPLETE: the process tree is partial" || fail "info: incomplete"
bt info -d "$T/a.db" --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["command"] == ["sh", "-c", "cat in.txt > out.txt; echo to-stderr >&2; exit 3"], d["command"]
assert d["trace"]["exit_status"] == 3 and d["trace"]["complete"] is True, d["trace"]
c = d["counts"]
assert (c["processes"], c["programs_run"], c["files_read"], c["files_written"], c["output_bytes"]) == (2, 2, 1, 1, 10), c
assert any(t["role"] == "workspace" for t in d["trees"]), d["trees"]
assert d["schema_version"] >= 6 and d["options"].startswith("-o "), d
' || fail "info --json"
cd "$T"
assert_no_leftovers
