#!/bin/sh
# store push: 8 pushes at once of 8 traces sharing all their content (the same compiler,
# headers, paths): every build is there, each content, path and command line once.  Then one
# more trace pushed 3 times at once (three copies of it): one build, and every push succeeds.
. "$(dirname "$0")/lib.sh"
require_cmd sqlite3
require_postgres
start_store
mkdir "$T/p" && cd "$T/p"
printf '#include <stdio.h>\nint main(void) { puts("hi"); return 0; }\n' > a.c
# One build; eight more traces of it, each another file (another host name in its run row):
# eight identities whose content, paths and command lines are all the same, so every push
# inserts the same interned keys at the same time.
bt run -q -o "$T/1.db" -- cc -o a a.c || fail "the build failed"
for i in 2 3 4 5 6 7 8 9; do
    cp "$T/1.db" "$T/$i.db"
    sqlite3 "$T/$i.db" "UPDATE runs SET hostname = 'host$i'"
done
bt store init >/dev/null
for i in 1 2 3 4 5 6 7 8; do
    bt store push -d "$T/$i.db" --name "n$i" > "$T/push$i.out" 2>&1 &
    pids="${pids:-} $!"
done
wait_all=0
for job in $pids; do wait "$job" || wait_all=1; done
[ $wait_all = 0 ] || fail "a concurrent push failed: $(cat "$T"/push*.out)"
assert_eq "$(psql -c 'SELECT count(*) FROM build')" 8 "builds after 8 concurrent pushes"
assert_eq "$(psql -c 'SELECT count(DISTINCT name) FROM build')" 8 "names"
assert_eq "$(psql -c 'SELECT count(*) - count(DISTINCT sha256) FROM content')" 0 "content interned"
assert_eq "$(psql -c 'SELECT count(*) FROM path p JOIN path q ON p.path = q.path AND p.id < q.id')" 0 "paths interned"
assert_eq "$(psql -c "SELECT count(*) FROM path WHERE path = convert_to('$T/p/a.c', 'UTF8')")" 1 "a.c's path once"
out=$(bt store who-ships a.c)
assert_contains "$out" "in 8 of 8 builds" "who-ships of the shared source"
pids=""
for i in a b c; do
    cp "$T/9.db" "$T/9$i.db"
    bt store push -d "$T/9$i.db" > "$T/again$i.out" 2>&1 &
    pids="$pids $!"
done
for job in $pids; do wait "$job" || fail "a push of the same trace failed: $(cat "$T"/again*.out)"; done
assert_eq "$(psql -c 'SELECT count(*) FROM build')" 9 "builds after 3 pushes of one trace at once"
assert_eq "$(cat "$T"/again*.out | grep -c 'already stored as build 9')" 2 "the two pushes that found it there"
