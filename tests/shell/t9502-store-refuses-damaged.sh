#!/bin/sh
# store push: a damaged trace (cut short), a file that is no trace and a trace still being
# recorded are refused with nothing stored; an incomplete one (its run killed) is refused unless --allow-incomplete, which
# stores it marked incomplete.
. "$(dirname "$0")/lib.sh"
require_postgres
require_cmd sqlite3
start_store
mkdir "$T/p" && cd "$T/p"
printf 'int main(void) { return 0; }\n' > a.c
bt run -q -- cc -o a a.c || fail "the build failed"
bt store init >/dev/null
size=$(stat -c %s buildtrail.db)
head -c $((size / 2)) buildtrail.db > "$T/cut.db"
one_line_error bt store push -d "$T/cut.db"
assert_contains "$e" "nothing stored" "a trace cut in half"
echo "not a trace" > "$T/text.db"
one_line_error bt store push -d "$T/text.db"
one_line_error bt store push -d "$T/none.db"
assert_contains "$e" "no trace $T/none.db" "a missing trace"
cp buildtrail.db "$T/killed.db"
sqlite3 "$T/killed.db" "UPDATE runs SET state = 'running', end_ns = NULL"
one_line_error bt store push -d "$T/killed.db"
assert_contains "$e" "is incomplete" "a killed run's trace"
assert_contains "$e" "--allow-incomplete" "the fix for an incomplete trace"
# a trace still being recorded
"$BUILDTRAIL" run -q -o "$T/live.db" -- sh -c "touch '$T/started'; sleep 4 # $TEST_MARK" &
runner=$!
wait_until 30 test -e "$T/started"
one_line_error bt store push -d "$T/live.db"
assert_contains "$e" "the trace $T/live.db is still being recorded; nothing stored; push it once its run has ended" "a trace being recorded"
wait $runner || fail "the recorded run failed"
assert_eq "$(psql -c 'SELECT count(*) FROM build') $(psql -c 'SELECT count(*) FROM content')" "0 0" "the store after the refusals"
bt store push -d "$T/killed.db" --allow-incomplete | grep -q 'marked incomplete' ||
    fail "--allow-incomplete did not store it marked"
assert_eq "$(psql -c 'SELECT complete FROM build')" f "the stored build's mark"
bt store list | grep -q '(incomplete)' || fail "list does not say incomplete"
