#!/bin/sh
# store: a table or view of the schema dropped (or renamed) by hand is a damaged store, said by
# name with the fix by every subcommand — init does not answer "nothing to do", push does not
# fail on PostgreSQL's "relation does not exist" after reading the whole trace — and a store
# whose tables are back works again.
. "$(dirname "$0")/lib.sh"
store_with_build
bt run -q -o "$T/two.db" -- true || fail "the second build failed"
bt store init > /dev/null
bt store push > /dev/null
for rel in "TABLE edge" "VIEW build_packages"; do
    name=${rel#* }
    psql -c "ALTER $rel RENAME TO gone"
    for cmd in "init" "push -d $T/two.db" "list" "who-ships a.c"; do
        # shellcheck disable=SC2086
        one_line_error bt store $cmd
        assert_contains "$e" "the store is damaged: its table or view $name is gone" "$cmd without $name"
    done
    psql -c "ALTER ${rel% *} gone RENAME TO $name"
done
assert_eq "$(psql -c 'SELECT count(*) FROM build')" 1 "builds after the refusals"
bt store init | grep -q 'nothing to do' || fail "init once the tables are back"
bt store push -d "$T/two.db" | grep -q 'stored as build' || fail "push once the tables are back"
