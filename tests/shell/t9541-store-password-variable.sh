#!/bin/sh
# store: a password reaches libpq only through its own files (~/.pgpass, $PGPASSFILE, a
# service file), never a variable: $PGPASSWORD is in the environment every build traced from
# that shell records, so it is refused as a password in --store is, with the fix, and the
# line does not repeat it.  The files work against a server that asks for a password.
. "$(dirname "$0")/lib.sh"
require_postgres
start_store
psql -c "ALTER ROLE bt PASSWORD 'hunter2'"
as_pg sh -c "echo 'local all all scram-sha-256' > '$pg/data/pg_hba.conf'"
as_pg "$pg_bin/pg_ctl" -D "$pg/data" reload > /dev/null
export PGPASSFILE="$T/pgpass"
printf '*:*:*:bt:hunter2\n' > "$PGPASSFILE"
chmod 600 "$PGPASSFILE"
wait_until 10 bt store init > /dev/null
bt store init | grep -Eq 'version [0-9]+' || fail "init through \$PGPASSFILE"

(
    export PGPASSWORD=hunter2
    one_line_error bt store list
    assert_contains "$e" "PGPASSWORD" "the refusal names the variable"
    assert_contains "$e" "pgpass" "the refusal gives the fix"
    if printf '%s' "$e" | grep -q hunter2; then fail "the refusal repeats the password: $e"; fi
)
# a service file holding the password is one of libpq's own means
printf '[builds]\nhost=%s\ndbname=postgres\nuser=bt\npassword=hunter2\n' "$pg" > "$T/services"
unset PGPASSFILE
PGSERVICEFILE="$T/services" bt store list --store service=builds | grep -q '0 builds in the store' ||
    fail "a service file with the password"
