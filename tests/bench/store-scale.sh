#!/bin/bash
# store-scale.sh BUILDTRAIL [--builds N] [--big TRACE] [--keep DIR] [--questions-only] TRACE...
# — the store at an archive's scale (issue #38 item 5).  In a private PostgreSQL 15 (initdb on
# a Unix socket in a temporary directory, run as postgres ($PG_USER) since initdb refuses root,
# removed at the end unless --keep DIR names where to leave it):
#   1. `store push` of each real TRACE (the templates);
#   2. N builds in all (default 10000) made from them in the server, through the real schema,
#      by fill.sql (below, STEP (100) builds a transaction, INSERT ... SELECT from the
#      templates' rows: no COPY, no client round trip per row): build i copies template i % T's
#      processes, versions and one-step edges, keeps about an eighth of its products (each with
#      its whole closure), and varies what an archive varies — own-tree paths under /srv/b<i>/,
#      own-tree contents (9 in 10 unique to the build, 1 in 10 shared by the 10 builds of its
#      group of 50: vendored copies), build names, package versions (4 of each) and, for a
#      third of the packages, their names (200 variants: a library 50 builds use).  With
#      --questions-only a made build holds only the rows the questions read: no processes,
#      and of the closure only the leaves with a role other than script, tool, probe, other
#      (who-ships, uses and copies read the code roles; show's leaf counts are product.leaves,
#      copied) — the store's size per build is then not an archive's: measure it on real
#      pushes (store-bench.sh);
#   3. the store's size per build, and `store who-ships` / `store uses` timed (best of 3) with
#      each query's EXPLAIN ANALYZE;
#   4. with --big TRACE, the push of that trace timed.
# --keep DIR leaves the cluster in DIR; run again with --keep DIR on a DIR that holds one, it
# skips 1 and 2: `store init` (timed: a migration on a full store) and 3, 4 on what is there.
# docs/performance.md has the numbers.  Needs about 1 GB of disk per 1000 builds (all rows).
set -euo pipefail
bt=$(readlink -f "$1"); shift
builds=10000 big= keep= all=true
while [ $# -gt 0 ]; do
    case $1 in
        --builds) builds=$2; shift 2 ;;
        --big) big=$(readlink -f "$2"); shift 2 ;;
        --keep) keep=$2; shift 2 ;;
        --questions-only) all=false; shift ;;
        *) break ;;
    esac
done
[ $# -gt 0 ] || { echo "store-scale.sh: name the template traces" >&2; exit 2; }
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
d=${keep:-$(mktemp -d "${TMPDIR:-/tmp}/bt-store-scale.XXXXXX")}
mkdir -p "$d"
chmod 755 "$d"
as=()
if [ "$(id -u)" = 0 ]; then
    chown "${PG_USER:-postgres}" "$d"
    as=(runuser -u "${PG_USER:-postgres}" --)
fi
stop() {
    "${as[@]}" "$PG_BIN/pg_ctl" -D "$d/data" -m fast -w stop >/dev/null 2>&1 || true
    [ -n "$keep" ] || rm -rf "$d"
}
trap stop EXIT
reuse=
[ -n "$keep" ] && [ -d "$d/data" ] && reuse=1
[ -n "$reuse" ] || "${as[@]}" "$PG_BIN/initdb" -D "$d/data" -A trust -U bt --no-sync >/dev/null
# A bigger WAL between checkpoints for the bulk fill; fsync stays on.
"${as[@]}" "$PG_BIN/pg_ctl" -D "$d/data" -l "$d/log" -w \
    -o "-k $d -c listen_addresses= -c max_wal_size=4GB -c shared_buffers=256MB" start >/dev/null
export BUILDTRAIL_STORE="host=$d dbname=postgres user=bt"
sql() { psql -X -q -At -v ON_ERROR_STOP=1 -h "$d" -U bt -d postgres "$@"; }
now() { date +%s.%N; }
s0=$(now)
"$bt" store init
echo "store init: $(echo "$(now) - $s0" | bc) s"
if [ -z "$reuse" ]; then
for t in "$@"; do
    "$bt" store push --allow-incomplete -d "$t" >/dev/null
done
ntempl=$(sql -c "SELECT count(*) FROM build")
sql -v all="$all" <<'SQL'
-- System trees keep their paths and contents (every build reads the same /usr/include).
CREATE FUNCTION bench_own(p bytea) RETURNS boolean IMMUTABLE LANGUAGE sql AS
  $$ SELECT encode(p, 'escape') !~ '^/(usr|etc|bin|sbin|lib|lib64|opt|proc|sys|dev)/' $$;
CREATE FUNCTION bench_sha(s bytea, i int) RETURNS bytea IMMUTABLE LANGUAGE sql AS
  $$ SELECT CASE WHEN get_byte(s, 1) < 26 THEN sha256(s || int4send(i / 50))
                 ELSE sha256(s || int4send(i)) END $$;
-- A third of the packages (not libc's nor the compiler's) in 200 name variants; 4 versions.
CREATE FUNCTION bench_pkg(n text, i int) RETURNS text IMMUTABLE LANGUAGE sql AS
  $$ SELECT CASE WHEN abs(hashtext(n)) % 3 <> 0 OR n ~ '^(libc6|gcc|cpp|linux-libc)'
                 THEN n ELSE n || '-v' || (i % 200) END $$;
CREATE FUNCTION bench_pkv(i int) RETURNS text IMMUTABLE LANGUAGE sql AS
  $$ SELECT CASE WHEN i % 4 = 0 THEN '' ELSE '+b' || (i % 4) END $$;
-- The templates' rows, read once (dropped at the end).
CREATE UNLOGGED TABLE bench_v AS SELECT v.build_id AS t, v.vid, v.path_id, v.content_id,
  v.size, v.origin, p.path, c.sha256, c.size AS csize, coalesce(bench_own(p.path), false) AS own
  FROM version v LEFT JOIN path p ON p.id = v.path_id LEFT JOIN content c ON c.id = v.content_id;
CREATE UNLOGGED TABLE bench_cl AS SELECT build_id AS t, product_vid, vid, role, guess,
  package_id FROM closure WHERE :all OR role NOT IN ('script', 'tool', 'probe', 'other');
CREATE INDEX ON bench_cl (t, product_vid);
CREATE UNLOGGED TABLE bench_pk AS SELECT DISTINCT cl.build_id AS t, pk.* FROM closure cl
  JOIN package pk ON pk.id = cl.package_id;
CREATE UNLOGGED TABLE bench_pp AS SELECT build_id AS t, product_vid, package_id, role, files
  FROM product_package;
ANALYZE bench_v; ANALYZE bench_cl; ANALYZE bench_pk; ANALYZE bench_pp;
SQL
cat > "$d/fill.sql" <<'SQL'
CREATE TEMP TABLE bm ON COMMIT DROP AS SELECT i, 1 + i % :n AS t,
  convert_to('/srv/b' || i, 'UTF8') AS pre FROM generate_series(:a, :b) i;
INSERT INTO build (identity, name, trace_path, trace_size, hostname, cwd, argv, state,
                   complete, incomplete, started, finished, exit_status, recorder, packages_from)
  SELECT sha256(b.identity || int4send(i)), regexp_replace(b.name, '-[0-9.]+$', '') || '-b' || i
         || '_1.' || (i % 7), convert_to('/srv/traces/' || i || '.db', 'UTF8'), trace_size,
         hostname, pre || cwd, argv, state, complete, incomplete,
         started + i * interval '1 hour', finished + i * interval '1 hour', exit_status, recorder,
         packages_from
  FROM bm JOIN build b ON b.id = bm.t ORDER BY i;
CREATE TEMP TABLE bmn ON COMMIT DROP AS SELECT bm.*, nb.id AS nb FROM bm
  JOIN build tb ON tb.id = bm.t JOIN build nb ON nb.identity = sha256(tb.identity || int4send(bm.i));
INSERT INTO build_label SELECT nb, 'arch', 'amd64' FROM bmn;
INSERT INTO path (path) SELECT DISTINCT pre || v.path FROM bmn JOIN bench_v v ON v.t = bmn.t
  WHERE v.own ON CONFLICT (digest) DO NOTHING;
INSERT INTO content (sha256, size) SELECT DISTINCT bench_sha(v.sha256, i), v.csize
  FROM bmn JOIN bench_v v ON v.t = bmn.t WHERE v.own AND v.sha256 IS NOT NULL
  ON CONFLICT (sha256) DO NOTHING;
INSERT INTO version SELECT nb, v.vid, CASE WHEN v.own THEN np.id ELSE v.path_id END,
    CASE WHEN v.own THEN nc.id ELSE v.content_id END, v.size, v.origin
  FROM bmn JOIN bench_v v ON v.t = bmn.t
  LEFT JOIN path np ON v.own AND np.digest = sha256(pre || v.path)
  LEFT JOIN content nc ON v.own AND nc.sha256 = bench_sha(v.sha256, i);
INSERT INTO process SELECT nb, p.id, p.parent, p.prev_image, p.argv_id, p.exe_id, p.cwd_id,
    p.exit_code, p.exit_signal FROM bmn JOIN process p ON p.build_id = bmn.t WHERE :all;
INSERT INTO product SELECT nb, p.vid, p.license, p.leaves FROM bmn
  JOIN product p ON p.build_id = bmn.t
  WHERE abs(hashtext(i || ':' || p.vid)) % 8 = 0
     OR p.vid = (SELECT min(vid) FROM product q WHERE q.build_id = bmn.t);
INSERT INTO package (name, version, arch, source, source_version)
  SELECT DISTINCT bench_pkg(pk.name, i), pk.version || bench_pkv(i), pk.arch, pk.source,
         pk.source_version FROM bmn JOIN bench_pk pk ON pk.t = bmn.t ORDER BY 1, 2, 3
  ON CONFLICT DO NOTHING;
CREATE TEMP TABLE pm ON COMMIT DROP AS SELECT bmn.i, pk.id AS old, np.id AS new
  FROM bmn JOIN bench_pk pk ON pk.t = bmn.t JOIN package np ON np.name = bench_pkg(pk.name, i)
  AND np.version = pk.version || bench_pkv(i) AND np.arch = pk.arch;
INSERT INTO closure SELECT nb, cl.product_vid, cl.vid, cl.role, cl.guess, pm.new
  FROM bmn JOIN product p ON p.build_id = bmn.nb
  JOIN bench_cl cl ON cl.t = bmn.t AND cl.product_vid = p.vid
  LEFT JOIN pm ON pm.i = bmn.i AND pm.old = cl.package_id;
INSERT INTO edge SELECT nb, e.vid, e.from_vid, e.role FROM bmn JOIN edge e ON e.build_id = bmn.t;
INSERT INTO product_package SELECT nb, pp.product_vid, coalesce(pm.new, pp.package_id),
    pp.role, pp.files
  FROM bmn JOIN product p ON p.build_id = bmn.nb
  JOIN bench_pp pp ON pp.t = bmn.t AND pp.product_vid = p.vid
  LEFT JOIN pm ON pm.i = bmn.i AND pm.old = pp.package_id;
INSERT INTO build_package SELECT pp.build_id, pp.package_id,
    bool_or(role IN ('source', 'object', 'copy', 'generated')), bool_or(role = 'header'),
    bool_or(role = 'runtime'), bool_or(role = 'shlib'), bool_or(role = 'tool'),
    bool_or(role = 'unlinked-archive')
  FROM bmn JOIN product_package pp ON pp.build_id = bmn.nb GROUP BY 1, 2;
SQL
s0=$(now)
step=${STEP:-100}
for ((a = ntempl + 1; a <= builds; a += step)); do
    b=$((a + step - 1 < builds ? a + step - 1 : builds))
    sql -1 -v a=$a -v b=$b -v n="$ntempl" -v all="$all" -f "$d/fill.sql"
    echo "filled to build $b: $(echo "$(now) - $s0" | bc) s" >&2
done
echo "fill: $(echo "$(now) - $s0" | bc) s for $((builds - ntempl)) builds"
fi
# (a fill stopped part way leaves the templates' copies behind: not the store's)
sql -c "DROP TABLE IF EXISTS bench_v, bench_cl, bench_pk, bench_pp" -c "VACUUM ANALYZE" -c "CHECKPOINT"
sql -c "SELECT 'builds ' || count(*) || ', database ' || pg_size_pretty(pg_database_size('postgres'))
        || ', per build ' || pg_size_pretty(pg_database_size('postgres') / count(*)) FROM build"
sql -c "SELECT relname, pg_size_pretty(pg_total_relation_size(oid)), reltuples::bigint FROM pg_class
        WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace
        ORDER BY pg_total_relation_size(oid) DESC"
best() { # the best of 3 wall times of a command, and its first output line
    local b=999 line
    for _ in 1 2 3; do
        local s0 s1; s0=$(now); line=$("$@" | head -1 || true); s1=$(now)
        b=$(echo "x = $s1 - $s0; if (x < $b) x else $b" | bc)
    done
    printf '%6.2f s  %s  [%s]\n' "$b" "${*:2}" "$line"
}
# A vendored file (in the 10 builds of a group), a system header in every build, one library's
# variant, libc6-dev (every build), zlib's headers.
shared=$(sql -c "SELECT encode(c.sha256, 'hex') FROM content c JOIN version v ON v.content_id = c.id
   JOIN closure cl ON cl.build_id = v.build_id AND cl.vid = v.vid
   WHERE cl.role IN ('source', 'header') AND cl.package_id IS NULL
   AND v.build_id > (SELECT max(id) - 50 FROM build)
   AND (SELECT count(DISTINCT v2.build_id) FROM version v2 WHERE v2.content_id = c.id) > 1 LIMIT 1")
header=$(sql -c "SELECT encode(c.sha256, 'hex') FROM content c JOIN version v ON v.content_id = c.id
   JOIN path p ON p.id = v.path_id WHERE v.build_id = 1 AND p.path = '/usr/include/stdio.h'::bytea LIMIT 1")
variant=$(sql -c "SELECT pk.name FROM product_package u JOIN package pk ON pk.id = u.package_id
   WHERE pk.name ~ '-v7$' AND u.role IN ('header', 'source', 'object') ORDER BY 1 LIMIT 1")
# the package whose files are in the most builds' products
widest=$(sql -c "SELECT pk.name FROM build_package bp JOIN package pk ON pk.id = bp.package_id
   GROUP BY pk.name ORDER BY count(DISTINCT bp.build_id) DESC, 1 LIMIT 1")
qs=("who-ships sha256:$shared" "who-ships sha256:$header" "uses $variant" "uses zlib1g-dev"
    "uses libc6-dev" "uses $widest" "uses --limit 0 $widest")
for q in "${qs[@]}"; do
    best "$bt" store $q
done
# Each once more with its statements' plans (auto_explain, EXPLAIN ANALYZE) in the server's log.
off=$(stat -c %s "$d/log")
for q in "${qs[@]}"; do
    PGOPTIONS="-c session_preload_libraries=auto_explain -c auto_explain.log_min_duration=0
               -c auto_explain.log_analyze=on -c auto_explain.log_buffers=on" \
        "$bt" store $q >/dev/null || true
done
tail -c +$((off + 1)) "$d/log" > "$d/explain.log"
echo "plans: $d/explain.log${keep:+ (kept)}"
[ -n "$keep" ] || grep -E 'Query Text|Execution Time|duration' "$d/explain.log" | cut -c1-200
if [ -n "$big" ]; then
    s0=$(now)
    "$bt" store push --allow-incomplete -d "$big" --json > "$d/big.json"
    echo "push of $(basename "$big"): $(echo "$(now) - $s0" | bc) s ($(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("read", d["read_seconds"], "s, sent", d["send_seconds"], "s, rows", d["rows"])' "$d/big.json"))"
fi
