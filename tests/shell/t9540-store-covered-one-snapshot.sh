#!/bin/sh
# store: a question's count of the builds it covered and the builds it names come from one
# snapshot.  A push that commits while a question runs (here: a transaction holding the tables
# the question's second statement reads, committing a build while it waits) must not give
# "in 2 of 1 builds" nor a list of two builds that says it covered one.
. "$(dirname "$0")/lib.sh"
store_with_build
bt store init > /dev/null
bt store push --name first > /dev/null

# Another pusher, as SQL: a second build (a copy of build 1's rows) committed after 6 s, while
# it holds closure and build_label, which who-ships and list read after counting the builds.
psql -c "BEGIN; LOCK TABLE closure, build_label IN ACCESS EXCLUSIVE MODE;
INSERT INTO build (identity, name, trace_path, trace_size, state, complete)
  SELECT '\\x00', 'other', trace_path, trace_size, state, complete FROM build WHERE id = 1;
INSERT INTO version SELECT b.id, v.vid, v.path_id, v.content_id, v.size, v.origin
  FROM version v, build b WHERE v.build_id = 1 AND b.identity = '\\x00';
INSERT INTO product SELECT b.id, p.vid, p.license FROM product p, build b
  WHERE p.build_id = 1 AND b.identity = '\\x00';
INSERT INTO closure SELECT b.id, c.product_vid, c.vid, c.role, c.guess, c.package_id
  FROM closure c, build b WHERE c.build_id = 1 AND b.identity = '\\x00';
SELECT pg_sleep(6); COMMIT" > /dev/null &
locker=$!
locked() { [ "$(psql -c "SELECT count(*) FROM pg_locks WHERE relation = 'closure'::regclass AND granted")" -gt 0 ]; }
wait_until 20 locked
locked || fail "the other pusher did not take its locks"
bt store who-ships --json a.c > "$T/ships.json" &
ships=$!
bt store list --json > "$T/list.json" &
list=$!
wait "$ships" || fail "who-ships failed"
wait "$list" || fail "list failed"
wait "$locker" || fail "the other pusher failed"
assert_eq "$(psql -c 'SELECT count(*) FROM build')" 2 "builds once the other committed"

python3 - "$T/ships.json" "$T/list.json" <<'PY' || fail "counts and answers differ: $(cat "$T/ships.json" "$T/list.json")"
import json, sys
ships = json.load(open(sys.argv[1]))
named = {s["build"] for s in ships["ships"]}
assert len(named) <= ships["builds_covered"], ("who-ships", len(named), ships["builds_covered"])
lst = json.load(open(sys.argv[2]))
assert len(lst["builds"]) == lst["builds_covered"], ("list", len(lst["builds"]), lst["builds_covered"])
PY
# and the text says the same
out=$(bt store who-ships a.c)
assert_contains "$out" "in 2 of 2 builds" "who-ships once both are there"
