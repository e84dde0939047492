/* pgstore — the store in PostgreSQL (contract in pgstore.h). */
#include "pgstore.h"

#include "schema.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct pgstore {
    PGconn *conn;
};

static void no_notice(void *arg, const char *message)
{
    (void)arg;
    (void)message;
}

/* The first line of libpq's message (it may end in newlines or hold a DETAIL). */
static char *first_line(const char *msg)
{
    if (!msg || !*msg)
        return g_strdup("unknown error");
    const char *nl = strchr(msg, '\n');
    return g_strndup(msg, nl ? (size_t)(nl - msg) : strlen(msg));
}

static int fail_conn(struct pgstore *s, const char *what, char **err)
{
    g_autofree char *m = first_line(PQerrorMessage(s->conn));
    *err = g_strdup_printf("%s: %s", what, m);
    return -EIO;
}

static int fail_res(PGresult *r, const char *what, char **err)
{
    g_autofree char *m = first_line(PQresultErrorMessage(r));
    *err = g_strdup_printf("%s: %s", what, m);
    PQclear(r);
    return -EIO;
}

/* Run a statement with no result rows; 0 or -EIO. */
static int exec(struct pgstore *s, const char *sql, const char *what, char **err)
{
    PGresult *r = PQexec(s->conn, sql);
    ExecStatusType st = PQresultStatus(r);
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
        return fail_res(r, what, err);
    PQclear(r);
    return 0;
}

static PGresult *query(struct pgstore *s, const char *sql, int n, const char *const *params,
                       const char *what, char **err)
{
    PGresult *r = PQexecParams(s->conn, sql, n, NULL, params, NULL, NULL, 0);
    ExecStatusType st = PQresultStatus(r);
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
        fail_res(r, what, err);
        return NULL;
    }
    return r;
}

/* query() with one parameter, a build id ($1::bigint). */
static PGresult *query_build(struct pgstore *s, int64_t build, const char *sql, const char *what,
                             char **err)
{
    g_autofree char *b = g_strdup_printf("%" G_GINT64_FORMAT, build);
    const char *p[] = {b};
    return query(s, sql, 1, p, what, err);
}

int pgstore_connect(const char *conninfo, struct pgstore **out, char **err)
{
    *out = NULL;
    const char *from = "--store";
    if (!conninfo) {
        conninfo = getenv("BUILDTRAIL_STORE");
        from = "$BUILDTRAIL_STORE";
    }
    if (!conninfo) {
        conninfo = "";
        from = "the PG* variables";
    }
    char *perr = NULL;
    PQconninfoOption *opts = PQconninfoParse(conninfo, &perr);
    if (!opts) {
        g_autofree char *m = first_line(perr);
        PQfreemem(perr);
        *err = g_strdup_printf("%s is not a connection string (%s); give one as "
                               "'host=/run/postgresql dbname=builds' or "
                               "'postgresql://host/builds'", from, m);
        return -EINVAL;
    }
    bool password = false;
    for (PQconninfoOption *o = opts; o->keyword; o++)
        if (!strcmp(o->keyword, "password") && o->val && *o->val)
            password = true;
    PQconninfoFree(opts);
    if (password) {
        *err = g_strdup_printf("%s holds a password; put it in ~/.pgpass, $PGPASSFILE or a "
                               "service file, never on a command line", from);
        return -EPERM;
    }
    /* libpq would take $PGPASSWORD, which every build traced from this shell records */
    const char *pw = getenv("PGPASSWORD");
    if (pw && *pw) {
        *err = g_strdup("$PGPASSWORD is set; unset it and put the password in ~/.pgpass, "
                        "$PGPASSFILE or a service file, never a variable");
        return -EPERM;
    }
    /* libpq waits forever for a server that accepts and never answers (hung, stopped): a
     * bound, unless the connection string or $PGCONNECT_TIMEOUT gives one (the string's
     * fields override the entries before it) */
    const char *const keys[] = {"connect_timeout", "dbname", NULL};
    const char *const vals[] = {getenv("PGCONNECT_TIMEOUT") ? NULL : "20", conninfo, NULL};
    PGconn *c = PQconnectdbParams(keys, vals, 1);
    if (!c) {
        *err = g_strdup("out of memory");
        return -ENOMEM;
    }
    if (PQstatus(c) != CONNECTION_OK) {
        g_autofree char *m = first_line(PQerrorMessage(c));
        *err = g_strdup_printf("cannot connect to the store named by %s: %s; %s", from, m,
                               !strcmp(from, "--store") ? "check --store"
                               : !strcmp(from, "$BUILDTRAIL_STORE") ? "check $BUILDTRAIL_STORE"
                               : "name the store with --store or $BUILDTRAIL_STORE (or the "
                                 "PG* variables)");
        PQfinish(c);
        return -ECONNREFUSED;
    }
    /* A notice (an IF NOT EXISTS that was) is not ours to print. */
    PQsetNoticeProcessor(c, no_notice, NULL);
    /* No JIT: the questions' plans look costly on a big store (millions of estimated rows)
     * and JIT compiled them for seconds on a loaded machine before reading the hundred
     * thousand rows they read (docs/performance.md). */
    PGresult *jr = PQexec(c, "SET jit = off");
    if (PQresultStatus(jr) != PGRES_COMMAND_OK) {
        g_autofree char *m = first_line(PQresultErrorMessage(jr));
        *err = g_strdup_printf("cannot set up the connection to the store named by %s: %s",
                               from, m);
        PQclear(jr);
        PQfinish(c);
        return -EIO;
    }
    PQclear(jr);
    struct pgstore *s = g_new0(struct pgstore, 1);
    s->conn = c;
    *out = s;
    return 0;
}

void pgstore_close(struct pgstore *s)
{
    if (!s)
        return;
    PQfinish(s->conn);
    g_free(s);
}

int pgstore_schema_version(struct pgstore *s, char **err)
{
    PGresult *r = query(s, "SELECT to_regclass('bt_schema') IS NOT NULL", 0, NULL,
                        "reading the store's schema version", err);
    if (!r)
        return -EIO;
    bool has = !strcmp(PQgetvalue(r, 0, 0), "t");
    PQclear(r);
    if (!has)
        return 0;
    r = query(s, "SELECT max(version) FROM bt_schema", 0, NULL,
              "reading the store's schema version", err);
    if (!r)
        return -EIO;
    int v = PQntuples(r) && !PQgetisnull(r, 0, 0) ? atoi(PQgetvalue(r, 0, 0)) : 0;
    PQclear(r);
    return v;
}

static char *newer_message(int v)
{
    return g_strdup_printf("the store's schema is version %d, newer than this buildtrail's "
                           "(%d); use the buildtrail that made it (or a newer one), or "
                           "another database",
                           v, STORE_SCHEMA_VERSION);
}

/* The tables and views the migrations up to this binary's make, read from their text. */
static char *schema_relations(void)
{
    GString *arr = g_string_new("{");
    static const char *const makes[] = {"CREATE TABLE ", "CREATE VIEW "};
    for (int v = 1; v <= STORE_SCHEMA_VERSION; v++)
        for (size_t k = 0; k < G_N_ELEMENTS(makes); k++)
            for (const char *at = store_migration(v); (at = strstr(at, makes[k]));) {
                at += strlen(makes[k]);
                size_t n = strspn(at, "abcdefghijklmnopqrstuvwxyz_0123456789");
                g_string_append_printf(arr, "%s%.*s", arr->len > 1 ? "," : "", (int)n, at);
            }
    g_string_append_c(arr, '}');
    return g_string_free(arr, FALSE);
}

/* 0 when every table and view of the schema is there; else -EUCLEAN naming the first gone
 * (dropped or renamed by hand). */
static int check_relations(struct pgstore *s, char **err)
{
    g_autofree char *arr = schema_relations();
    const char *p[] = {arr};
    PGresult *r = query(s, "SELECT n FROM unnest($1::text[]) n WHERE to_regclass(n) IS NULL"
                           " LIMIT 1", 1, p, "checking the store's tables", err);
    if (!r)
        return -EIO;
    int ret = 0;
    if (PQntuples(r)) {
        *err = g_strdup_printf("the store is damaged: its table or view %s is gone; restore the "
                               "database from a backup, or init another and push the traces "
                               "again", PQgetvalue(r, 0, 0));
        ret = -EUCLEAN;
    }
    PQclear(r);
    return ret;
}

int pgstore_init(struct pgstore *s, int *from, int *to, char **err)
{
    g_autofree char *set = NULL;
    int r = exec(s, "BEGIN", "starting a transaction", err);
    if (r < 0)
        return r;
    /* One initialiser at a time (a constant key: the store's own). */
    if ((r = exec(s, "SELECT pg_advisory_xact_lock(1651799411, 0)", "locking the schema", err)) < 0 ||
        (r = exec(s, "CREATE TABLE IF NOT EXISTS bt_schema (version integer NOT NULL)",
                  "creating the schema table", err)) < 0)
        goto rollback;
    r = pgstore_schema_version(s, err);
    if (r < 0)
        goto rollback;
    *from = r;
    *to = r;
    if (r > STORE_SCHEMA_VERSION) {
        *err = newer_message(r);
        r = -EPROTO;
        goto rollback;
    }
    for (int v = *from + 1; v <= STORE_SCHEMA_VERSION; v++) {
        g_autofree char *what = g_strdup_printf("migrating the store to schema version %d", v);
        if ((r = exec(s, store_migration(v), what, err)) < 0)
            goto rollback;
        *to = v;
    }
    if ((r = check_relations(s, err)) < 0 ||
        (r = exec(s, "DELETE FROM bt_schema", "writing the schema version", err)) < 0)
        goto rollback;
    set = g_strdup_printf("INSERT INTO bt_schema VALUES (%d)", *to);
    if ((r = exec(s, set, "writing the schema version", err)) < 0 ||
        (r = exec(s, "COMMIT", "committing the schema", err)) < 0)
        goto rollback;
    return 0;
rollback:
    PQclear(PQexec(s->conn, "ROLLBACK"));
    return r;
}

int pgstore_check(struct pgstore *s, char **err)
{
    int v = pgstore_schema_version(s, err);
    if (v < 0)
        return v;
    if (v > STORE_SCHEMA_VERSION) {
        *err = newer_message(v);
        return -EPROTO;
    }
    if (v < STORE_SCHEMA_VERSION) {
        *err = v ? g_strdup_printf("the store's schema is version %d, older than this "
                                   "buildtrail's (%d); run 'buildtrail store init' to upgrade it",
                                   v, STORE_SCHEMA_VERSION)
                 : g_strdup("the database holds no store; run 'buildtrail store init' first");
        return -ENOENT;
    }
    return check_relations(s, err);
}

int pgstore_read_snapshot(struct pgstore *s, char **err)
{
    return exec(s, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", "starting a read", err);
}

/* The per-push temporary tables, in store_table order (collect.h says what each row holds). */
static const char *const temp_tables[ST_COUNT] = {
    "t_content (sha256 bytea, size bigint)",
    "t_path (path bytea)",
    "t_argv (sha256 bytea, argv bytea)",
    "t_package (name text, version text, arch text, source text, source_version text)",
    "t_process (id bigint, parent bigint, prev_image bigint, argv_sha256 bytea, exe bytea,"
    " cwd bytea, exit_code integer, exit_signal integer)",
    "t_version (vid bigint, path bytea, sha256 bytea, size bigint, origin text)",
    "t_product (vid bigint, license text)",
    "t_closure (product_vid bigint, vid bigint, role text, guess boolean,"
    " pkg_name text, pkg_version text, pkg_arch text)",
    "t_edge (vid bigint, from_vid bigint, role text)",
};

/* Interned tables first, each in its key's order (two pushers inserting the same keys take
 * their row locks in one order: one waits, neither deadlocks). */
static const char *const intern_sql[] = {
    "INSERT INTO content (sha256, size) SELECT DISTINCT ON (sha256) sha256, size FROM t_content"
    " ORDER BY sha256 ON CONFLICT (sha256) DO NOTHING",
    "INSERT INTO path (path) SELECT path FROM (SELECT DISTINCT path FROM t_path) d"
    " ORDER BY sha256(path) ON CONFLICT (digest) DO NOTHING",
    "INSERT INTO argv (sha256, argv) SELECT DISTINCT ON (sha256) sha256, argv FROM t_argv"
    " ORDER BY sha256 ON CONFLICT (sha256) DO NOTHING",
    "INSERT INTO package (name, version, arch, source, source_version)"
    " SELECT DISTINCT ON (name, version, arch) name, version, coalesce(arch, ''), source,"
    " source_version FROM t_package ORDER BY name, version, arch ON CONFLICT DO NOTHING",
};

/* The build's rows ($1: the build's id). */
static const char *const build_sql[] = {
    "INSERT INTO process SELECT $1, t.id, t.parent, t.prev_image, a.id, e.id, c.id, t.exit_code,"
    " t.exit_signal FROM t_process t LEFT JOIN argv a ON a.sha256 = t.argv_sha256"
    " LEFT JOIN path e ON e.digest = sha256(t.exe) LEFT JOIN path c ON c.digest = sha256(t.cwd)",
    "INSERT INTO version SELECT $1, t.vid, p.id, c.id, t.size, t.origin FROM t_version t"
    " LEFT JOIN path p ON p.digest = sha256(t.path) LEFT JOIN content c ON c.sha256 = t.sha256",
    "INSERT INTO product SELECT $1, vid, license FROM t_product",
    "INSERT INTO closure SELECT $1, t.product_vid, t.vid, t.role, t.guess, pk.id"
    " FROM t_closure t LEFT JOIN package pk ON pk.name = t.pkg_name"
    " AND pk.version = t.pkg_version AND pk.arch = coalesce(t.pkg_arch, '')",
    "INSERT INTO edge SELECT $1, vid, from_vid, min(role) FROM t_edge GROUP BY vid, from_vid",
    "INSERT INTO product_package SELECT $1, product_vid, package_id, role, count(*) FROM closure"
    " WHERE build_id = $1 AND package_id IS NOT NULL GROUP BY product_vid, package_id, role",
};

/* BUILDTRAIL_STORE_TEST_PAUSE (tests only): "SECONDS" pauses before COMMIT, "copy:SECONDS"
 * in the middle of the COPY of the closure rows (half sent); "pausing" goes to pause_fd
 * first.  The seconds, or 0 when this is not the place. */
static unsigned test_pause(bool mid_copy)
{
    const char *v = getenv("BUILDTRAIL_STORE_TEST_PAUSE");
    if (!v || !*v)
        return 0;
    bool copy = !strncmp(v, "copy:", 5);
    return copy == mid_copy ? (unsigned)atoi(v + (copy ? 5 : 0)) : 0;
}

static void do_pause(unsigned secs, int pause_fd)
{
    if (pause_fd >= 0 && write(pause_fd, "pausing\n", 8) < 0) {
        /* a test's pipe gone: nothing to tell */
    }
    sleep(secs);
}

static int copy_in(struct pgstore *s, enum store_table k, const GString *rows, int pause_fd,
                   char **err)
{
    g_autofree char *sql = g_strdup_printf("COPY %s FROM STDIN", store_table_names[k]);
    PGresult *r = PQexec(s->conn, sql);
    if (PQresultStatus(r) != PGRES_COPY_IN)
        return fail_res(r, "starting a COPY", err);
    PQclear(r);
    const size_t chunk = 1 << 20;
    unsigned pause = k == ST_CLOSURE ? test_pause(true) : 0;
    size_t half = rows->len / 2;
    for (size_t off = 0; off < rows->len;) {
        size_t n = MIN(chunk, rows->len - off);
        if (pause && off < half)
            n = MIN(n, half - off);
        if (PQputCopyData(s->conn, rows->str + off, (int)n) != 1)
            return fail_conn(s, "sending rows", err);
        off += n;
        if (pause && off == half) {
            if (PQflush(s->conn) != 0)
                return fail_conn(s, "sending rows", err);
            do_pause(pause, pause_fd);
        }
    }
    if (PQputCopyEnd(s->conn, NULL) != 1)
        return fail_conn(s, "ending a COPY", err);
    r = PQgetResult(s->conn);
    int ret = 0;
    if (PQresultStatus(r) != PGRES_COMMAND_OK)
        ret = fail_res(r, "copying rows", err);
    else
        PQclear(r);
    while ((r = PQgetResult(s->conn)))
        PQclear(r);
    return ret;
}

static char *iso(int64_t ns, char buf[40])
{
    if (!ns)
        return NULL;
    snprintf(buf, 40, "%" G_GINT64_FORMAT ".%06d", ns / 1000000000,
             (int)(ns % 1000000000 / 1000));
    return buf;
}

static char *hex_bytea(const void *s, size_t len)
{
    GString *o = g_string_sized_new(len * 2 + 3);
    g_string_append(o, "\\x");
    for (size_t i = 0; i < len; i++)
        g_string_append_printf(o, "%02x", ((const unsigned char *)s)[i]);
    return g_string_free(o, FALSE);
}

int pgstore_push(struct pgstore *s, const struct store_trace *t, const char *name,
                 const struct store_label *labels, int nlabels, int pause_fd,
                 int64_t *build_id, char **err)
{
    *build_id = 0;
    int r = pgstore_check(s, err);
    if (r < 0)
        return r;
    g_autofree char *ident = g_strdup_printf("\\x%s", t->identity);
    g_autofree char *bid = NULL;
    if ((r = exec(s, "BEGIN", "starting a transaction", err)) < 0)
        return r;
    const char *lp[] = {ident};
    PGresult *q = query(s, "SELECT pg_advisory_xact_lock(1651799412, hashtext($1::text))", 1,
                        lp, "locking the trace's identity", err);
    if (!q)
        goto rollback;
    PQclear(q);
    q = query(s, "SELECT id FROM build WHERE identity = $1::bytea", 1, lp,
              "looking the trace up", err);
    if (!q)
        goto rollback;
    if (PQntuples(q)) {
        *build_id = g_ascii_strtoll(PQgetvalue(q, 0, 0), NULL, 10);
        PQclear(q);
        PQclear(PQexec(s->conn, "ROLLBACK"));
        return 1;
    }
    PQclear(q);
    for (int k = 0; k < ST_COUNT; k++) {
        g_autofree char *sql = g_strdup_printf("CREATE TEMP TABLE %s ON COMMIT DROP",
                                               temp_tables[k]);
        if ((r = exec(s, sql, "making a temporary table", err)) < 0 ||
            (r = copy_in(s, (enum store_table)k, t->rows[k], pause_fd, err)) < 0)
            goto rollback_r;
    }
    for (size_t i = 0; i < G_N_ELEMENTS(intern_sql); i++)
        if ((r = exec(s, intern_sql[i], "storing content", err)) < 0)
            goto rollback_r;
    {
        g_autofree char *tp = hex_bytea(t->trace_path, strlen(t->trace_path));
        g_autofree char *cwd = t->cwd ? hex_bytea(t->cwd, strlen(t->cwd)) : NULL;
        g_autofree char *argv = t->argv ? hex_bytea(t->argv, t->argv_len) : NULL;
        g_autofree char *size = g_strdup_printf("%" G_GINT64_FORMAT, t->trace_size);
        g_autofree char *exit_s = t->exit_status >= 0 ? g_strdup_printf("%d", t->exit_status)
                                                      : NULL;
        char b1[40], b2[40];
        const char *bp[] = {ident, name, tp, size, t->hostname, cwd, argv, t->state,
                            t->complete ? "t" : "f", t->incomplete, iso(t->started_ns, b1),
                            iso(t->finished_ns, b2), exit_s, t->version};
        q = query(s, "INSERT INTO build (identity, name, trace_path, trace_size, hostname, cwd,"
                     " argv, state, complete, incomplete, started, finished, exit_status,"
                     " recorder) VALUES ($1::bytea, $2, $3::bytea, $4, $5, $6::bytea,"
                     " $7::bytea, $8, $9, $10, to_timestamp($11::double precision),"
                     " to_timestamp($12::double precision), $13, $14) RETURNING id",
                  14, bp, "storing the build", err);
        if (!q)
            goto rollback;
        *build_id = g_ascii_strtoll(PQgetvalue(q, 0, 0), NULL, 10);
        PQclear(q);
    }
    bid = g_strdup_printf("%" G_GINT64_FORMAT, *build_id);
    /* The last of a key's labels wins: from the last, the others do nothing (no UPDATE: a
     * pushing role may only insert). */
    for (int i = nlabels - 1; i >= 0; i--) {
        const char *p[] = {bid, labels[i].key, labels[i].value};
        q = query(s, "INSERT INTO build_label VALUES ($1, $2, $3) ON CONFLICT (build_id, key)"
                     " DO NOTHING", 3, p, "storing a label", err);
        if (!q)
            goto rollback;
        PQclear(q);
    }
    for (size_t i = 0; i < G_N_ELEMENTS(build_sql); i++) {
        const char *p[] = {bid};
        q = query(s, build_sql[i], 1, p, "storing the build's rows", err);
        if (!q)
            goto rollback;
        PQclear(q);
    }
    unsigned pause = test_pause(false);
    if (pause)
        do_pause(pause, pause_fd);
    if ((r = exec(s, "COMMIT", "committing the build", err)) < 0) {
        *build_id = 0;
        return r;
    }
    return 0;
rollback:
    r = -EIO;
rollback_r:
    PQclear(PQexec(s->conn, "ROLLBACK"));
    *build_id = 0;
    return r;
}

int64_t pgstore_find(struct pgstore *s, const char *identity, char **err)
{
    g_autofree char *ident = g_strdup_printf("\\x%s", identity);
    const char *p[] = {ident};
    PGresult *r = query(s, "SELECT id FROM build WHERE identity = $1::bytea", 1, p,
                        "looking the trace up", err);
    if (!r)
        return -EIO;
    int64_t id = PQntuples(r) ? g_ascii_strtoll(PQgetvalue(r, 0, 0), NULL, 10) : 0;
    PQclear(r);
    return id;
}

int64_t pgstore_count_builds(struct pgstore *s, char **err)
{
    PGresult *r = query(s, "SELECT count(*) FROM build", 0, NULL, "counting builds", err);
    if (!r)
        return -EIO;
    int64_t n = g_ascii_strtoll(PQgetvalue(r, 0, 0), NULL, 10);
    PQclear(r);
    return n;
}

PGresult *pgstore_list(struct pgstore *s, int64_t only_build, char **err)
{
    return query_build(s, only_build,
                 "SELECT b.id, b.name, to_char(b.started AT TIME ZONE 'UTC',"
                 " 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), b.state, b.complete,"
                 " (SELECT count(*) FROM product p WHERE p.build_id = b.id), b.trace_path,"
                 " encode(b.identity, 'hex'),"
                 " (SELECT string_agg(key || '=' || value, ' ' ORDER BY key) FROM build_label l"
                 "  WHERE l.build_id = b.id)"
                 " FROM build b WHERE $1::bigint = 0 OR b.id = $1::bigint ORDER BY b.id",
                 "listing builds", err);
}

PGresult *pgstore_show_products(struct pgstore *s, int64_t build, char **err)
{
    return query_build(s, build,
                 "SELECT pa.path, encode(c.sha256, 'hex'), p.license,"
                 " (SELECT count(*) FROM closure cl WHERE cl.build_id = p.build_id"
                 "  AND cl.product_vid = p.vid)"
                 " FROM product p JOIN version v ON v.build_id = p.build_id AND v.vid = p.vid"
                 " LEFT JOIN path pa ON pa.id = v.path_id LEFT JOIN content c ON c.id = v.content_id"
                 " WHERE p.build_id = $1::bigint ORDER BY pa.path",
                 "reading the build's products", err);
}

PGresult *pgstore_show_packages(struct pgstore *s, int64_t build, char **err)
{
    return query_build(s, build,
                 "SELECT name, version, code, headers, runtime, shlib, tool FROM build_packages"
                 " WHERE build_id = $1::bigint ORDER BY name",
                 "reading the build's packages", err);
}

int pgstore_rm(struct pgstore *s, int64_t build, char **err)
{
    PGresult *r = query_build(s, build, "DELETE FROM build WHERE id = $1::bigint",
                              "removing the build", err);
    if (!r)
        return -EIO;
    bool gone = atoi(PQcmdTuples(r)) > 0;
    PQclear(r);
    return gone ? 0 : -ENOENT;
}

PGresult *pgstore_who_ships(struct pgstore *s, const char *sha256_hex, char **err)
{
    g_autofree char *h = g_strdup_printf("\\x%s", sha256_hex);
    const char *p[] = {h};
    return query(s,
                 "WITH hits AS ("
                 " SELECT cl.build_id, cl.product_vid, cl.vid, cl.role FROM content c"
                 "  JOIN version v ON v.content_id = c.id"
                 "  JOIN closure cl ON cl.build_id = v.build_id AND cl.vid = v.vid"
                 "  WHERE c.sha256 = $1::bytea"
                 "  AND cl.role IN ('source', 'header', 'object', 'copy', 'generated')"
                 " UNION"
                 " SELECT p.build_id, p.vid, p.vid, 'product' FROM content c"
                 "  JOIN version v ON v.content_id = c.id"
                 "  JOIN product p ON p.build_id = v.build_id AND p.vid = v.vid"
                 "  WHERE c.sha256 = $1::bytea)"
                 " SELECT h.build_id, b.name, pp.path, h.product_vid, lp.path, h.vid, h.role"
                 " FROM hits h JOIN build b ON b.id = h.build_id"
                 " JOIN version pv ON pv.build_id = h.build_id AND pv.vid = h.product_vid"
                 " LEFT JOIN path pp ON pp.id = pv.path_id"
                 " JOIN version lv ON lv.build_id = h.build_id AND lv.vid = h.vid"
                 " LEFT JOIN path lp ON lp.id = lv.path_id"
                 " ORDER BY h.build_id, pp.path, lp.path",
                 1, p, "asking who ships it", err);
}

struct edge_to {
    int64_t from;
    char *path; /* the path of `from` */
};

/* A version of one build: the edges' key. */
struct bvid {
    int64_t build, vid;
};

static guint bvid_hash(gconstpointer p)
{
    const struct bvid *k = p;
    return g_int64_hash(&k->build) * 31u + g_int64_hash(&k->vid);
}

static gboolean bvid_equal(gconstpointer a, gconstpointer b)
{
    const struct bvid *x = a, *y = b;
    return x->build == y->build && x->vid == y->vid;
}

struct pgstore_edges {
    GHashTable *down; /* struct bvid -> GArray of struct edge_to */
};

static void edges_array_free(gpointer p)
{
    GArray *a = p;
    for (guint i = 0; i < a->len; i++)
        g_free(g_array_index(a, struct edge_to, i).path);
    g_array_unref(a);
}

static char *int_array(const int64_t *v, int n)
{
    GString *arr = g_string_new("{");
    for (int i = 0; i < n; i++)
        g_string_append_printf(arr, "%s%" G_GINT64_FORMAT, i ? "," : "", v[i]);
    g_string_append_c(arr, '}');
    return g_string_free(arr, FALSE);
}

struct pgstore_edges *pgstore_edges_load(struct pgstore *s, const int64_t *builds,
                                         const int64_t *leaves, int n, char **err)
{
    g_autofree char *b = int_array(builds, n);
    g_autofree char *l = int_array(leaves, n);
    const char *p[] = {b, l};
    /* The edges up from the leaves (UNION: each edge once, so it ends): what carries a leaf is
     * closed upwards, so these are all the edges among what carries the leaves. */
    PGresult *r = query(s,
                        "WITH RECURSIVE up(build_id, vid, from_vid) AS ("
                        " SELECT e.build_id, e.vid, e.from_vid"
                        "  FROM (SELECT DISTINCT * FROM unnest($1::bigint[], $2::bigint[])) l(b, v)"
                        "  JOIN edge e ON e.build_id = l.b AND e.from_vid = l.v UNION"
                        /* OFFSET 0: an index lookup per row of the step, never a merge join
                         * over the whole edge table (the step's size is misestimated) */
                        " SELECT e.build_id, e.vid, e.from_vid FROM up, LATERAL (SELECT * FROM edge"
                        "  WHERE build_id = up.build_id AND from_vid = up.vid OFFSET 0) e)"
                        " SELECT up.build_id, up.vid, up.from_vid, pa.path FROM up"
                        " JOIN version v ON v.build_id = up.build_id AND v.vid = up.from_vid"
                        " LEFT JOIN path pa ON pa.id = v.path_id",
                        2, p, "drawing the chains", err);
    if (!r)
        return NULL;
    struct pgstore_edges *e = g_new0(struct pgstore_edges, 1);
    e->down = g_hash_table_new_full(bvid_hash, bvid_equal, g_free, edges_array_free);
    for (int i = 0; i < PQntuples(r); i++) {
        struct bvid k = {g_ascii_strtoll(PQgetvalue(r, i, 0), NULL, 10),
                         g_ascii_strtoll(PQgetvalue(r, i, 1), NULL, 10)};
        GArray *a = g_hash_table_lookup(e->down, &k);
        if (!a) {
            a = g_array_new(FALSE, FALSE, sizeof(struct edge_to));
            g_hash_table_insert(e->down, g_memdup2(&k, sizeof k), a);
        }
        size_t len;
        struct edge_to t = {.from = g_ascii_strtoll(PQgetvalue(r, i, 2), NULL, 10),
                            .path = pgstore_bytea(r, i, 3, &len)};
        g_array_append_val(a, t);
    }
    PQclear(r);
    return e;
}

struct step {
    int64_t parent;   /* the version it was reached from */
    const char *path; /* its own path */
};

GPtrArray *pgstore_chain(const struct pgstore_edges *e, int64_t build, int64_t top, int64_t leaf)
{
    if (top == leaf)
        return NULL;
    /* Breadth first from the product: the shortest chain. */
    GHashTable *prev = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
    GArray *queue = g_array_new(FALSE, FALSE, sizeof(int64_t));
    g_array_append_val(queue, top);
    for (guint qi = 0; qi < queue->len; qi++) {
        int64_t cur = g_array_index(queue, int64_t, qi);
        if (cur == leaf)
            break;
        struct bvid k = {build, cur};
        GArray *a = g_hash_table_lookup(e->down, &k);
        for (guint i = 0; a && i < a->len; i++) {
            const struct edge_to *t = &g_array_index(a, struct edge_to, i);
            if (t->from == top || g_hash_table_contains(prev, &t->from))
                continue;
            struct step *st = g_new(struct step, 1);
            st->parent = cur;
            st->path = t->path;
            g_hash_table_insert(prev, g_memdup2(&t->from, sizeof t->from), st);
            g_array_append_val(queue, t->from);
        }
    }
    GPtrArray *chain = NULL;
    if (g_hash_table_contains(prev, &leaf)) {
        chain = g_ptr_array_new_with_free_func(g_free);
        for (int64_t at = leaf; at != top;) {
            const struct step *st = g_hash_table_lookup(prev, &at);
            g_ptr_array_insert(chain, 0, g_strdup(st->path ? st->path : "?"));
            at = st->parent;
        }
    }
    g_array_unref(queue);
    g_hash_table_destroy(prev);
    return chain;
}

void pgstore_edges_free(struct pgstore_edges *e)
{
    if (!e)
        return;
    g_hash_table_destroy(e->down);
    g_free(e);
}

PGresult *pgstore_uses(struct pgstore *s, const char *package, const char *version, char **err)
{
    const char *p[] = {package, version};
    return query(s,
                 "SELECT u.build_id, b.name, pp.path, min(pk.version),"
                 " bool_or(u.role IN ('source', 'object', 'copy', 'generated')),"
                 " bool_or(u.role = 'header'), string_agg(DISTINCT u.role, ','), sum(u.files)"
                 " FROM package pk JOIN product_package u ON u.package_id = pk.id"
                 " JOIN build b ON b.id = u.build_id"
                 " JOIN version pv ON pv.build_id = u.build_id AND pv.vid = u.product_vid"
                 " LEFT JOIN path pp ON pp.id = pv.path_id"
                 " WHERE pk.name = $1 AND ($2::text IS NULL OR pk.version = $2)"
                 " GROUP BY u.build_id, b.name, u.product_vid, pp.path"
                 " ORDER BY u.build_id, pp.path",
                 2, p, "asking who uses it", err);
}

PGresult *pgstore_copies(struct pgstore *s, const char *const *known, int nknown, char **err)
{
    GString *arr = g_string_new("{");
    for (int i = 0; i < nknown; i++)
        g_string_append_printf(arr, "%s\"\\\\x%s\"", i ? "," : "", known[i]);
    g_string_append_c(arr, '}');
    const char *p[] = {arr->str};
    /* Sources and headers of a build's own tree (no package owns them: outside /usr) whose
     * content is in another build too, or in the known index. */
    PGresult *r = query(s,
                        "WITH src AS ("
                        " SELECT DISTINCT v.content_id, cl.build_id, v.path_id, cl.role"
                        " FROM closure cl JOIN version v ON v.build_id = cl.build_id"
                        " AND v.vid = cl.vid WHERE cl.role IN ('source', 'header')"
                        " AND cl.package_id IS NULL AND v.content_id IS NOT NULL),"
                        " hit AS (SELECT content_id FROM src GROUP BY content_id"
                        "  HAVING count(DISTINCT build_id) > 1"
                        "  UNION SELECT c.id FROM content c WHERE c.sha256 = ANY($1::bytea[]))"
                        " SELECT encode(c.sha256, 'hex'), src.build_id, b.name, pa.path, b.cwd,"
                        " src.role FROM src JOIN hit USING (content_id)"
                        " JOIN content c ON c.id = src.content_id JOIN build b ON b.id = src.build_id"
                        " LEFT JOIN path pa ON pa.id = src.path_id"
                        " ORDER BY 1, 2, pa.path",
                        1, p, "finding copies", err);
    g_string_free(arr, TRUE);
    return r;
}

char *pgstore_bytea(const PGresult *r, int row, int col, size_t *len)
{
    *len = 0;
    if (PQgetisnull(r, row, col))
        return NULL;
    unsigned char *b = PQunescapeBytea((const unsigned char *)PQgetvalue(r, row, col), len);
    if (!b)
        return NULL;
    char *s = g_malloc(*len + 1);
    memcpy(s, b, *len);
    s[*len] = 0;
    PQfreemem(b);
    return s;
}
