/* pgstore — the store in PostgreSQL (contract in pgstore.h). */
#include "pgstore.h"

#include "pgstore-internal.h"
#include "schema.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <unistd.h>

static void no_notice(void *arg, const char *message)
{
    (void)arg;
    (void)message;
}

static int fail_conn(struct pgstore *s, const char *what, char **err)
{
    g_autofree char *m = first_line(PQerrorMessage(s->conn));
    *err = g_strdup_printf("%s: %s", what, m);
    return -EIO;
}

/* Wait for the connection to be readable (POLLIN) or writable: 0, or -ETIMEDOUT after
 * timeout_s of silence (s->gone), or -EIO. */
static int pgs_poll(struct pgstore *s, short events, const char *what, char **err)
{
    struct pollfd p = {.fd = PQsocket(s->conn), .events = events};
    for (;;) {
        int n = poll(&p, 1, s->timeout_s * 1000);
        if (n > 0)
            return 0;
        if (n == 0) {
            s->gone = true;
            *err = g_strdup_printf("%s: the store has not answered for %d s (a hung or stopped "
                                   "server); given up ($BUILDTRAIL_STORE_TIMEOUT gives a slow "
                                   "one longer)", what, s->timeout_s);
            return -ETIMEDOUT;
        }
        if (errno != EINTR) {
            *err = g_strdup_printf("%s: %s", what, g_strerror(errno));
            return -EIO;
        }
    }
}

PGresult *pgs_result(struct pgstore *s, const char *what, char **err)
{
    PGresult *last = NULL;
    for (;;) {
        while (PQisBusy(s->conn)) {
            if (pgs_poll(s, POLLIN, what, err) < 0) {
                PQclear(last);
                return NULL;
            }
            if (!PQconsumeInput(s->conn)) {
                PQclear(last);
                return fail_conn(s, what, err), NULL;
            }
        }
        PGresult *r = PQgetResult(s->conn);
        if (!r)
            break;
        if (PQresultStatus(r) == PGRES_COPY_IN) {
            PQclear(last);
            return r;
        }
        PQclear(last);
        last = r;
    }
    if (!last)
        fail_conn(s, what, err);
    return last;
}

int pgs_flush(struct pgstore *s, const char *what, char **err)
{
    int f;
    while ((f = PQflush(s->conn)) == 1) {
        int r = pgs_poll(s, POLLOUT | POLLIN, what, err);
        if (r < 0)
            return r;
        if (!PQconsumeInput(s->conn))
            return fail_conn(s, what, err);
    }
    return f < 0 ? fail_conn(s, what, err) : 0;
}

void pgs_rollback(struct pgstore *s)
{
    if (!s->gone)
        PQclear(PQexec(s->conn, "ROLLBACK"));
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
    const char *to = getenv("BUILDTRAIL_STORE_TIMEOUT");
    s->timeout_s = to && atoi(to) > 0 ? atoi(to) : 300;
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
    pgs_rollback(s);
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

/* The per-push temporary tables of what is interned or looked up (collect.h says what each
 * row holds); the closure, the edges and product_package go straight into the store's tables
 * (copy_rows). */
static const char *const temp_tables[ST_CLOSURE] = {
    "t_content (sha256 bytea, size bigint)",
    "t_path (path bytea)",
    "t_argv (sha256 bytea, argv bytea)",
    "t_package (n integer, name text, version text, arch text, source text,"
    " source_version text)",
    "t_process (id bigint, parent bigint, prev_image bigint, argv_sha256 bytea, exe bytea,"
    " cwd bytea, exit_code integer, exit_signal integer)",
    "t_version (vid bigint, path bytea, sha256 bytea, size bigint, origin text)",
    "t_product (vid bigint, license text, leaves integer)",
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

/* The build's rows that need interned ids ($1: the build's id). */
static const char *const build_sql[] = {
    "INSERT INTO process SELECT $1, t.id, t.parent, t.prev_image, a.id, e.id, c.id, t.exit_code,"
    " t.exit_signal FROM t_process t LEFT JOIN argv a ON a.sha256 = t.argv_sha256"
    " LEFT JOIN path e ON e.digest = sha256(t.exe) LEFT JOIN path c ON c.digest = sha256(t.cwd)",
    "INSERT INTO version SELECT $1, t.vid, p.id, c.id, t.size, t.origin FROM t_version t"
    " LEFT JOIN path p ON p.digest = sha256(t.path) LEFT JOIN content c ON c.sha256 = t.sha256",
    "INSERT INTO product (build_id, vid, license, leaves) SELECT $1, vid, license, leaves"
    " FROM t_product",
};

/* The big per-build tables, COPYed straight in (no temporary table, no INSERT ... SELECT, no
 * per-row foreign-key check: schema version 3): the build's id put before each row, and a
 * package row's number (the last column, when `package`) made the package's id. */
static const struct {
    enum store_table k;
    const char *copy;
    bool package;
} direct[] = {
    {ST_CLOSURE, "COPY closure (build_id, product_vid, vid, role, guess, package_id) FROM STDIN",
     true},
    {ST_EDGE, "COPY edge (build_id, vid, from_vid, role) FROM STDIN", false},
    {ST_PRODUCT_PACKAGE, "COPY product_package (build_id, product_vid, role, files, package_id)"
                         " FROM STDIN", true},
};

/* After product_package: the build's one row per package (`uses` counts builds from it). */
static const char build_package_sql[] =
    "INSERT INTO build_package SELECT $1, package_id,"
    " bool_or(role IN ('source', 'object', 'copy', 'generated')), bool_or(role = 'header'),"
    " bool_or(role = 'runtime'), bool_or(role = 'shlib'), bool_or(role = 'tool'),"
    " bool_or(role = 'unlinked-archive')"
    " FROM product_package WHERE build_id = $1 GROUP BY package_id";

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

/* The next rows of `rows` from *off (whole lines, about `chunk` bytes) into `out`, each with
 * "PREFIX\t" before it and, when pkmap, its last column (a package row's number) made the
 * package's id.  -EINVAL on a number out of range. */
static int rewrite_rows(const GString *rows, size_t *off, size_t chunk, GString *out,
                        const char *prefix, const int64_t *pkmap, int64_t npk)
{
    g_string_truncate(out, 0);
    while (*off < rows->len && out->len < chunk) {
        const char *line = rows->str + *off;
        const char *nl = memchr(line, '\n', rows->len - *off);
        size_t n = nl ? (size_t)(nl - line) : rows->len - *off;
        g_string_append(out, prefix);
        g_string_append_c(out, '\t');
        if (!pkmap) {
            g_string_append_len(out, line, (gssize)n);
        } else {
            const char *tab = line + n;
            while (tab > line && tab[-1] != '\t')
                tab--;
            g_string_append_len(out, line, tab - line);
            if (!strncmp(tab, "\\N", 2)) {
                g_string_append(out, "\\N");
            } else {
                int64_t k = g_ascii_strtoll(tab, NULL, 10);
                if (k < 0 || k >= npk)
                    return -EINVAL;
                g_string_append_printf(out, "%" G_GINT64_FORMAT, pkmap[k]);
            }
        }
        g_string_append_c(out, '\n');
        *off += n + (nl ? 1 : 0);
    }
    return 0;
}

/* copy_in's rows, sent and ended. */
static int copy_rows(struct pgstore *s, enum store_table k, const GString *rows,
                     const char *prefix, const int64_t *pkmap, int64_t npk, int pause_fd,
                     char **err)
{
    const size_t chunk = 1 << 20;
    unsigned pause = k == ST_CLOSURE ? test_pause(true) : 0;
    size_t half = rows->len / 2;
    g_autoptr(GString) buf = g_string_sized_new(chunk + 4096);
    for (size_t off = 0; off < rows->len;) {
        size_t was = off;
        if (prefix) {
            if (rewrite_rows(rows, &off, pause && off < half ? MIN(chunk, half - off) : chunk,
                             buf, prefix, pkmap, npk) < 0) {
                PQputCopyEnd(s->conn, "a closure row names no package");
                *err = g_strdup("sending rows: a row names a package the trace's rows lack");
                return -EINVAL;
            }
        } else {
            size_t n = MIN(chunk, rows->len - off);
            if (pause && off < half)
                n = MIN(n, half - off);
            g_string_truncate(buf, 0);
            g_string_append_len(buf, rows->str + off, (gssize)n);
            off += n;
        }
        int q, f;
        while ((q = PQputCopyData(s->conn, buf->str, (int)buf->len)) == 0)
            if ((f = pgs_flush(s, "sending rows", err)) < 0)
                return f;
        if (q < 0)
            return fail_conn(s, "sending rows", err);
        if ((f = pgs_flush(s, "sending rows", err)) < 0)
            return f;
        if (pause && was < half && off >= half)
            do_pause(pause, pause_fd);
    }
    int q, f;
    while ((q = PQputCopyEnd(s->conn, NULL)) == 0)
        if ((f = pgs_flush(s, "ending a COPY", err)) < 0)
            return f;
    if (q < 0)
        return fail_conn(s, "ending a COPY", err);
    return pgs_flush(s, "ending a COPY", err);
}

/* COPY `rows` (whole lines) by `sql`: as they are, or rewritten (rewrite_rows) when prefix. */
static int copy_in(struct pgstore *s, const char *sql, enum store_table k, const GString *rows,
                   const char *prefix, const int64_t *pkmap, int64_t npk, int pause_fd,
                   char **err)
{
    if (!PQsendQuery(s->conn, sql))
        return fail_conn(s, "starting a COPY", err);
    PGresult *r = pgs_result(s, "starting a COPY", err);
    if (!r)
        return pgs_errno(s);
    if (PQresultStatus(r) != PGRES_COPY_IN)
        return fail_res(r, "starting a COPY", err);
    PQclear(r);
    /* nonblocking while the rows go: a server that stops taking them is given up, not waited
     * for in a blocking write */
    if (PQsetnonblocking(s->conn, 1) != 0)
        return fail_conn(s, "starting a COPY", err);
    int ret = copy_rows(s, k, rows, prefix, pkmap, npk, pause_fd, err);
    if (PQsetnonblocking(s->conn, 0) != 0 && !ret)
        ret = fail_conn(s, "ending a COPY", err);
    if (ret < 0)
        return ret;
    r = pgs_result(s, "copying rows", err);
    if (!r)
        return pgs_errno(s);
    if (PQresultStatus(r) != PGRES_COMMAND_OK)
        return fail_res(r, "copying rows", err);
    PQclear(r);
    return 0;
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

/* The package rows' ids by their numbers in the trace's rows, then the direct tables. */
static int push_direct(struct pgstore *s, const struct store_trace *t, const char *bid,
                       int pause_fd, char **err)
{
    PGresult *q = query(s, "SELECT t.n, pk.id FROM t_package t JOIN package pk"
                           " ON pk.name = t.name AND pk.version = t.version"
                           " AND pk.arch = coalesce(t.arch, '')", 0, NULL,
                        "looking the packages up", err);
    if (!q)
        return -EIO;
    int64_t npk = t->nrows[ST_PACKAGE];
    g_autofree int64_t *pkmap = g_new0(int64_t, npk + 1);
    for (int i = 0; i < PQntuples(q); i++) {
        int64_t n = g_ascii_strtoll(PQgetvalue(q, i, 0), NULL, 10);
        if (n >= 0 && n < npk)
            pkmap[n] = g_ascii_strtoll(PQgetvalue(q, i, 1), NULL, 10);
    }
    PQclear(q);
    for (int64_t n = 0; n < npk; n++)
        if (!pkmap[n]) {
            *err = g_strdup("looking the packages up: a package of the trace's rows was not "
                            "stored");
            return -EIO;
        }
    for (size_t i = 0; i < G_N_ELEMENTS(direct); i++) {
        int r = copy_in(s, direct[i].copy, direct[i].k, t->rows[direct[i].k], bid,
                        direct[i].package ? pkmap : NULL, npk, pause_fd, err);
        if (r < 0)
            return r;
    }
    return 0;
}

/* *err with `more` after it. */
static void append(char **err, const char *more)
{
    char *m = g_strconcat(*err ? *err : "", more, NULL);
    g_free(*err);
    *err = m;
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
        pgs_rollback(s);
        return 1;
    }
    PQclear(q);
    for (int k = 0; k < ST_CLOSURE; k++) {
        g_autofree char *sql = g_strdup_printf("CREATE TEMP TABLE %s ON COMMIT DROP",
                                               temp_tables[k]);
        g_autofree char *copy = g_strdup_printf("COPY %s FROM STDIN", store_table_names[k]);
        if ((r = exec(s, sql, "making a temporary table", err)) < 0 ||
            (r = copy_in(s, copy, (enum store_table)k, t->rows[k], NULL, NULL, 0, pause_fd,
                         err)) < 0)
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
                            iso(t->finished_ns, b2), exit_s, t->version, t->packages_from};
        q = query(s, "INSERT INTO build (identity, name, trace_path, trace_size, hostname, cwd,"
                     " argv, state, complete, incomplete, started, finished, exit_status,"
                     " recorder, packages_from) VALUES ($1::bytea, $2, $3::bytea, $4, $5,"
                     " $6::bytea, $7::bytea, $8, $9, $10, to_timestamp($11::double precision),"
                     " to_timestamp($12::double precision), $13, $14, $15) RETURNING id",
                  15, bp, "storing the build", err);
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
    if ((r = push_direct(s, t, bid, pause_fd, err)) < 0)
        goto rollback_r;
    {
        const char *p[] = {bid};
        q = query(s, build_package_sql, 1, p, "storing the build's packages", err);
        if (!q)
            goto rollback;
        PQclear(q);
    }
    unsigned pause = test_pause(false);
    if (pause)
        do_pause(pause, pause_fd);
    if ((r = exec(s, "COMMIT", "committing the build", err)) < 0) {
        *build_id = 0;
        if (r == -ETIMEDOUT)
            append(err, "; whether the build was stored is not known: push the trace again "
                        "(it says 'already stored' if it was)");
        return r;
    }
    return 0;
rollback:
    r = pgs_errno(s);
rollback_r:
    if (r == -ETIMEDOUT)
        append(err, "; nothing of this push is stored (the server drops the transaction "
                    "when it sees the connection closed)");
    pgs_rollback(s);
    *build_id = 0;
    return r;
}

int64_t pgstore_find(struct pgstore *s, const char *identity, bool *complete, char **err)
{
    g_autofree char *ident = g_strdup_printf("\\x%s", identity);
    const char *p[] = {ident};
    PGresult *r = query(s, "SELECT id, complete FROM build WHERE identity = $1::bytea", 1, p,
                        "looking the trace up", err);
    if (!r)
        return -EIO;
    int64_t id = PQntuples(r) ? g_ascii_strtoll(PQgetvalue(r, 0, 0), NULL, 10) : 0;
    *complete = PQntuples(r) && !strcmp(PQgetvalue(r, 0, 1), "t");
    PQclear(r);
    return id;
}

