#!/bin/sh
# store: a store of schema version 1 with builds in it is upgraded by `store init` to version
# 2 (product_package: uses' per-product summary, filled from the stored closures), and `uses`
# and `show` answer on the upgraded store exactly as on a store made at version 2.  Before
# `init`, every command asks for it.  Version 1 is rebuilt from a version-2 store here: its
# build_packages view and closure_package index as migration 1 made them.
. "$(dirname "$0")/lib.sh"
require_root
require_postgres
require_zlib_dev
start_store
bt store init >/dev/null
mkdir "$T/z" && cd "$T/z"
printf '#include <zlib.h>\nint main(void) { return zlibVersion()[0] == 49 ? 0 : 1; }\n' > z.c
bt run -q --system -o "$T/static.db" -- cc -o zstatic z.c "$zlib_a" || fail "the static build"
bt run -q --system -o "$T/dynamic.db" -- cc -o zdynamic z.c -lz || fail "the dynamic build"
bt store push -d "$T/static.db" --name static >/dev/null || fail "push static"
bt store push -d "$T/dynamic.db" --name dynamic >/dev/null || fail "push dynamic"
want_uses=$(bt store uses --json zlib1g-dev) || fail "uses on version 2"
want_show=$(bt store show --json 1) || fail "show on version 2"
assert_contains "$want_uses" '"incorporates":"code"' "uses before the downgrade"
assert_contains "$want_uses" '"incorporates":"headers only"' "uses before the downgrade"

psql -c "DROP TABLE product_package CASCADE" -c "CREATE INDEX closure_package ON closure (package_id)" \
     -c "CREATE VIEW build_packages AS SELECT cl.build_id, pk.name, pk.version, pk.source,
  bool_or(cl.role IN ('source', 'object', 'copy', 'generated')) AS code,
  bool_or(cl.role = 'header') AS headers, bool_or(cl.role = 'runtime') AS runtime,
  bool_or(cl.role = 'shlib') AS shlib, bool_or(cl.role = 'tool') AS tool
  FROM closure cl JOIN package pk ON pk.id = cl.package_id GROUP BY cl.build_id, pk.id" \
     -c "UPDATE bt_schema SET version = 1"
one_line_error bt store uses zlib1g-dev
assert_contains "$e" "schema is version 1, older than this buildtrail's (2); run 'buildtrail store init'" "uses on version 1"
assert_eq "$(bt store init --json)" '{"json_version":1,"schema_from":1,"schema":2}' "init upgrades 1 to 2"
assert_eq "$(bt store uses --json zlib1g-dev)" "$want_uses" "uses after the upgrade"
assert_eq "$(bt store show --json 1)" "$want_show" "show after the upgrade"
assert_eq "$(psql -c "SELECT count(*) FROM pg_indexes WHERE indexname = 'closure_package'")" 0 "closure_package dropped"
