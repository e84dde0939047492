#!/bin/sh
# store: a store of schema version 1 with builds in it is upgraded by `store init` to the
# current version (2: product_package, uses' per-product summary, filled from the stored
# closures; then 3), and `uses` and `show` answer on the upgraded store exactly as on a store
# made at the current version.  Before `init`, every command asks for it.  Version 1 is
# rebuilt from a current store here (store_downgrade_to_2, then its build_packages view and
# closure_package index as migration 1 made them).
. "$(dirname "$0")/lib.sh"
store_with_zlib_static
bt run -q --system -o "$T/dynamic.db" -- cc -o zdynamic z.c -lz || fail "the dynamic build"
bt store push -d "$T/static.db" --name static >/dev/null || fail "push static"
bt store push -d "$T/dynamic.db" --name dynamic >/dev/null || fail "push dynamic"
want_uses=$(bt store uses --json zlib1g-dev) || fail "uses on the current version"
want_show=$(bt store show --json 1) || fail "show on the current version"
assert_contains "$want_uses" '"incorporates":"code"' "uses before the downgrade"
assert_contains "$want_uses" '"incorporates":"headers only"' "uses before the downgrade"

# (build.packages_from is not there before version 3: a build pushed before has none)
want_show=$(printf '%s' "$want_show" | sed 's/"packages_from":"[^"]*"/"packages_from":null/')
store_downgrade_to_2
psql -c "DROP TABLE product_package CASCADE" -c "CREATE INDEX closure_package ON closure (package_id)" \
     -c "CREATE VIEW build_packages AS SELECT cl.build_id, pk.name, pk.version, pk.source,
  bool_or(cl.role IN ('source', 'object', 'copy', 'generated')) AS code,
  bool_or(cl.role = 'header') AS headers, bool_or(cl.role = 'runtime') AS runtime,
  bool_or(cl.role = 'shlib') AS shlib, bool_or(cl.role = 'tool') AS tool
  FROM closure cl JOIN package pk ON pk.id = cl.package_id GROUP BY cl.build_id, pk.id" \
     -c "UPDATE bt_schema SET version = 1"
one_line_error bt store uses zlib1g-dev
assert_contains "$e" "schema is version 1, older than this buildtrail's (3); run 'buildtrail store init'" "uses on version 1"
assert_eq "$(bt store init --json)" '{"json_version":1,"schema_from":1,"schema":3}' "init upgrades 1 to 3"
assert_eq "$(bt store uses --json zlib1g-dev)" "$want_uses" "uses after the upgrade"
assert_eq "$(bt store show --json 1)" "$want_show" "show after the upgrade"
assert_eq "$(psql -c "SELECT count(*) FROM pg_indexes WHERE indexname = 'closure_package'")" 0 "closure_package dropped"
