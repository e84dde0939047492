/* store — `buildtrail store SUBCOMMAND`: parse, call the engine (collect.c, pgstore.c), render
 * text or JSON (jsonw).  Main-level code: it prints; errors are one line, with the fix. */
#include "store.h"

#include "cmd-internal.h"

#include "collect.h"
#include "debver.h"
#include "jsonw.h"
#include "pgstore.h"
#include "prov.h"
#include "textout.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char store_help[] =
    "Usage: buildtrail store SUBCOMMAND [OPTION]... [ARG]...\n"
    "Many builds in one PostgreSQL database: push traces, then ask across them.\n"
    "\n"
    "Subcommands:\n"
    "  init                  create the store's schema, or upgrade it\n"
    "  push                  add one trace (-d TRACE, else ./buildtrail.db)\n"
    "  list                  the builds stored\n"
    "  show BUILD            one build: its run, products, licenses, packages\n"
    "  rm BUILD              remove one build\n"
    "  who-ships FILE|sha256:HEX\n"
    "                        every build whose products incorporate that content\n"
    "  uses PACKAGE[=VERSION]\n"
    "                        builds whose products hold a Debian package's code\n"
    "  copies                sources found in several builds' own trees\n"
    "\n"
    "The database is --store CONNINFO, else $BUILDTRAIL_STORE, else libpq's PG*\n"
    "variables and service file ('host=/run/postgresql dbname=builds').  A password\n"
    "is never taken from either nor from $PGPASSWORD: put it in ~/.pgpass,\n"
    "$PGPASSFILE or a service file.\n"
    "A push is one transaction: pushing a trace again adds nothing; a push killed\n"
    "at any moment leaves nothing; a server silent for $BUILDTRAIL_STORE_TIMEOUT\n"
    "seconds (300) is given up.  Each answer says how many builds it covered.\n"
    "\n"
    "Options:\n"
    "  -d, --db TRACE        push: the trace to push (default ./buildtrail.db)\n"
    "      --name NAME       push: the build's name\n"
    "      --label KEY=VALUE  push: a label (repeatable)\n"
    "      --allow-incomplete  push: store an incomplete trace, marked so\n"
    "      --admindir DIR    push: the dpkg database (default /var/lib/dpkg)\n"
    "      --known INDEX     copies: also what a known-copies index lists\n"
    "      --limit N         who-ships, uses: list the rows of the first N builds\n"
    "                        (default 100; 0: every one); the count is of all\n"
    "      --store CONNINFO  the database (default $BUILDTRAIL_STORE, PG* variables)\n"
    "      --json            one JSON object on stdout\n"
    "  -h, --help            print this help\n"
    "\n"
    "Exit status: 0 answered (push: stored or already there), 1 nothing found or the\n"
    "store or trace cannot be used, 2 usage error.\n";

G_GNUC_PRINTF(1, 0) static int usage_error(const char *fmt, const char *arg);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static int usage_error(const char *fmt, const char *arg)
{
    fputs("buildtrail store: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\n", stderr);
    return 2;
}
#pragma GCC diagnostic pop

/* An operand as one escaped line for a message (freed at the next call). */
static GString *escaped(const char *arg)
{
    static GString *e;
    if (!e)
        e = g_string_new(NULL);
    g_string_truncate(e, 0);
    text_escape(e, arg, strlen(arg));
    return e;
}

static bool parse_build(const char *arg, int64_t *id)
{
    char *end;
    errno = 0;
    long long v = strtoll(arg, &end, 10);
    if (errno || *end || v <= 0 || end == arg)
        return false;
    *id = v;
    return true;
}

static int do_init(struct pgstore *s, struct sopts *o)
{
    int from = 0, to = 0;
    char *err = NULL;
    if (pgstore_init(s, &from, &to, &err) < 0)
        return fail("init", err);
    GString *out = g_string_new(NULL);
    if (o->json) {
        struct jsonw w;
        json_doc(&w, out);
        jsonw_kv_int(&w, "schema_from", from);
        jsonw_kv_int(&w, "schema", to);
        jsonw_object_end(&w);
        g_string_append_c(out, '\n');
    } else if (from == to) {
        g_string_append_printf(out, "the store's schema is version %d: nothing to do\n", to);
    } else {
        g_string_append_printf(out, "the store's schema is now version %d (was %d)\n", to, from);
    }
    return emit(out);
}

/* A push of a trace already there adds nothing: not the --name and --label given either. */
static const char *not_applied(const struct sopts *o)
{
    return o->name || o->labels->len
               ? "; its name and labels are its first push's (this --name and --label not "
                 "applied)"
               : "";
}

/* push's answer, one shape whether the build was stored now or found there: `rows` are the
 * rows added (all 0 when already stored), the seconds 0 for what was not done. */
static int push_answer(const struct sopts *o, int64_t id, bool already, const char *ident,
                       bool complete, const struct store_trace *t, double read_s, double send_s)
{
    GString *out = g_string_new(NULL);
    if (o->json) {
        struct jsonw w;
        json_doc(&w, out);
        jsonw_kv_int(&w, "build", id);
        jsonw_kv_bool(&w, "already_stored", already);
        jsonw_kv_string(&w, "trace_sha256", ident);
        jsonw_kv_bool(&w, "complete", complete);
        g_autofree char *rs = g_strdup_printf("%.3f", read_s);
        g_autofree char *ss = g_strdup_printf("%.3f", send_s);
        jsonw_key(&w, "read_seconds");
        jsonw_raw(&w, rs);
        jsonw_key(&w, "send_seconds");
        jsonw_raw(&w, ss);
        jsonw_key(&w, "rows");
        jsonw_object_begin(&w);
        for (int k = 0; k < ST_COUNT; k++)
            jsonw_kv_int(&w, store_table_names[k] + 2, t && !already ? t->nrows[k] : 0);
        jsonw_object_end(&w);
        jsonw_object_end(&w);
        g_string_append_c(out, '\n');
    } else if (already) {
        g_string_append_printf(out, "already stored as build %" G_GINT64_FORMAT
                                    " (the same trace, sha256 %.16s…): nothing added%s\n",
                               id, ident, not_applied(o));
    } else {
        g_string_append_printf(out, "stored as build %" G_GINT64_FORMAT ": %" G_GINT64_FORMAT
                                    " products, %" G_GINT64_FORMAT " closure rows, %"
                                    G_GINT64_FORMAT " processes (read %.2f s, sent %.2f s)%s\n",
                               id, t->nrows[ST_PRODUCT], t->nrows[ST_CLOSURE],
                               t->nrows[ST_PROCESS], read_s, send_s,
                               complete ? "" : "; marked incomplete");
    }
    return emit(out);
}

static int do_push(struct pgstore *s, struct sopts *o)
{
    const char *db = o->db ? o->db : getenv("BUILDTRAIL_DB");
    if (!db)
        db = "buildtrail.db";
    struct store_trace *t = NULL;
    char *err = NULL;
    /* Already there: say so without reading the trace (the push below checks again, under
     * its lock, for a push of the same trace running now). */
    g_autofree char *ident = NULL;
    if (pgstore_check(s, &err) < 0)
        return fail("push", err);
    if (store_identity(db, &ident) == 0) {
        bool complete = false;
        int64_t have = pgstore_find(s, ident, &complete, &err);
        if (have < 0)
            return fail("push", err);
        if (have > 0)
            return push_answer(o, have, true, ident, complete, NULL, 0, 0);
    }
    int r = store_collect(db, o->allow_incomplete, o->admindir ? o->admindir : "/var/lib/dpkg",
                          STDERR_FILENO, &t, &err);
    if (r == -EAGAIN) {
        fprintf(stderr, "buildtrail store push: the trace %s is incomplete (%s); nothing "
                        "stored; push it with --allow-incomplete to store it marked so\n",
                db, err);
        g_free(err);
        return 1;
    }
    if (r == -ENOENT) {
        g_free(err);
        fprintf(stderr, "buildtrail store push: no trace %s; name one with -d TRACE\n", db);
        return 1;
    }
    if (r == -EBUSY) {
        g_free(err);
        fprintf(stderr, "buildtrail store push: the trace %s is still being recorded; nothing "
                        "stored; push it once its run has ended\n", db);
        return 1;
    }
    if (r < 0) {
        fprintf(stderr, "buildtrail store push: %s; nothing stored\n", err);
        g_free(err);
        return 1;
    }
    int64_t id = 0;
    gint64 t0 = g_get_monotonic_time();
    r = pgstore_push(s, t, o->name, (const struct store_label *)o->labels->data,
                     (int)o->labels->len, STDERR_FILENO, &id, &err);
    double secs = (double)(g_get_monotonic_time() - t0) / 1e6;
    if (r < 0) {
        store_trace_free(t);
        return fail("push", err);
    }
    int ret = push_answer(o, id, r == 1, t->identity, t->complete, t, t->collect_seconds,
                          r == 1 ? 0 : secs);
    store_trace_free(t);
    return ret;
}

/* The first `limit` builds (0: all) of a result whose first column is a build's id. */
static GArray *first_builds(const PGresult *r, unsigned limit)
{
    GArray *a = g_array_new(FALSE, FALSE, sizeof(int64_t));
    for (int i = 0; i < PQntuples(r) && (!limit || a->len < limit); i++) {
        int64_t b = ival(r, i, 0);
        g_array_append_val(a, b);
    }
    return a;
}

/* The line under an answer whose rows stopped at --limit builds. */
static void more_builds(GString *out, int hit, unsigned limit)
{
    if (limit && (unsigned)hit > limit)
        g_string_append_printf(out, "(rows for the first %u of the %d builds; --limit 0 lists "
                                    "every one)\n", limit, hit);
}

/* FILE or sha256:HEX as a lower-case hex SHA-256, or NULL after printing why not. */
static char *content_of(const char *arg, int *ret)
{
    *ret = 2;
    if (!strncmp(arg, "sha256:", 7)) {
        const char *h = arg + 7;
        if (strlen(h) != 64 || strspn(h, "0123456789abcdefABCDEF") != 64) {
            usage_error("'%s' is not a SHA-256; give sha256: and 64 hex digits",
                        escaped(arg)->str);
            return NULL;
        }
        return g_ascii_strdown(h, -1);
    }
    gsize len = 0;
    g_autofree char *data = prov_read_regular_file(arg, &len);
    if (!data) {
        fprintf(stderr, "buildtrail store who-ships: cannot read %s as a regular file; name "
                        "a file, or its content as sha256:HEX\n", arg);
        *ret = 1;
        return NULL;
    }
    return g_compute_checksum_for_data(G_CHECKSUM_SHA256, (const guchar *)data, len);
}

/* hex: content_of()'s, found before connecting */
static int do_who_ships(struct pgstore *s, struct sopts *o, const char *hex)
{
    char *err = NULL;
    int64_t n = pgstore_count_builds(s, &err);
    PGresult *hit = n < 0 ? NULL : pgstore_who_ships_builds(s, hex, &err);
    if (!hit)
        return fail("who-ships", err);
    int nhit = PQntuples(hit);
    GArray *listed = first_builds(hit, o->limit);
    PQclear(hit);
    PGresult *r = pgstore_who_ships(s, hex, (const int64_t *)listed->data, (int)listed->len,
                                    &err);
    if (!r) {
        g_array_unref(listed);
        return fail("who-ships", err);
    }
    GString *out = g_string_new(NULL);
    struct jsonw w;
    int rows = PQntuples(r);
    if (o->json) {
        json_begin(&w, out, n);
        jsonw_kv_string(&w, "sha256", hex);
        jsonw_kv_int(&w, "builds_hit", nhit);
        jsonw_kv_int(&w, "builds_listed", listed->len);
        jsonw_key(&w, "ships");
        jsonw_array_begin(&w);
    } else {
        g_string_append_printf(out, "sha256 %s: in %d of %" G_GINT64_FORMAT " builds\n", hex,
                               nhit, n);
    }
    g_array_unref(listed);
    /* Every build's edges at once, for all the rows. */
    GArray *bs = g_array_sized_new(FALSE, FALSE, sizeof(int64_t), (guint)rows);
    GArray *ls = g_array_sized_new(FALSE, FALSE, sizeof(int64_t), (guint)rows);
    for (int i = 0; i < rows; i++) {
        int64_t b = ival(r, i, SH_BUILD), l = ival(r, i, SH_LEAF_VID);
        g_array_append_val(bs, b);
        g_array_append_val(ls, l);
    }
    struct pgstore_edges *edges = pgstore_edges_load(s, (const int64_t *)bs->data,
                                                     (const int64_t *)ls->data, rows, &err);
    g_array_unref(bs);
    g_array_unref(ls);
    if (!edges) {
        g_string_free(out, TRUE);
        PQclear(r);
        return fail("who-ships", err);
    }
    for (int i = 0; i < rows; i++) {
        int64_t b = ival(r, i, SH_BUILD);
        GPtrArray *chain = pgstore_chain(edges, b, ival(r, i, SH_PRODUCT_VID),
                                         ival(r, i, SH_LEAF_VID));
        if (o->json) {
            jsonw_object_begin(&w);
            jsonw_kv_int(&w, "build", b);
            jsonw_kv_string(&w, "name", val(r, i, SH_NAME));
            jsonw_key(&w, "product");
            json_col(&w, r, i, SH_PRODUCT);
            jsonw_key(&w, "path");
            json_col(&w, r, i, SH_LEAF);
            jsonw_kv_string(&w, "role", val(r, i, SH_ROLE));
            jsonw_key(&w, "chain");
            jsonw_array_begin(&w);
            for (guint k = 0; chain && k < chain->len; k++)
                jsonw_string(&w, chain->pdata[k]);
            jsonw_array_end(&w);
            jsonw_object_end(&w);
        } else {
            g_string_append_printf(out, "build %" G_GINT64_FORMAT "%s", b,
                                   val(r, i, SH_NAME) ? " " : "");
            text_str(out, val(r, i, SH_NAME));
            g_string_append(out, ": ");
            text_col(out, r, i, SH_PRODUCT);
            if (strcmp(val(r, i, SH_ROLE), "product")) {
                g_string_append(out, " ← (");
                text_str(out, val(r, i, SH_ROLE));
                g_string_append(out, ") ");
                text_col(out, r, i, SH_LEAF);
            } else {
                g_string_append(out, " (is that content)");
            }
            g_string_append_c(out, '\n');
            if (chain && chain->len > 1) {
                g_string_append(out, "    via");
                for (guint k = 0; k + 1 < chain->len; k++) {
                    g_string_append(out, k ? " ← " : " ");
                    text_bytes(out, chain->pdata[k], strlen(chain->pdata[k]));
                }
                g_string_append_c(out, '\n');
            }
        }
        if (chain)
            g_ptr_array_free(chain, TRUE);
    }
    pgstore_edges_free(edges);
    if (o->json) {
        jsonw_array_end(&w);
        jsonw_object_end(&w);
        g_string_append_c(out, '\n');
    } else {
        more_builds(out, nhit, o->limit);
    }
    PQclear(r);
    int ret = emit(out);
    return ret ? ret : rows ? 0 : 1;
}

/* PACKAGE[=VERSION] split in place (version NULL when none); false when either is empty. */
static bool uses_operand(char *name, const char **version)
{
    char *eq = strchr(name, '=');
    *version = NULL;
    if (eq) {
        *eq = 0;
        *version = eq + 1;
    }
    return *name && (!*version || **version);
}

/* The versions of `name` in the store that VERSION names (as dpkg compares them: 0:1.2 is
 * 1.2), or NULL for no VERSION; *err set on an error. */
static GPtrArray *matching_versions(struct pgstore *s, const char *name, const char *version,
                                    char **err)
{
    if (!version)
        return NULL;
    PGresult *r = pgstore_package_versions(s, name, err);
    if (!r)
        return NULL;
    GPtrArray *vs = g_ptr_array_new_with_free_func(g_free);
    for (int i = 0; i < PQntuples(r); i++)
        if (debver_equal_str(PQgetvalue(r, i, 0), version))
            g_ptr_array_add(vs, g_strdup(PQgetvalue(r, i, 0)));
    PQclear(r);
    return vs;
}

/* arg: checked by uses_operand() before connecting */
static int do_uses(struct pgstore *s, struct sopts *o, const char *arg)
{
    g_autofree char *name = g_strdup(arg);
    const char *version;
    uses_operand(name, &version);
    char *err = NULL;
    int64_t n = pgstore_count_builds(s, &err);
    GPtrArray *vs = n < 0 ? NULL : matching_versions(s, name, version, &err);
    if (n < 0 || (version && !vs))
        return fail("uses", err);
    const char *const *vv = vs ? (const char *const *)vs->pdata : NULL;
    int nv = vs ? (int)vs->len : -1;
    PGresult *hit = pgstore_uses_builds(s, name, vv, nv, &err);
    GArray *listed = hit ? first_builds(hit, o->limit) : NULL;
    int nhit = hit ? PQntuples(hit) : 0;
    unsigned code_builds = 0;
    for (int i = 0; i < nhit; i++)
        code_builds += tval(hit, i, 1);
    PQclear(hit);
    PGresult *r = listed ? pgstore_uses(s, name, vv, nv, (const int64_t *)listed->data,
                                        (int)listed->len, &err)
                         : NULL;
    if (vs)
        g_ptr_array_free(vs, TRUE);
    if (!r) {
        if (listed)
            g_array_unref(listed);
        return fail("uses", err);
    }
    GString *out = g_string_new(NULL);
    struct jsonw w;
    int rows = PQntuples(r);
    if (o->json) {
        json_begin(&w, out, n);
        jsonw_kv_string(&w, "package", name);
        jsonw_kv_string(&w, "version", version);
        jsonw_kv_int(&w, "builds_hit", nhit);
        jsonw_kv_int(&w, "builds_with_code", code_builds);
        jsonw_kv_int(&w, "builds_listed", listed->len);
        jsonw_key(&w, "products");
        jsonw_array_begin(&w);
    } else {
        g_string_append_printf(out, "%s%s%s: its code is in %u of %" G_GINT64_FORMAT
                                    " builds\n", name, version ? "=" : "",
                               version ? version : "", code_builds, n);
    }
    g_array_unref(listed);
    for (int i = 0; i < rows; i++) {
        bool code = tval(r, i, US_CODE), headers = tval(r, i, US_HEADERS);
        const char *roles = val(r, i, US_ROLES);
        const char *how = code      ? "code"
                          : headers ? "headers only"
                          : roles && strstr(roles, "unlinked-archive")
                              ? "a static archive nothing was linked from"
                              : "tools or libraries only";
        if (o->json) {
            jsonw_object_begin(&w);
            jsonw_kv_int(&w, "build", ival(r, i, US_BUILD));
            jsonw_kv_string(&w, "name", val(r, i, US_NAME));
            jsonw_key(&w, "product");
            json_col(&w, r, i, US_PRODUCT);
            jsonw_kv_string(&w, "package_version", val(r, i, US_VERSION));
            jsonw_kv_bool(&w, "code", code);
            jsonw_kv_bool(&w, "headers", headers);
            jsonw_kv_string(&w, "incorporates", how);
            jsonw_kv_string(&w, "roles", val(r, i, US_ROLES));
            jsonw_kv_int(&w, "files", ival(r, i, US_FILES));
            jsonw_object_end(&w);
        } else {
            g_string_append_printf(out, "build %s%s", val(r, i, US_BUILD),
                                   val(r, i, US_NAME) ? " " : "");
            text_str(out, val(r, i, US_NAME));
            g_string_append(out, ": ");
            text_col(out, r, i, US_PRODUCT);
            g_string_append_printf(out, ": %s (", how);
            text_str(out, name);
            g_string_append_c(out, ' ');
            text_str(out, val(r, i, US_VERSION));
            g_string_append(out, "; ");
            text_str(out, val(r, i, US_ROLES));
            g_string_append(out, ")\n");
        }
    }
    if (o->json) {
        jsonw_array_end(&w);
        jsonw_object_end(&w);
        g_string_append_c(out, '\n');
    } else {
        more_builds(out, nhit, o->limit);
    }
    PQclear(r);
    int ret = emit(out);
    return ret ? ret : rows ? 0 : 1;
}

/* A known-copies index, read (a regular file only) and parsed (store_parse_known). */
static bool read_known(const char *path, GPtrArray *hashes, GHashTable *names)
{
    gsize len = 0;
    g_autofree char *text = prov_read_regular_file(path, &len);
    if (!text)
        return false;
    store_parse_known(text, len, hashes, names);
    return true;
}

static int do_copies(struct pgstore *s, struct sopts *o)
{
    GPtrArray *known = g_ptr_array_new_with_free_func(g_free);
    GHashTable *names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    if (o->known && !read_known(o->known, known, names)) {
        fprintf(stderr, "buildtrail store copies: cannot read the index %s; write one with "
                        "'buildtrail copies --index DIR -o FILE'\n", o->known);
        g_ptr_array_free(known, TRUE);
        g_hash_table_destroy(names);
        return 2;
    }
    char *err = NULL;
    int64_t n = pgstore_count_builds(s, &err);
    PGresult *r = n < 0 ? NULL
                        : pgstore_copies(s, (const char *const *)known->pdata, (int)known->len,
                                         &err);
    g_ptr_array_free(known, TRUE);
    if (!r) {
        g_hash_table_destroy(names);
        return fail("copies", err);
    }
    /* A group: one content.  It is a copy when its paths, each relative to its build's
     * directory, differ (the same file of two builds of one source is not), or the index
     * knows it. */
    GString *out = g_string_new(NULL);
    struct jsonw w;
    if (o->json) {
        json_begin(&w, out, n);
        jsonw_key(&w, "copies");
        jsonw_array_begin(&w);
    }
    int rows = PQntuples(r), groups = 0;
    for (int i = 0; i < rows;) {
        int end = i;
        while (end < rows && !strcmp(val(r, end, CP_SHA256), val(r, i, CP_SHA256)))
            end++;
        const char *kn = g_hash_table_lookup(names, val(r, i, CP_SHA256));
        GPtrArray *rel = g_ptr_array_new_with_free_func(g_free);
        bool differ = false;
        for (int k = i; k < end; k++) {
            size_t pl, cl;
            g_autofree char *p = pgstore_bytea(r, k, CP_PATH, &pl);
            g_autofree char *c = pgstore_bytea(r, k, CP_CWD, &cl);
            const char *rp = p ? p : "";
            if (c && !strncmp(rp, c, cl) && rp[cl] == '/')
                rp += cl + 1;
            if (rel->len && strcmp(rel->pdata[0], rp))
                differ = true;
            g_ptr_array_add(rel, g_strdup(rp));
        }
        if (differ || kn) {
            groups++;
            if (o->json) {
                jsonw_object_begin(&w);
                jsonw_kv_string(&w, "sha256", val(r, i, CP_SHA256));
                jsonw_kv_string(&w, "known_as", kn);
                jsonw_key(&w, "files");
                jsonw_array_begin(&w);
            } else {
                g_string_append_printf(out, "sha256 %.16s…%s", val(r, i, CP_SHA256),
                                       kn ? " known as " : "");
                text_str(out, kn);
                g_string_append_c(out, '\n');
            }
            for (int k = i; k < end; k++) {
                if (o->json) {
                    jsonw_object_begin(&w);
                    jsonw_kv_int(&w, "build", ival(r, k, CP_BUILD));
                    jsonw_kv_string(&w, "name", val(r, k, CP_NAME));
                    jsonw_key(&w, "path");
                    json_col(&w, r, k, CP_PATH);
                    jsonw_kv_string(&w, "role", val(r, k, CP_ROLE));
                    jsonw_object_end(&w);
                } else {
                    g_string_append_printf(out, "  build %s: ", val(r, k, CP_BUILD));
                    text_col(out, r, k, CP_PATH);
                    g_string_append(out, " (");
                    text_str(out, val(r, k, CP_ROLE));
                    g_string_append(out, ")\n");
                }
            }
            if (o->json) {
                jsonw_array_end(&w);
                jsonw_object_end(&w);
            }
        }
        g_ptr_array_free(rel, TRUE);
        i = end;
    }
    if (o->json) {
        jsonw_array_end(&w);
        jsonw_object_end(&w);
        g_string_append_c(out, '\n');
    } else {
        g_string_append_printf(out, "%d shared content%s across %" G_GINT64_FORMAT
                                    " builds (exact copies only)\n",
                               groups, groups == 1 ? "" : "s", n);
    }
    PQclear(r);
    g_hash_table_destroy(names);
    return emit(out);
}

static const char *const subcommands[] = {"init", "push", "list", "show", "rm",
                                          "who-ships", "uses", "copies"};

int store_main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        fputs(store_help, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    const char *sub = argv[1];
    bool known_sub = false;
    for (size_t i = 0; i < G_N_ELEMENTS(subcommands); i++)
        known_sub |= !strcmp(sub, subcommands[i]);
    if (!known_sub)
        return usage_error("'%s' is not a store subcommand; see 'buildtrail store --help'", sub);
    enum { O_NAME = 256, O_LABEL, O_ALLOW, O_ADMIN, O_KNOWN, O_STORE, O_JSON, O_LIMIT };
    static const struct option longopts[] = {
        {"db", required_argument, NULL, 'd'},
        {"name", required_argument, NULL, O_NAME},
        {"label", required_argument, NULL, O_LABEL},
        {"allow-incomplete", no_argument, NULL, O_ALLOW},
        {"admindir", required_argument, NULL, O_ADMIN},
        {"known", required_argument, NULL, O_KNOWN},
        {"store", required_argument, NULL, O_STORE},
        {"json", no_argument, NULL, O_JSON},
        {"limit", required_argument, NULL, O_LIMIT},
        {"help", no_argument, NULL, 'h'},
        {0},
    };
    struct sopts o = {.labels = g_array_new(FALSE, FALSE, sizeof(struct store_label)),
                      .limit = 100};
    char *hex = NULL; /* who-ships: the content asked for */
    int c, ret = 2;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc - 1, argv + 1, "d:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'd': o.db = optarg; break;
        case O_NAME:
            o.name = optarg;
            if (!g_utf8_validate(optarg, -1, NULL)) {
                usage_error("--name '%s' is not UTF-8: a build's name is text in the store; "
                            "give it in UTF-8", escaped(optarg)->str);
                goto out;
            }
            break;
        case O_LABEL: {
            char *eq = strchr(optarg, '=');
            if (!eq || eq == optarg) {
                usage_error("--label '%s' is not KEY=VALUE", optarg);
                goto out;
            }
            if (!g_utf8_validate(optarg, -1, NULL)) {
                usage_error("--label '%s' is not UTF-8: labels are text in the store; give "
                            "it in UTF-8", escaped(optarg)->str);
                goto out;
            }
            *eq = 0;
            struct store_label l = {optarg, eq + 1};
            g_array_append_val(o.labels, l);
            break;
        }
        case O_ALLOW: o.allow_incomplete = true; break;
        case O_ADMIN: o.admindir = optarg; break;
        case O_KNOWN: o.known = optarg; break;
        case O_STORE: o.store = optarg; break;
        case O_JSON: o.json = true; break;
        case O_LIMIT: {
            char *end;
            errno = 0;
            unsigned long v = strtoul(optarg, &end, 10);
            if (errno || end == optarg || *end || *optarg == '-' || v > 1000000000) {
                usage_error("--limit '%s' is not a number of builds (0: every one)",
                            escaped(optarg)->str);
                goto out;
            }
            o.limit = (unsigned)v;
            break;
        }
        case 'h':
            fputs(store_help, stdout);
            ret = 0;
            goto out;
        default:
            usage_error("unknown or incomplete option '%s'; see 'buildtrail store --help'",
                        argv[optind]);
            goto out;
        }
    }
    int nargs = argc - 1 - optind;
    char **args = argv + 1 + optind;
    bool one = !strcmp(sub, "show") || !strcmp(sub, "rm") || !strcmp(sub, "who-ships") ||
               !strcmp(sub, "uses");
    if (nargs != (one ? 1 : 0)) {
        usage_error(one ? "%s takes one operand; see 'buildtrail store --help'"
                        : "%s takes no operand; see 'buildtrail store --help'", sub);
        goto out;
    }
    int64_t id = 0;
    if ((!strcmp(sub, "show") || !strcmp(sub, "rm")) && !parse_build(args[0], &id)) {
        usage_error("'%s' is not a build id; 'buildtrail store list' lists them", args[0]);
        goto out;
    }
    /* operands are checked before the store is reached: a usage error is one whether or
     * not the store is up */
    if (!strcmp(sub, "uses")) {
        g_autofree char *name = g_strdup(args[0]);
        const char *version;
        if (!uses_operand(name, &version)) {
            usage_error("'%s' is not PACKAGE or PACKAGE=VERSION", escaped(args[0])->str);
            goto out;
        }
    }
    if (!strcmp(sub, "who-ships") && !(hex = content_of(args[0], &ret)))
        goto out;
    struct pgstore *s = NULL;
    char *err = NULL;
    if (pgstore_connect(o.store, &s, &err) < 0) {
        ret = fail(sub, err);
        goto out;
    }
    bool reads = strcmp(sub, "init") && strcmp(sub, "push") && strcmp(sub, "rm");
    /* a question reads one snapshot: the builds it counts are the builds it looked at */
    if (strcmp(sub, "init") && strcmp(sub, "push") &&
        (pgstore_check(s, &err) < 0 || (reads && pgstore_read_snapshot(s, &err) < 0))) {
        ret = fail(sub, err);
    } else if (!strcmp(sub, "init")) {
        ret = do_init(s, &o);
    } else if (!strcmp(sub, "push")) {
        ret = do_push(s, &o);
    } else if (!strcmp(sub, "list")) {
        ret = store_list(s, &o, 0, sub);
    } else if (!strcmp(sub, "show")) {
        ret = store_list(s, &o, id, sub);
    } else if (!strcmp(sub, "rm")) {
        ret = store_rm(s, &o, id);
    } else if (!strcmp(sub, "who-ships")) {
        ret = do_who_ships(s, &o, hex);
    } else if (!strcmp(sub, "uses")) {
        ret = do_uses(s, &o, args[0]);
    } else {
        ret = do_copies(s, &o);
    }
    pgstore_close(s);
out:
    g_free(hex);
    g_array_unref(o.labels);
    return ret;
}
