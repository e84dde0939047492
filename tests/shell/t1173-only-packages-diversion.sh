#!/bin/sh
# run --system --only-packages judges a diverted file by the package whose file it is:
# postgresql-common diverts libpq-dev's /usr/bin/pg_config to pg_config.libpq-dev and puts its
# own wrapper there; allowed libpq-dev alone, the wrapper (postgresql-common's) is hidden and
# libpq-dev's moved pg_config stays.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd dpkg-query
from=/usr/bin/pg_config
to=/usr/bin/pg_config.libpq-dev
[ -e "$to" ] && [ -e "$from" ] || missing "libpq-dev's pg_config diverted by postgresql-common"
dpkg-divert --list "$from" 2>/dev/null | grep -q "by postgresql-common" ||
    missing "postgresql-common's diversion of $from"
mkdir "$T/ws" && cd "$T/ws"
out=$(bt run -q -o "$T/t.db" --system --only-packages libpq-dev -- sh -c \
      "for f in $from $to; do if [ -e \$f ]; then echo has \$f; else echo no \$f; fi; done" 2>&1) ||
    fail "the run: $out"
assert_eq "$out" "no $from
has $to" "the diverted pg_config"
assert_contains "$(bt files -d "$T/t.db" --denied)" "$from: package postgresql-common not allowed" \
    "the denial names the diverting package"
assert_no_leftovers
