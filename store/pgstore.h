/* pgstore — the store in PostgreSQL, through libpq: connecting, the versioned schema and its
 * migrations, pushing one collected trace in one transaction, and the questions across builds.
 *
 * Contract
 *   - Prints nothing: every function returns 0 / a result, or a negative errno with a
 *     sentence in *err (g_free it) naming the fix where there is one.
 *   - pgstore_connect(): the database as libpq names it: `conninfo` (--store), else
 *     $BUILDTRAIL_STORE, else "" (libpq's PG* variables and service file).  A conninfo that
 *     holds a password is refused (-EPERM), and so is a set $PGPASSWORD: passwords come from
 *     libpq's own means (.pgpass, PGPASSFILE, a service file), never argv or a variable a
 *     trace records.  A connection is given up after 20 s unless the string's connect_timeout
 *     or $PGCONNECT_TIMEOUT says otherwise; once connected, a statement's result (or the
 *     server's taking COPY rows, sent in nonblocking mode) is waited for at most
 *     $BUILDTRAIL_STORE_TIMEOUT seconds of silence (300): then -ETIMEDOUT, and the connection
 *     is used no more (no ROLLBACK sent; the server rolls back when it sees it closed).
 *   - The schema is versioned (table bt_schema); STORE_SCHEMA_VERSION is this binary's.
 *     pgstore_init() applies the migrations (an ordered array in schema.c) above the
 *     database's version, in one transaction under an advisory lock; a database whose version
 *     is newer is refused (-EPROTO) and left as it is.  Every other call checks the version
 *     first: older is "run store init", newer is refused; a table or view the migrations
 *     make that is gone (dropped or renamed by hand) is -EUCLEAN, "the store is damaged",
 *     from pgstore_init() too.
 *   - pgstore_push(): one transaction: a transaction-scoped advisory lock on the identity
 *     (two pushes of one trace wait for each other), nothing added when a build of that
 *     identity is there (returns 1, *build_id the existing one), else COPY into temporary
 *     tables, interned content (content, path, argv, package: INSERT ... ON CONFLICT DO
 *     NOTHING, in key order so that concurrent pushers never deadlock), then the build's rows
 *     (closure, edge, product_package COPYed straight in, the build's id and package ids put
 *     in here), build_package, then COMMIT.  A timeout's *err says whether anything may be
 *     stored (only when it came at COMMIT).  A push killed at any moment leaves nothing: the server rolls back.
 *     $BUILDTRAIL_STORE_TEST_PAUSE (tests only) = SECONDS sleeps before COMMIT, = copy:SECONDS
 *     in the middle of the closure rows' COPY, after writing "pausing" to pause_fd, so that a
 *     test can kill a push inside its transaction.
 *   - Queries return a PGresult (PQclear it) whose columns are named by the enums below.
 *   - Single-threaded; one connection per struct pgstore.
 */
#pragma once

#include "collect.h"

#include <libpq-fe.h>
#include <stdbool.h>
#include <stdint.h>

#define STORE_SCHEMA_VERSION 3

struct pgstore;

int pgstore_connect(const char *conninfo, struct pgstore **out, char **err);
void pgstore_close(struct pgstore *s);
/* The database's schema version (0: none), or a negative errno. */
int pgstore_schema_version(struct pgstore *s, char **err);
/* *from: the version found; *to: the version now. */
int pgstore_init(struct pgstore *s, int *from, int *to, char **err);
/* 0: the schema is this binary's; else a negative errno and the fix. */
int pgstore_check(struct pgstore *s, char **err);
/* Every statement after it reads one snapshot (a REPEATABLE READ, READ ONLY transaction, ended
 * by pgstore_close): a question's count of the builds it covered and its rows agree while
 * others push and remove builds. */
int pgstore_read_snapshot(struct pgstore *s, char **err);

struct store_label { const char *key, *value; };
/* 0: stored as *build_id; 1: already stored as *build_id; < 0: error. */
int pgstore_push(struct pgstore *s, const struct store_trace *t, const char *name,
                 const struct store_label *labels, int nlabels, int pause_fd,
                 int64_t *build_id, char **err);

/* The build stored with that identity (hex), 0 when none, or a negative errno; *complete
 * its completeness. */
int64_t pgstore_find(struct pgstore *s, const char *identity, bool *complete, char **err);

/* How many builds the store holds (what each answer covered). */
int64_t pgstore_count_builds(struct pgstore *s, char **err);

/* LIST_LABELS: "KEYHEX=VALUEHEX,..." in key order (pgstore_labels splits it), or NULL;
 * LIST_PACKAGES_FROM: "HOST:ADMINDIR", the dpkg database that named the build's packages. */
enum list_col { LIST_ID, LIST_NAME, LIST_STARTED, LIST_STATE, LIST_COMPLETE, LIST_PRODUCTS,
                LIST_TRACE, LIST_SHA256, LIST_LABELS, LIST_PACKAGES_FROM };
/* LIST_LABELS' text as its keys and values, alternately (g_strfreev). */
char **pgstore_labels(const char *hexpairs);
PGresult *pgstore_list(struct pgstore *s, int64_t only_build, char **err);

enum show_product_col { SP_PATH, SP_SHA256, SP_LICENSE, SP_LEAVES };
PGresult *pgstore_show_products(struct pgstore *s, int64_t build, char **err);
enum show_package_col { SK_NAME, SK_VERSION, SK_CODE, SK_HEADERS, SK_RUNTIME, SK_SHLIB,
                        SK_TOOL };
PGresult *pgstore_show_packages(struct pgstore *s, int64_t build, char **err);
/* 0 removed, -ENOENT no such build. */
int pgstore_rm(struct pgstore *s, int64_t build, char **err);

/* who-ships: the builds with a product whose closure (code roles) holds that content, or
 * that is it (one column, the build's id, in order): every one, exactly; then the rows of
 * `builds` (some of those): every such product. */
PGresult *pgstore_who_ships_builds(struct pgstore *s, const char *sha256_hex, char **err);
enum ships_col { SH_BUILD, SH_NAME, SH_PRODUCT, SH_PRODUCT_VID, SH_LEAF, SH_LEAF_VID, SH_ROLE };
PGresult *pgstore_who_ships(struct pgstore *s, const char *sha256_hex, const int64_t *builds,
                            int nbuilds, char **err);
/* The code edges among what carries any of the leaves (builds[i], leaves[i]), of every build
 * at once (one query for the whole answer: a header in every build is one round trip, not
 * one per build), then the chain in build `build` from product `top` down to version `leaf`:
 * its paths, the first below the product, the leaf last (g_ptr_array_free), or NULL when none
 * is stored (the leaf is the product). */
struct pgstore_edges;
struct pgstore_edges *pgstore_edges_load(struct pgstore *s, const int64_t *builds,
                                         const int64_t *leaves, int n, char **err);
GPtrArray *pgstore_chain(const struct pgstore_edges *e, int64_t build, int64_t top, int64_t leaf);
void pgstore_edges_free(struct pgstore_edges *e);

/* uses: the package's versions in the store (one column), to pick those a VERSION names
 * (debver); the builds whose products hold any of its files, of `versions` (nversions < 0:
 * any), code first (columns: the build's id, whether code), every one; then per build of
 * `builds` and product, how that package's files are in its closure. */
PGresult *pgstore_package_versions(struct pgstore *s, const char *package, char **err);
PGresult *pgstore_uses_builds(struct pgstore *s, const char *package,
                              const char *const *versions, int nversions, char **err);
enum uses_col { US_BUILD, US_NAME, US_PRODUCT, US_VERSION, US_CODE, US_HEADERS, US_ROLES,
                US_FILES };
PGresult *pgstore_uses(struct pgstore *s, const char *package, const char *const *versions,
                       int nversions, const int64_t *builds, int nbuilds, char **err);

/* copies: compiled sources and headers of each build's own tree (no package owns them) whose
 * content is in another build or in `known` (hex sha256 list, may be NULL). */
enum copies_col { CP_SHA256, CP_BUILD, CP_NAME, CP_PATH, CP_CWD, CP_ROLE };
PGresult *pgstore_copies(struct pgstore *s, const char *const *known, int nknown, char **err);

/* A bytea column as its bytes (g_free; *len set), or NULL for SQL NULL. */
char *pgstore_bytea(const PGresult *r, int row, int col, size_t *len);
