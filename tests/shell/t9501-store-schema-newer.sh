#!/bin/sh
# store: a database whose schema is newer than this buildtrail's is refused, by init, push
# and every question, with the fix, and left as it was.
. "$(dirname "$0")/lib.sh"
require_postgres
start_store
mkdir "$T/p" && cd "$T/p"
bt run -q -- sh -c 'echo x > out' || fail "the build failed"
bt store init >/dev/null
psql -c 'UPDATE bt_schema SET version = 99'
for cmd in "init" "push" "list" "who-ships sha256:$(printf '%064d' 0)" "uses zlib1g-dev"; do
    one_line_error bt store $cmd
    assert_contains "$e" "schema is version 99, newer than this buildtrail's (3); use the buildtrail that made it" "store $cmd"
done
assert_eq "$(psql -c 'SELECT version FROM bt_schema') $(psql -c 'SELECT count(*) FROM build')" "99 0" "the store after the refusals"
