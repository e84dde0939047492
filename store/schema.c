/* schema — the store's schema as an ordered array of migrations (docs/store.md describes each
 * table and view).  Migration N brings a database from version N-1 to N; pgstore_init applies
 * those above the database's version, in order, in one transaction.  Never edit a migration
 * that was released: add the next one (and raise STORE_SCHEMA_VERSION in pgstore.h). */
#include "schema.h"

#include "pgstore.h"

static const char migration_1[] =
    /* Content, interned across builds: one row per SHA-256, per path, per command line, per
     * installed package.  Paths and command lines are bytea (any byte survives); a path is
     * unique by its digest (a btree entry cannot hold a 4 KiB path). */
    "CREATE TABLE content (id bigserial PRIMARY KEY, sha256 bytea NOT NULL UNIQUE,"
    "  size bigint);"
    "CREATE TABLE path (id bigserial PRIMARY KEY, path bytea NOT NULL,"
    "  digest bytea GENERATED ALWAYS AS (sha256(path)) STORED UNIQUE);"
    "CREATE TABLE argv (id bigserial PRIMARY KEY, sha256 bytea NOT NULL UNIQUE,"
    "  argv bytea NOT NULL);"
    "CREATE TABLE package (id bigserial PRIMARY KEY, name text NOT NULL, version text NOT NULL,"
    "  arch text NOT NULL, source text, source_version text, UNIQUE (name, version, arch));"
    /* One row per pushed trace: identity is the SHA-256 of the trace file. */
    "CREATE TABLE build (id bigserial PRIMARY KEY, identity bytea NOT NULL UNIQUE, name text,"
    "  trace_path bytea NOT NULL, trace_size bigint NOT NULL, hostname text, cwd bytea,"
    "  argv bytea, state text NOT NULL, complete boolean NOT NULL, incomplete text,"
    "  started timestamptz, finished timestamptz, exit_status integer, recorder text,"
    "  pushed timestamptz NOT NULL DEFAULT now());"
    "CREATE TABLE build_label (build_id bigint NOT NULL REFERENCES build ON DELETE CASCADE,"
    "  key text NOT NULL, value text NOT NULL, PRIMARY KEY (build_id, key));"
    /* Per build: processes, the versions the rows below name, products, their closures'
     * leaves, and the one-step code edges a chain is drawn along. */
    "CREATE TABLE process (build_id bigint NOT NULL REFERENCES build ON DELETE CASCADE,"
    "  id bigint NOT NULL, parent bigint, prev_image bigint, argv_id bigint REFERENCES argv,"
    "  exe_id bigint REFERENCES path, cwd_id bigint REFERENCES path, exit_code integer,"
    "  exit_signal integer, PRIMARY KEY (build_id, id));"
    "CREATE TABLE version (build_id bigint NOT NULL REFERENCES build ON DELETE CASCADE,"
    "  vid bigint NOT NULL, path_id bigint REFERENCES path, content_id bigint REFERENCES content,"
    "  size bigint, origin text NOT NULL, PRIMARY KEY (build_id, vid));"
    "CREATE INDEX version_content ON version (content_id);"
    "CREATE TABLE product (build_id bigint NOT NULL REFERENCES build ON DELETE CASCADE,"
    "  vid bigint NOT NULL, license text, PRIMARY KEY (build_id, vid));"
    "CREATE TABLE closure (build_id bigint NOT NULL REFERENCES build ON DELETE CASCADE,"
    "  product_vid bigint NOT NULL, vid bigint NOT NULL, role text NOT NULL,"
    "  guess boolean NOT NULL, package_id bigint REFERENCES package,"
    "  PRIMARY KEY (build_id, product_vid, vid));"
    "CREATE INDEX closure_version ON closure (build_id, vid);"
    "CREATE INDEX closure_package ON closure (package_id);"
    "CREATE TABLE edge (build_id bigint NOT NULL REFERENCES build ON DELETE CASCADE,"
    "  vid bigint NOT NULL, from_vid bigint NOT NULL, role text NOT NULL,"
    "  PRIMARY KEY (build_id, vid, from_vid));"
    "CREATE INDEX edge_from ON edge (build_id, from_vid);"
    /* Views for people with psql: paths as text (bytes that are not UTF-8 escaped), hashes
     * as hex. */
    "CREATE VIEW builds AS SELECT b.id, b.name, encode(b.trace_path, 'escape') AS trace,"
    "  encode(b.identity, 'hex') AS trace_sha256, b.state, b.complete, b.incomplete,"
    "  b.started, b.finished, b.exit_status, b.pushed,"
    "  (SELECT count(*) FROM product p WHERE p.build_id = b.id) AS products FROM build b;"
    "CREATE VIEW products AS SELECT p.build_id, encode(pa.path, 'escape') AS path,"
    "  encode(c.sha256, 'hex') AS sha256, v.size, p.license FROM product p"
    "  JOIN version v ON v.build_id = p.build_id AND v.vid = p.vid"
    "  LEFT JOIN path pa ON pa.id = v.path_id LEFT JOIN content c ON c.id = v.content_id;"
    "CREATE VIEW closures AS SELECT cl.build_id, encode(pp.path, 'escape') AS product,"
    "  encode(lp.path, 'escape') AS leaf, encode(c.sha256, 'hex') AS sha256, cl.role,"
    "  cl.guess, pk.name AS package, pk.version AS package_version"
    "  FROM closure cl JOIN version pv ON pv.build_id = cl.build_id AND pv.vid = cl.product_vid"
    "  LEFT JOIN path pp ON pp.id = pv.path_id"
    "  JOIN version lv ON lv.build_id = cl.build_id AND lv.vid = cl.vid"
    "  LEFT JOIN path lp ON lp.id = lv.path_id LEFT JOIN content c ON c.id = lv.content_id"
    "  LEFT JOIN package pk ON pk.id = cl.package_id;"
    "CREATE VIEW build_packages AS SELECT cl.build_id, pk.name, pk.version, pk.source,"
    "  bool_or(cl.role IN ('source', 'object', 'copy', 'generated')) AS code,"
    "  bool_or(cl.role = 'header') AS headers, bool_or(cl.role = 'runtime') AS runtime,"
    "  bool_or(cl.role = 'shlib') AS shlib, bool_or(cl.role = 'tool') AS tool"
    "  FROM closure cl JOIN package pk ON pk.id = cl.package_id"
    "  GROUP BY cl.build_id, pk.id;";

static const char migration_2[] =
    /* `uses` at an archive's scale: per build, product, package and role, how many of the
     * closure's leaves the package owns (the closure rows `uses` grouped at every question,
     * grouped once at push time: a package in every build has 10^4 to 10^5 of these rows
     * against 10^7 closure rows, docs/performance.md).  Filled here for the builds already
     * stored; closure_package is no longer read (it was `uses`' index). */
    "CREATE TABLE product_package (build_id bigint NOT NULL REFERENCES build ON DELETE CASCADE,"
    "  product_vid bigint NOT NULL, package_id bigint NOT NULL REFERENCES package,"
    "  role text NOT NULL, files integer NOT NULL,"
    "  PRIMARY KEY (build_id, product_vid, package_id, role));"
    "INSERT INTO product_package SELECT build_id, product_vid, package_id, role, count(*)"
    "  FROM closure WHERE package_id IS NOT NULL GROUP BY build_id, product_vid, package_id, role;"
    "CREATE INDEX product_package_package ON product_package (package_id);"
    "DROP INDEX closure_package;"
    "CREATE OR REPLACE VIEW build_packages AS SELECT pp.build_id, pk.name, pk.version, pk.source,"
    "  bool_or(pp.role IN ('source', 'object', 'copy', 'generated')) AS code,"
    "  bool_or(pp.role = 'header') AS headers, bool_or(pp.role = 'runtime') AS runtime,"
    "  bool_or(pp.role = 'shlib') AS shlib, bool_or(pp.role = 'tool') AS tool"
    "  FROM product_package pp JOIN package pk ON pk.id = pp.package_id"
    "  GROUP BY pp.build_id, pk.id;";

static const char migration_3[] =
    /* A push at a big build's size (1.5M closure rows, 1.3M edges: docs/performance.md): the
     * per-build tables lose their per-row foreign keys (a push inserts the build's row in the
     * same transaction, and the closure, edges and product_package are COPYed straight in;
     * `store rm` deletes from each table), and `uses` counts builds from one row per build and
     * package (build_package) instead of grouping every product's rows at each question. */
    "ALTER TABLE process DROP CONSTRAINT process_build_id_fkey;"
    "ALTER TABLE version DROP CONSTRAINT version_build_id_fkey;"
    "ALTER TABLE product DROP CONSTRAINT product_build_id_fkey;"
    "ALTER TABLE closure DROP CONSTRAINT closure_build_id_fkey,"
    "  DROP CONSTRAINT closure_package_id_fkey;"
    "ALTER TABLE edge DROP CONSTRAINT edge_build_id_fkey;"
    /* and the closure and the edges keep one index each, the one a question reads
     * (closure_version, edge_from): each index is a btree insertion per row (a push's closure
     * COPYed in 3 s without indexes, 28 s with two); a product's leaf count (what `show` read
     * the closure's primary key for) is kept in product.leaves. The rows are unique by
     * construction (collect.c writes each once). */
    "ALTER TABLE closure DROP CONSTRAINT closure_pkey;"
    /* who-ships probes closure_version once per stored version of the content (a header in
     * every build: one per build) and keeps the rows with a code role: with the role and the
     * product in the index, the probe does not read the table */
    "DROP INDEX closure_version;"
    "CREATE INDEX closure_version ON closure (build_id, vid) INCLUDE (role, product_vid);"
    "ALTER TABLE edge DROP CONSTRAINT edge_pkey;"
    "ALTER TABLE product ADD COLUMN leaves integer;"
    "UPDATE product p SET leaves = (SELECT count(*) FROM closure c"
    "  WHERE c.build_id = p.build_id AND c.product_vid = p.vid);"
    "ALTER TABLE product_package DROP CONSTRAINT product_package_build_id_fkey,"
    "  DROP CONSTRAINT product_package_package_id_fkey;"
    "CREATE TABLE build_package (build_id bigint NOT NULL, package_id bigint NOT NULL,"
    "  code boolean NOT NULL, headers boolean NOT NULL, runtime boolean NOT NULL,"
    "  shlib boolean NOT NULL, tool boolean NOT NULL, unlinked boolean NOT NULL,"
    "  PRIMARY KEY (build_id, package_id));"
    "INSERT INTO build_package SELECT build_id, package_id,"
    "  bool_or(role IN ('source', 'object', 'copy', 'generated')), bool_or(role = 'header'),"
    "  bool_or(role = 'runtime'), bool_or(role = 'shlib'), bool_or(role = 'tool'),"
    "  bool_or(role = 'unlinked-archive') FROM product_package GROUP BY build_id, package_id;"
    "CREATE INDEX build_package_package ON build_package (package_id, build_id);"
    "CREATE OR REPLACE VIEW build_packages AS SELECT bp.build_id, pk.name, pk.version,"
    "  pk.source, bp.code, bp.headers, bp.runtime, bp.shlib, bp.tool"
    "  FROM build_package bp JOIN package pk ON pk.id = bp.package_id;"
    /* Which machine's dpkg database named the build's packages (`push` names them there). */
    "ALTER TABLE build ADD COLUMN packages_from text;";

static const char *const migrations[] = {
    NULL, /* version 0: no schema */
    migration_1,
    migration_2,
    migration_3,
};

G_STATIC_ASSERT(G_N_ELEMENTS(migrations) == STORE_SCHEMA_VERSION + 1);

const char *store_migration(int version)
{
    return version >= 1 && version <= STORE_SCHEMA_VERSION ? migrations[version] : NULL;
}
