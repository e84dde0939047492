#!/bin/sh
# files lists what the build read, wrote, created, deleted, made only for a while (temporary)
# and looked for in vain (only with --missing; else one line counts them), with filters; show
# prints one process: argv, cwd, parents, exit, files with versions, output.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd python3
mkdir -p "$T/ws/sub" && cd "$T/ws"
echo in > in.txt
echo old > doomed.txt
cat > build.sh <<'B'
cat in.txt > sub/made.txt
rm doomed.txt
echo scratch > scratch.tmp; rm scratch.tmp
test -e optional.conf || echo "no optional.conf"
cat sub/made.txt
exit 3
B
set +e; bt run -o "$T/trace.db" -- sh build.sh > "$T/out"; st=$?; set -e
[ "$st" = 3 ] || fail "build exit $st"
out=$(bt files -d "$T/trace.db" 2> "$T/err")
printf '%s\n' "$out" | grep -qx "r----- $T/ws/in.txt" || fail "in.txt read: $out"
printf '%s\n' "$out" | grep -qx "rwc--- $T/ws/sub/made.txt" || fail "made.txt written, created, read: $out"
printf '%s\n' "$out" | grep -qx -- "---d-- $T/ws/doomed.txt" || fail "doomed.txt deleted: $out"
printf '%s\n' "$out" | grep -qx -- "-wcd-t $T/ws/scratch.tmp" || fail "scratch.tmp temporary: $out"
! printf '%s\n' "$out" | grep -q "optional.conf" || fail "a probe listed without --missing: $out"
assert_contains "$(cat "$T/err")" "looked up and not found" "the probes' line"
assert_contains "$(cat "$T/err")" "not listed; see 'buildtrail files --missing'" "the probes' line"
assert_contains "$(bt files -d "$T/trace.db" --missing)" "----m- $T/ws/optional.conf" "--missing"
assert_eq "$(bt files -d "$T/trace.db" --temporary --under "$T/ws")" "-wcd-t $T/ws/scratch.tmp" "--temporary"
assert_eq "$(bt files -d "$T/trace.db" --created --under sub)" "rwc--- $T/ws/sub/made.txt" "--created --under"
bt files -d "$T/trace.db" --json | python3 -c '
import json, sys
doc = json.load(sys.stdin)
d = {f["path"].rsplit("/", 1)[1]: f for f in doc["files"]}
assert d["made.txt"]["created"] and d["made.txt"]["written"] and not d["made.txt"]["deleted"], d
assert d["doomed.txt"]["deleted"] and not d["doomed.txt"]["temporary"], d
assert d["scratch.tmp"]["temporary"], d
assert "optional.conf" not in d and doc["missing_not_listed"] >= 1, doc
'
# show: the root process, then the cat that wrote made.txt.
out=$(bt show -d "$T/trace.db" 1)
assert_contains "$out" "[1] sh build.sh" "argv"
assert_contains "$out" "cwd:       $T/ws" "cwd"
assert_contains "$out" "ended:     exit 3" "exit status"
# dash opens a simple command's redirections itself before it forks.
assert_contains "$out" "create      $T/ws/sub/made.txt" "the redirection"
rm_id=$(sql "$T/trace.db" "SELECT a.process_id FROM accesses a JOIN files f ON f.id=a.file_id WHERE f.path='$T/ws/doomed.txt' AND a.kind=6")
assert_contains "$(bt show -d "$T/trace.db" "$rm_id")" "unlink      $T/ws/doomed.txt" "rm's unlink"
assert_contains "$out" "1| no optional.conf" "its output"
writer=$(sql "$T/trace.db" "SELECT a.process_id FROM accesses a JOIN files f ON f.id=a.file_id WHERE f.path='$T/ws/sub/made.txt' AND a.kind=2 AND a.bytes>0")
[ -n "$writer" ] || fail "no writer of made.txt in the trace"
out=$(bt show -d "$T/trace.db" "$writer")
assert_contains "$out" "parents:   [" "parent chain"
assert_contains "$out" "[1] sh build.sh" "the root among its parents"
printf '%s\n' "$out" | grep -Eq "read +$T/ws/in.txt +at least 3 bytes +v[0-9]+ sha256 [0-9a-f]{16}" || fail "read with version and hash: $out"
bt show -d "$T/trace.db" --json "$writer" | python3 -c '
import json, sys
d = json.load(sys.stdin)["processes"][0]
kinds = {(f["path"].rsplit("/", 1)[1], f["kind"]) for f in d["files"]}
assert ("in.txt", "read") in kinds and ("made.txt", "write") in kinds, kinds
assert all("sha256" in f for f in d["files"] if f["kind"] in ("read", "write")), d["files"]
'
set +e; bt show -d "$T/trace.db" 999999 2>"$T/err"; st=$?; bt show -d "$T/trace.db" abc 2>>"$T/err"; st2=$?; set -e
[ "$st" = 1 ] && [ "$st2" = 2 ] || fail "bad ids: exits $st $st2"
assert_contains "$(cat "$T/err")" "no process 999999" "unknown id"
assert_contains "$(cat "$T/err")" "'abc' is not a process id" "not a number"
assert_no_leftovers
