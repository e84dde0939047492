#!/bin/sh
# store: a store of schema version 2 with a build in it is upgraded by `store init` to 3 (the
# per-build tables without per-row foreign keys, build_package, product.leaves,
# build.packages_from): show and who-ships answer as on a store made at 3, the per-build tables
# have no foreign key left, build_package holds the build's packages, and `store rm` (no
# cascade now) still removes every row of the build.
. "$(dirname "$0")/lib.sh"
store_with_build
bt store init >/dev/null
bt store push --label arch=amd64 >/dev/null || fail "push"
want_show=$(bt store show --json 1 | sed 's/"packages_from":"[^"]*"/"packages_from":null/') ||
    fail "show on version 3"
want_ships=$(bt store who-ships --json a.c) || fail "who-ships on version 3"
store_downgrade_to_2
one_line_error bt store list
assert_contains "$e" "schema is version 2, older than this buildtrail's (3); run 'buildtrail store init'" "list on version 2"
assert_eq "$(bt store init --json)" '{"json_version":1,"schema_from":2,"schema":3}' "init upgrades 2 to 3"
assert_eq "$(bt store show --json 1)" "$want_show" "show after the upgrade"
assert_eq "$(bt store who-ships --json a.c)" "$want_ships" "who-ships after the upgrade"
assert_eq "$(psql -c "SELECT count(*) FROM pg_constraint WHERE contype = 'f' AND conrelid::regclass::text
    IN ('process', 'version', 'product', 'closure', 'edge', 'product_package')
    AND confrelid::regclass::text IN ('build', 'package')")" 0 "per-build foreign keys after the upgrade"
assert_eq "$(psql -c "SELECT count(*) FROM product WHERE leaves IS NULL")" 0 "leaf counts filled"
bt store rm 1 >/dev/null || fail "rm after the upgrade"
for t in build process version product closure edge product_package build_package build_label; do
    assert_eq "$(psql -c "SELECT count(*) FROM $t")" 0 "rows of $t after rm"
done
