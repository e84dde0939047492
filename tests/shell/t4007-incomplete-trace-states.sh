#!/bin/sh
# Every answer says what it stands on.  For a trace still being recorded, one whose run was
# interrupted, killed or failed, and one with a partial process tree: a text query prints one
# line on stderr saying so, every --json document carries trace.state and trace.complete, and
# the verdicts and attestations (verify, licenses --deny, export spdx/spdx3/cyclonedx/intoto/
# slsa) refuse the trace (exit 2 for verdicts, non-zero for exports, nothing on stdout) unless
# given --allow-incomplete, which marks the answer incomplete and invents no finish time.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd setsid
require_cmd python3
mkdir "$T/ws" && cd "$T/ws"
echo 'int x; /* SPDX-License-Identifier: MIT */' > in.c
printf 'in.c\nbuild.sh\n' > "$T/manifest"
cat > build.sh <<EOS
cat in.c > out.o
echo started
[ -z "\${HOLD:-}" ] || exec sh -c 'sleep 120; :' $TEST_MARK
EOS

# A complete trace: no note, complete, and every verdict and attestation answers.
bt run -o "$T/finished.db" -- sh build.sh > /dev/null
err=$(bt tree -d "$T/finished.db" 2>&1 >/dev/null)
assert_eq "$err" "" "a complete trace gets no note"
bt verify -d "$T/finished.db" --inputs "$T/manifest" > /dev/null || fail "verify on a complete trace"

# Still recording (read while the run goes on), then killed (SIGKILL to buildtrail).
HOLD=1 "$BUILDTRAIL" run -o "$T/killed.db" -- sh build.sh > "$T/k.out" 2>&1 &
kpid=$!
wait_until 30 test -s "$T/k.out"
set +e; bt verify -d "$T/killed.db" --inputs "$T/manifest" > "$T/out" 2> "$T/err"; st=$?; set -e
assert_eq "$st" 2 "verify while recording: $(cat "$T/err")"
assert_contains "$(cat "$T/err")" "is incomplete (the run is still being recorded)" "recording refusal"
state=$(bt tree -d "$T/killed.db" --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["trace"]["state"])')
assert_eq "$state" recording "state while recording"
kill -KILL "$kpid"
wait "$kpid" 2>/dev/null || true
pkill -KILL -f "$TEST_MARK" 2>/dev/null || true

# Interrupted (Ctrl-C to the job's process group).
setsid env --default-signal=INT,QUIT HOLD=1 "$BUILDTRAIL" run -o "$T/interrupted.db" -- sh build.sh > "$T/i.out" 2>&1 &
ipid=$!
wait_until 30 test -s "$T/i.out"
sleep 0.3
/bin/kill -s INT -- "-$ipid"
set +e; wait "$ipid"; set -e

# Failed: the recorder's failure is produced for real by t1005 (a file-size limit); here a
# copy of the complete trace says what such a run leaves.
cp "$T/finished.db" "$T/failed.db"
sqlite3 "$T/failed.db" "UPDATE runs SET state='failed', failure='cannot write the trace: File too large'"

# Partial process tree: no process events.
BUILDTRAIL_NO_PROC_EVENTS=1 bt run -o "$T/partial.db" -- sh build.sh > /dev/null

check_state() { # NAME STATE NOTE-TEXT
    db="$T/$1.db"; want_state=$2; note=$3
    say "state $1"
    # A text query answers, with one line on stderr.
    bt tree -d "$db" > "$T/out" 2> "$T/err" || fail "$1: tree failed: $(cat "$T/err")"
    [ -s "$T/out" ] || fail "$1: tree printed nothing"
    assert_contains "$(cat "$T/err")" "$note" "$1: tree's note"
    assert_eq "$(wc -l < "$T/err" | tr -d ' ')" 1 "$1: lines on stderr ($(cat "$T/err"))"
    # Every --json document carries the state.
    for q in "tree" "files" "log" "show 1" "who-read $T/ws/in.c" "inputs $T/ws/out.o" "packages" "copies"; do
        # shellcheck disable=SC2086
        bt $q -d "$db" --json 2>/dev/null | python3 -c '
import json, sys
t = json.load(sys.stdin)["trace"]
assert t["state"] == sys.argv[1] and t["complete"] is False and t["incomplete"], (sys.argv[2], t)
' "$want_state" "$q" || fail "$1: $q --json"
    done
    # Verdicts refuse (exit 2) and say how to go on.
    set +e; bt verify -d "$db" --inputs "$T/manifest" > "$T/out" 2> "$T/err"; st=$?; set -e
    assert_eq "$st" 2 "$1: verify's exit ($(cat "$T/err"))"
    assert_contains "$(cat "$T/err")" "--allow-incomplete" "$1: verify names the option"
    [ ! -s "$T/out" ] || fail "$1: verify printed a verdict: $(cat "$T/out")"
    set +e; bt licenses -d "$db" --deny 'GPL-*' "$T/ws/out.o" > "$T/out" 2> "$T/err"; st=$?; set -e
    assert_eq "$st" 2 "$1: licenses --deny's exit ($(cat "$T/err"))"
    # ... and answer, marked, when allowed.
    bt verify -d "$db" --inputs "$T/manifest" --allow-incomplete > "$T/out" 2>/dev/null ||
        fail "$1: verify --allow-incomplete: $(cat "$T/out")"
    assert_contains "$(cat "$T/out")" "INCOMPLETE TRACE:" "$1: verify's verdict is marked"
    bt verify -d "$db" --inputs "$T/manifest" --allow-incomplete --json 2>/dev/null |
        python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["ok"] and not d["trace"]["complete"], d' ||
        fail "$1: verify --json --allow-incomplete"
    bt licenses -d "$db" --deny 'GPL-*' --allow-incomplete "$T/ws/out.o" > "$T/out" 2>/dev/null ||
        fail "$1: licenses --allow-incomplete"
    assert_contains "$(cat "$T/out")" "INCOMPLETE TRACE:" "$1: licenses is marked"
    # Attestations refuse, then export marked documents.
    for f in spdx spdx3 cyclonedx intoto slsa; do
        set +e; bt export -d "$db" --format "$f" > "$T/out" 2> "$T/err"; st=$?; set -e
        [ "$st" != 0 ] || fail "$1: export $f exported an incomplete trace"
        [ ! -s "$T/out" ] || fail "$1: export $f printed a document"
        assert_contains "$(cat "$T/err")" "--allow-incomplete" "$1: export $f names the option"
        bt export -d "$db" --format "$f" --allow-incomplete 2>/dev/null > "$T/doc.json" ||
            fail "$1: export $f --allow-incomplete"
        python3 - "$f" "$T/doc.json" "$want_state" <<'PY' || fail "$1: export $f is not marked incomplete"
import json, sys
fmt, path, state = sys.argv[1], sys.argv[2], sys.argv[3]
d = json.load(open(path))
if fmt == "spdx":
    assert d["creationInfo"]["comment"].startswith("INCOMPLETE TRACE:"), d["creationInfo"]
elif fmt == "spdx3":
    ci = [e for e in d["@graph"] if e["type"] == "CreationInfo"][0]
    assert ci["comment"].startswith("INCOMPLETE TRACE:"), ci
elif fmt == "cyclonedx":
    props = {p["name"]: p["value"] for p in d["metadata"]["properties"]}
    assert props["buildtrail:trace:complete"] == "false" and props["buildtrail:trace:state"] == state, props
elif fmt == "intoto":
    m = d["predicate"]["monitor"]
    assert m["traceComplete"] is False and m["traceState"] == state, m
    if state in ("killed", "recording"):
        assert "monitorEndTime" not in d["predicate"], "an end time was invented"
elif fmt == "slsa":
    ip = d["predicate"]["buildDefinition"]["internalParameters"]
    assert ip["traceComplete"] is False and ip["traceState"] == state, ip
    if state in ("killed", "recording"):
        assert "finishedOn" not in d["predicate"]["runDetails"]["metadata"], "finishedOn invented"
PY
    done
    # What is not a verdict or an attestation answers, with the note.
    bt export -d "$db" --format dot > /dev/null 2>&1 || fail "$1: export dot refused"
}
check_state killed killed "was killed before it finished"
check_state interrupted interrupted "was interrupted"
check_state failed failed "failed: cannot write the trace: File too large"
check_state partial finished "is incomplete: the process tree is partial"

# A complete trace's attestation says it is complete and has its finish time.
bt export -d "$T/finished.db" --format slsa | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["predicate"]["buildDefinition"]["internalParameters"]["traceComplete"] is True, d
assert d["predicate"]["runDetails"]["metadata"]["finishedOn"], d
' || fail "a complete trace's slsa"
assert_no_leftovers
echo ok
