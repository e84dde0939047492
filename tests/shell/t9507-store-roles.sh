#!/bin/sh
# store/roles.sql: a role in buildtrail_push pushes (and a second push of the same trace finds
# it) but cannot remove a build; a role in buildtrail_read asks but cannot push.  A label given
# twice keeps the last value (labels are inserted, never updated).
. "$(dirname "$0")/lib.sh"
require_root # the script is read from the source tree, which the unprivileged copy lacks
roles=$(dirname "$0")/../../store/roles.sql
[ -f "$roles" ] || missing "store/roles.sql next to the tests"
cp "$roles" "$T/roles.sql"
start_store
mkdir "$T/p" && cd "$T/p"
printf 'int main(void) { return 0; }\n' > a.c
bt run -q -- cc -o a a.c || fail "the build failed"
bt store init >/dev/null
psql -f "$T/roles.sql" >/dev/null
psql -c 'CREATE ROLE builder LOGIN IN ROLE buildtrail_push; CREATE ROLE auditor LOGIN IN ROLE buildtrail_read'
as_builder="host=$pg dbname=postgres user=builder"
as_auditor="host=$pg dbname=postgres user=auditor"
bt store push --store "$as_builder" --label k=1 --label k=2 | grep -q 'stored as build 1' ||
    fail "the pushing role could not push"
assert_eq "$(psql -c "SELECT value FROM build_label WHERE key = 'k'")" 2 "the last of a key's labels"
bt store push --store "$as_builder" | grep -q 'already stored' || fail "the pushing role's second push"
one_line_error bt store rm 1 --store "$as_builder"
assert_contains "$e" "permission denied" "rm by the pushing role"
bt store who-ships --store "$as_auditor" a.c | grep -q 'in 1 of 1 builds' || fail "the reading role's question"
bt store list --store "$as_auditor" >/dev/null || fail "the reading role's list"
cp buildtrail.db "$T/other.db" && sqlite3 "$T/other.db" "UPDATE runs SET hostname = 'x'"
one_line_error bt store push -d "$T/other.db" --store "$as_auditor"
assert_contains "$e" "permission denied" "a push by the reading role"
assert_eq "$(psql -c 'SELECT count(*) FROM build')" 1 "builds"
