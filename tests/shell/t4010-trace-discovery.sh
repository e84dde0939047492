#!/bin/sh
# Queries find the trace as git finds .git: from a subdirectory of the build, the nearest
# buildtrail.db above; BUILDTRAIL_DB names another; -d wins over both; path operands are
# relative to where the query is asked.  A buildtrail.db on the way up that is not a trace
# is reported, not skipped; with none anywhere above, one line says how to get one.
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir -p "$T/ws/sub/deeper" "$T/other"
cd "$T/ws"
bt run -q -- sh -c 'echo x > sub/made.txt'
(cd "$T/other" && bt run -q -o "$T/other/elsewhere.db" -- sh -c 'echo y > o.txt')
cd "$T/ws/sub/deeper"
out=$(bt who-wrote ../made.txt) || fail "who-wrote from a subdirectory failed"
assert_contains "$out" "written by" "who-wrote found the trace above"
bt tree | grep -q "echo x > sub/made.txt" || fail "tree from a subdirectory"
out=$(BUILDTRAIL_DB="$T/other/elsewhere.db" bt tree)
assert_contains "$out" "echo y > o.txt" "BUILDTRAIL_DB"
out=$(BUILDTRAIL_DB="$T/other/elsewhere.db" bt tree -d "$T/ws/buildtrail.db")
assert_contains "$out" "echo x > sub/made.txt" "-d wins"
# A file of that name nearer than the trace is reported, not skipped.
echo "not a trace" > "$T/ws/sub/buildtrail.db"
set +e; bt tree 2> "$T/err"; st=$?; set -e
[ "$st" = 1 ] || fail "a foreign buildtrail.db: exit $st"
assert_contains "$(cat "$T/err")" "$T/ws/sub/buildtrail.db: " "names the file it found"
assert_contains "$(cat "$T/err")" "not a buildtrail trace" "says what is wrong"
rm "$T/ws/sub/buildtrail.db"
# None above: one line with the fix (only where no directory above $T holds one).
above=$(dirname "$T"); none=1
while :; do [ -e "$above/buildtrail.db" ] && none=0; [ "$above" = / ] && break; above=$(dirname "$above"); done
if [ "$none" = 1 ]; then
    mkdir "$T/empty" && cd "$T/empty"
    set +e; bt tree 2> "$T/err"; st=$?; set -e
    [ "$st" = 1 ] || fail "no trace: exit $st"
    [ "$(wc -l < "$T/err")" = 1 ] || fail "no trace: more than one line: $(cat "$T/err")"
    assert_contains "$(cat "$T/err")" "no buildtrail.db in $T/empty or any directory above it; record one with 'buildtrail run -- COMMAND'" "no trace"
else
    missing_part "a tree with no buildtrail.db above $T"
fi
cd "$T"
assert_no_leftovers
