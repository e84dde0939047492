#!/bin/sh
# log files make's echo of a recipe with the job it starts (as make -O does), also under -j2
# where both echoes come before either job's output; log --failed shows only the innermost
# jobs that failed (not the sub-make that failed because of one), each with its command,
# exit status and output, echo included.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd make
mkdir -p "$T/ws/sub" && cd "$T/ws"
# a and b each print, then wait for the other's first line: under -j2 they interleave.
cat > Makefile <<'MK'
all: a b sub
a:
	echo "a first"; touch a.started; while [ ! -e b.started ]; do sleep 0.02; done; echo "a second"
b:
	echo "b first"; touch b.started; while [ ! -e a.started ]; do sleep 0.02; done; echo "b second" >&2; exit 3
sub:
	$(MAKE) --no-print-directory -C sub
.PHONY: all a b sub
MK
printf 'all:\n\techo "in sub"; false\n' > sub/Makefile
set +e; bt run -q -- make -k -j2 > "$T/live.txt" 2>&1; st=$?; set -e
[ "$st" != 0 ] || fail "the build should fail"
out=$(bt log)
printf '%s\n' "$out" | grep -A1 '^echo "a first"' | tail -n 1 | grep -qx "a first" ||
    fail "a's echo is not with a's output: $out"
printf '%s\n' "$out" | grep -A1 '^echo "b first"' | tail -n 1 | grep -qx "b first" ||
    fail "b's echo is not with b's output: $out"
failed=$(bt log --failed)
printf '%s\n' "$failed" | grep -q "^== \[[0-9]*\] /bin/sh -c .*exit 3" || fail "b's job and exit: $failed"
printf '%s\n' "$failed" | grep -qx "b second" || fail "b's output: $failed"
printf '%s\n' "$failed" | grep -qx 'echo "in sub"; false' || fail "the sub-make's failed job: $failed"
printf '%s\n' "$failed" | grep -q "a first" && fail "a did not fail: $failed"
printf '%s\n' "$failed" | grep -q "^== .*make.*-C sub" && fail "the sub-make failed only because of its job: $failed"
[ "$(printf '%s\n' "$failed" | grep -c '^== ')" = 2 ] || fail "two failed jobs: $failed"
bt log --failed --json | python3 -c '
import json, sys
jobs = json.load(sys.stdin)["failed_jobs"]
assert sorted(j["exit_code"] for j in jobs) == [1, 3], jobs
b = [j for j in jobs if j["exit_code"] == 3][0]
assert "b second" in b["output"] and b["output"].startswith("echo \"b first\""), b
' || fail "log --failed --json"
# A build where nothing failed: no job, said on stderr.
bt run -q -o "$T/ok.db" -- make -s a > /dev/null 2>&1 || true
rm -f a.started b.started
out=$(bt log --failed -d "$T/ok.db" 2> "$T/err")
[ -z "$out" ] || fail "no failed job: $out"
assert_contains "$(cat "$T/err")" "no job failed" "said"
set +e; bt log --raw --failed 2> "$T/err"; st=$?; set -e
[ "$st" = 2 ] || fail "--raw --failed: exit $st"
cd "$T"
assert_no_leftovers
