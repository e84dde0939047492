/* diffeng — see diffeng.h. */
#include "diffeng.h"
#include "diffeng-internal.h"

#include "stmt.h"
#include "textout.h"
#include "tracedb.h"
#include "queries.h"

#include <string.h>

/* The image that wrote version ?1's bytes (else the one that made it). */
TRACEDB_STATEMENT(sql_writer_of_version, 3, TRACEDB_SCHEMA_VERSION,
                  "SELECT process_id FROM accesses WHERE version_id = ?1 AND kind IN "
                  TRACEDB_KINDS_MADE " AND result = 0 AND process_id IS NOT NULL ORDER BY "
                  "(kind = 2 AND bytes > 0) DESC, last_ns DESC LIMIT 1");
enum { WRITER_OF_VERSION_PROCESS };
/* (read with qdb_ids, which gives the first column of each row) */
G_STATIC_ASSERT(WRITER_OF_VERSION_PROCESS == 0);
/* How many directories image ?1 listed. */
TRACEDB_STATEMENT(sql_dirs_listed_by_process, 1, TRACEDB_SCHEMA_VERSION,
                  "SELECT count(*) FROM accesses WHERE process_id = ?1 AND kind IN "
                  TRACEDB_KINDS_LISTED);
enum { DIRS_LISTED_COUNT };
G_STATIC_ASSERT(DIRS_LISTED_COUNT == 0); /* (qdb_ids) */
/* When image ?1 first read version ?2 (NULL: it did not). */
TRACEDB_STATEMENT(sql_first_read_by, 3, TRACEDB_SCHEMA_VERSION,
                  "SELECT MIN(first_ns) FROM accesses WHERE process_id = ?1 AND version_id = ?2 "
                  "AND kind IN " TRACEDB_KINDS_READ " AND result = 0");
enum { FIRST_READ_BY_NS };

static const char *const cause_names[] = {"input", "origin", "inputs", "argv", "environment",
                                          "executable", "cwd", "nondeterminism", "unexplained",
                                          "build path", "denied"};

const char *diffeng_kind_name(enum diffeng_kind kind)
{
    return (unsigned)kind < G_N_ELEMENTS(cause_names) ? cause_names[kind] : "unexplained";
}

/* Under a system tree (what `run --system` adds to a trace). */
bool de_is_system_path(const char *path)
{
    static const char *const tops[] = {"/usr/", "/etc/", "/opt/", "/bin/", "/sbin/", "/lib",
                                       "/boot/", NULL};
    for (const char *const *t = tops; *t; t++)
        if (g_str_has_prefix(path, *t))
            return true;
    return false;
}

/* The inputs worth pairing: all, or without the system trees' when one trace lacks them. */
static void drop_system(struct diffeng *d, GPtrArray *inputs)
{
    for (guint i = inputs->len; d->skip_system && i-- > 0;)
        if (de_is_system_path(((const struct prov_version *)inputs->pdata[i])->path))
            g_ptr_array_remove_index(inputs, i);
}

static bool has_path(const GPtrArray *versions, const char *path)
{
    for (guint i = 0; i < versions->len; i++)
        if (!strcmp(((const struct prov_version *)versions->pdata[i])->path, path))
            return true;
    return false;
}

/* A path of the first build as the second build would have it. */
static char *map_path(struct diffeng *d, const char *path)
{
    for (guint i = 0; i < d->maps->len; i++) {
        const char *old = d->maps->pdata[i], *new = old + strlen(old) + 1;
        size_t l = strlen(old);
        if (!strncmp(path, old, l) && (path[l] == '/' || !path[l]))
            return g_strconcat(new, path + l, NULL);
    }
    const char *t = g_hash_table_lookup(d->tmp_pair, path);
    return g_strdup(t ? t : path);
}

void diffeng_add_map(struct diffeng *d, const char *old, const char *new)
{
    size_t lo = strlen(old), ln = strlen(new);
    char *pair = g_malloc(lo + ln + 2);
    memcpy(pair, old, lo + 1);
    memcpy(pair + lo + 1, new, ln + 1);
    /* longest first, so /a/b maps before /a */
    guint at = 0;
    while (at < d->maps->len && strlen(d->maps->pdata[at]) >= lo)
        at++;
    g_ptr_array_insert(d->maps, (gint)at, pair);
}

/* The build's products: path -> version, for side s. */
static GHashTable *products(struct side *s)
{
    GHashTable *out = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    GPtrArray *all = prov_products(s->p);
    for (guint i = 0; i < all->len; i++) {
        const struct prov_version *v = all->pdata[i];
        g_hash_table_insert(out, g_strdup(v->path), (gpointer)v);
    }
    g_ptr_array_free(all, TRUE);
    return out;
}

int64_t de_writer_of(struct side *s, int64_t vid)
{
    GArray *ids = qdb_ids(s->q, sql_writer_of_version, vid);
    int64_t w = ids->len ? g_array_index(ids, int64_t, 0) : 0;
    g_array_unref(ids);
    return w;
}

/* The versions `vid`'s writer read before writing it (its direct inputs), but those under an
 * expected directory (another locale's data, read because LANG differs as asked). */
static GPtrArray *direct_inputs(const struct diffeng *d, struct side *s, int64_t vid)
{
    static const struct prov_walk_opts walk = {.scripts = false, .max_depth = 1, .every_read = true};
    GArray *nodes = prov_inputs(s->p, vid, &walk);
    GPtrArray *out = g_ptr_array_new();
    for (guint i = 0; i < nodes->len; i++) {
        const struct prov_node *n = &g_array_index(nodes, struct prov_node, i);
        if (n->depth == 1 && !de_expected_path(d, n->v->path))
            g_ptr_array_add(out, (gpointer)n->v);
    }
    g_array_unref(nodes);
    return out;
}

/* One root cause per what it is: an input by its path; argv, environment, executable and cwd
 * by what differs (-DX=1 given to forty compiles is one cause); non-determinism by its
 * process.  `path` is where it was first seen (the cause's headline). */
static size_t add_cause(struct diffeng *d, enum diffeng_kind kind, const char *path, int64_t pa,
                        int64_t pb, char *detail)
{
    g_autofree char *key =
        kind == DIFFENG_ARGV || kind == DIFFENG_ENV || kind == DIFFENG_EXE || kind == DIFFENG_CWD
            ? g_strdup_printf("%d\n%s", kind, detail)
        : kind == DIFFENG_BUILD_PATH ? g_strdup_printf("%d", kind)
        : kind == DIFFENG_NONDET ? g_strdup_printf("%d\n%" G_GINT64_FORMAT, kind, pa)
                                 : g_strdup_printf("%d\n%s\n%" G_GINT64_FORMAT, kind, path, pa);
    gpointer at = g_hash_table_lookup(d->cause_of, key);
    if (at) {
        struct cause *c = d->causes->pdata[GPOINTER_TO_SIZE(at) - 1];
        if (pa && pa != c->pub.proc[0])
            c->pub.more_processes++;
        g_free(detail);
        return (size_t)GPOINTER_TO_SIZE(at) - 1;
    }
    struct cause *c = g_new0(struct cause, 1);
    c->path = g_strdup(path);
    c->detail = detail;
    c->pub = (struct diffeng_cause){kind, c->path, {pa, pb}, c->detail, 0, g_ptr_array_new()};
    g_ptr_array_add(d->causes, c);
    g_ptr_array_add(d->m.causes, &c->pub);
    g_hash_table_insert(d->cause_of, g_steal_pointer(&key), GSIZE_TO_POINTER(d->causes->len));
    return d->causes->len - 1;
}

size_t de_add_cause(struct diffeng *d, enum diffeng_kind kind, const char *path, int64_t pa,
                    int64_t pb, char *detail)
{
    return add_cause(d, kind, path, pa, pb, detail);
}

char *de_map_path(struct diffeng *d, const char *path)
{
    return map_path(d, path);
}

static void not_compared(struct diffeng *d, char *what)
{
    for (guint i = 0; i < d->m.not_compared->len; i++)
        if (!strcmp(d->m.not_compared->pdata[i], what)) {
            g_free(what);
            return;
        }
    g_ptr_array_add(d->m.not_compared, what);
}




static gint by_path(gconstpointer x, gconstpointer y)
{
    const struct prov_version *a = *(const struct prov_version *const *)x;
    const struct prov_version *b = *(const struct prov_version *const *)y;
    int c = strcmp(a->path, b->path);
    return c ? c : a->id < b->id ? -1 : a->id > b->id; /* (a path's versions as made) */
}

/* Where A's `path` lies, for the order causes are found and numbered in: 0 inside A's build
 * directory, 1 inside the layout (its siblings: the packages in `..`), 2 elsewhere; *rest is
 * the path inside that directory (2: the whole path).  The directories' own names never
 * change that order, as whole paths' would (/a/out before /o/out, /z/out after). */
static int place_of(const struct diffeng *d, const char *path, const char **rest)
{
    const char *dirs[] = {d->s[0].root, d->layout[0]};
    for (int i = 0; i < 2; i++) {
        size_t l = dirs[i] ? strlen(dirs[i]) : 0;
        if (l > 1 && !strncmp(path, dirs[i], l) && path[l] == '/') {
            *rest = path + l + 1;
            return i;
        }
    }
    *rest = path;
    return 2;
}

static int place_cmp(const struct diffeng *d, const char *a, const char *b)
{
    const char *ra, *rb;
    int pa = place_of(d, a, &ra), pb = place_of(d, b, &rb);
    return pa != pb ? pa - pb : strcmp(ra, rb);
}

/* A's paths (char *), by place_of. */
static gint by_place(gconstpointer x, gconstpointer y, gpointer d)
{
    return place_cmp(d, *(const char *const *)x, *(const char *const *)y);
}

/* A's versions, by place_of, then as made. */
static gint version_by_place(gconstpointer x, gconstpointer y, gpointer d)
{
    const struct prov_version *a = *(const struct prov_version *const *)x;
    const struct prov_version *b = *(const struct prov_version *const *)y;
    int c = place_cmp(d, a->path, b->path);
    return c ? c : a->id < b->id ? -1 : a->id > b->id;
}

/* The directory and extension of a path: how temporaries are paired. */
static char *shape_of(const char *path)
{
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    if (!dot || (slash && dot < slash))
        dot = path + strlen(path);
    return g_strdup_printf("%.*s|%s", slash ? (int)(slash - path) : 0, path, dot);
}

static GArray *explain(struct diffeng *d, const struct prov_version *va,
                       const struct prov_version *vb, const char *product, int depth);

/* The versions a file went through up to `v`, oldest first (v's base, its base, ...). */
static GPtrArray *history(struct side *s, const struct prov_version *v)
{
    GPtrArray *h = g_ptr_array_new();
    for (int guard = 0; v && guard < 100000; guard++) {
        g_ptr_array_insert(h, 0, (gpointer)v);
        v = v->base_id ? prov_version(s->p, v->base_id) : NULL;
    }
    return h;
}

static char *pair_key(const struct prov_version *a, const struct prov_version *b)
{
    return g_strdup_printf("%" G_GINT64_FORMAT ":%" G_GINT64_FORMAT, a->id, b->id);
}

/* Explain the pair (a, b) that the pair `parent` was made from, and add its causes to
 * `causes`, remembering the link for the chain shown with each product. */
static void take_causes(struct diffeng *d, const char *parent, GArray *causes,
                        const struct prov_version *a, const struct prov_version *b,
                        const char *product, int depth)
{
    GArray *c = explain(d, a, b, product, depth + 1);
    g_autofree char *child = pair_key(a, b);
    for (guint i = 0; i < c->len; i++) {
        size_t at = g_array_index(c, size_t, i);
        char *link = g_strdup_printf("%s|%zu", parent, at);
        if (!g_hash_table_contains(d->via, link))
            g_hash_table_insert(d->via, link, g_strdup(child));
        else
            g_free(link);
        g_array_append_val(causes, at);
    }
}

/* Whether the processes that wrote A's version a and B's version b ran the same command
 * (after mapping); unknown writers are not the same. */
static bool same_writer(struct diffeng *d, const struct prov_version *a,
                        const struct prov_version *b)
{
    int64_t wa = de_writer_of(&d->s[0], a->id), wb = de_writer_of(&d->s[1], b->id);
    const struct qdb_process *pa = wa ? qdb_process(d->s[0].q, wa) : NULL;
    const struct qdb_process *pb = wb ? qdb_process(d->s[1].q, wb) : NULL;
    if (!pa || !pb)
        return false;
    char *diff = de_argv_difference(d, pa, pb);
    g_free(diff);
    return diff == NULL;
}

/* B's partner for A's input a among B's versions of the same path (`same`, NULL: none), not
 * yet used: one made by the same command (configure's conftest.err is written by `gcc -v`,
 * then by `gcc -V`...: each pairs with the other build's own), else the first left, in the
 * order they were made. */
static const struct prov_version *same_path_partner(struct diffeng *d,
                                                    const struct prov_version *a,
                                                    GPtrArray *same, GHashTable *used_b)
{
    const struct prov_version *first = NULL;
    for (guint k = 0; same && k < same->len; k++) {
        const struct prov_version *b = same->pdata[k];
        if (g_hash_table_contains(used_b, b))
            continue;
        if (!first)
            first = b;
        if (same->len == 1 || a->origin != TRACEDB_VERSION_WRITTEN)
            break;
        if (b->origin == TRACEDB_VERSION_WRITTEN && same_writer(d, a, b))
            return b;
    }
    return first;
}

/* A temporary in a directory named at random (autom4te's /tmp/arXXXX/am4tXXXX/warnings,
 * config.status's ./confXXXX/subs.awk): B's unused temporary of the same name, made by
 * the same command if one was, else the first of `ib` (B's inputs left, in reading order). */
static const struct prov_version *temporary_by_name(struct diffeng *d,
                                                    const struct prov_version *a,
                                                    GPtrArray *ib, GHashTable *used_b)
{
    const char *name = strrchr(a->path, '/');
    const struct prov_version *first = NULL;
    for (guint k = 0; name && k < ib->len; k++) {
        const struct prov_version *c = ib->pdata[k];
        const char *cn = strrchr(c->path, '/');
        if (!cn || strcmp(cn, name) || g_hash_table_contains(used_b, c) ||
            !prov_is_temporary(d->s[1].p, c))
            continue;
        if (same_writer(d, a, c))
            return c;
        if (!first)
            first = c;
    }
    return first;
}

/* An input and when its reader first read it. */
struct read_at {
    const struct prov_version *v;
    int64_t ns; /* INT64_MAX: not known */
};

static gint by_reading(gconstpointer x, gconstpointer y)
{
    const struct read_at *a = x, *b = y;
    if (a->ns != b->ns)
        return a->ns < b->ns ? -1 : 1;
    return a->v->id < b->v->id ? -1 : a->v->id > b->v->id;
}

/* The versions of `in` not in `skip` (NULL: none), in the order image `reader` of side s first
 * read them (then by id): the order temporaries with random names pair in, which their names'
 * (random) order is not.  g_ptr_array_free it. */
static GPtrArray *in_reading_order(struct side *s, int64_t reader, GPtrArray *in,
                                   GHashTable *skip)
{
    GArray *t = g_array_sized_new(FALSE, FALSE, sizeof(struct read_at), in->len);
    sqlite3_stmt *st = NULL;
    bool ok = reader && qdb_prepare(s->q, sql_first_read_by, &st) &&
              qdb_bind_int64(s->q, st, 1, reader);
    for (guint i = 0; i < in->len; i++) {
        struct read_at e = {in->pdata[i], INT64_MAX};
        if (skip && g_hash_table_contains(skip, e.v))
            continue;
        if (ok && qdb_bind_int64(s->q, st, 2, e.v->id) && qdb_row(s->q, st) &&
            sqlite3_column_type(st, FIRST_READ_BY_NS) != SQLITE_NULL)
            e.ns = sqlite3_column_int64(st, FIRST_READ_BY_NS);
        if (st)
            sqlite3_reset(st);
        g_array_append_val(t, e);
    }
    sqlite3_finalize(st);
    g_array_sort(t, by_reading);
    GPtrArray *out = g_ptr_array_sized_new(t->len);
    for (guint i = 0; i < t->len; i++)
        g_ptr_array_add(out, (gpointer)g_array_index(t, struct read_at, i).v);
    g_array_unref(t);
    return out;
}

/* Pair the direct inputs of the two writers and explain each pair that differs. */
static void explain_inputs(struct diffeng *d, const char *parent, GArray *causes,
                           GPtrArray *ia, GPtrArray *ib, int64_t wa, int64_t wb,
                           const char *product, int depth, bool *inputs_differ)
{
    g_ptr_array_sort_with_data(ia, version_by_place, d);
    g_ptr_array_sort(ib, by_path);
    /* B's inputs by path: each path's versions in the order they were made (a file
     * configure rewrites for every probe, conftest.err, was read in many versions) */
    GHashTable *bpath = g_hash_table_new_full(g_str_hash, g_str_equal, NULL,
                                              (GDestroyNotify)g_ptr_array_unref);
    for (guint i = 0; i < ib->len; i++) {
        const struct prov_version *v = ib->pdata[i];
        GPtrArray *same = g_hash_table_lookup(bpath, v->path);
        if (!same)
            g_hash_table_insert(bpath, (gpointer)v->path, same = g_ptr_array_new());
        g_ptr_array_add(same, (gpointer)v);
    }
    GHashTable *used_b = g_hash_table_new(g_direct_hash, g_direct_equal);
    GPtrArray *left_a = g_ptr_array_new();
    for (guint i = 0; i < ia->len; i++) {
        const struct prov_version *a = ia->pdata[i];
        g_autofree char *key = map_path(d, a->path);
        const struct prov_version *b = same_path_partner(d, a, g_hash_table_lookup(bpath, key),
                                                         used_b);
        if (b) {
            g_hash_table_add(used_b, (gpointer)b);
            if (strcmp(a->sha256, b->sha256)) {
                *inputs_differ = true;
                take_causes(d, parent, causes, a, b, product, depth);
            }
        } else {
            g_ptr_array_add(left_a, (gpointer)a);
        }
    }
    /* What is left on both sides: the programs the writers ran (another compiler found on
     * another PATH) pair with each other; temporaries with random names by directory and
     * extension in order; the rest was read in one build only. */
    const struct qdb_process *pwa = wa ? qdb_process(d->s[0].q, wa) : NULL;
    const struct qdb_process *pwb = wb ? qdb_process(d->s[1].q, wb) : NULL;
    for (guint i = 0; i < left_a->len; i++) {
        const struct prov_version *a = left_a->pdata[i], *b = NULL;
        if (pwa && pwb && pwa->exe && pwb->exe && !strcmp(a->path, pwa->exe))
            for (guint k = 0; k < ib->len && !b; k++) {
                const struct prov_version *c = ib->pdata[k];
                if (!g_hash_table_contains(used_b, c) && !strcmp(c->path, pwb->exe))
                    b = c;
            }
        if (b) {
            g_hash_table_add(used_b, (gpointer)b);
            g_ptr_array_remove_index(left_a, i--);
            if (strcmp(a->sha256, b->sha256)) {
                *inputs_differ = true;
                take_causes(d, parent, causes, a, b, product, depth);
            }
        }
    }
    /* the rest in the order each writer read them (their names may be random) */
    GPtrArray *rest_a = left_a->len ? in_reading_order(&d->s[0], wa, left_a, NULL) : NULL;
    GPtrArray *rest_b = left_a->len ? in_reading_order(&d->s[1], wb, ib, used_b) : NULL;
    for (guint i = 0; rest_a && i < rest_a->len; i++) {
        const struct prov_version *a = rest_a->pdata[i], *b = NULL;
        g_autofree char *sa = shape_of(a->path);
        for (guint k = 0; k < rest_b->len && !b; k++) {
            const struct prov_version *c = rest_b->pdata[k];
            g_autofree char *sb = shape_of(c->path);
            if (!g_hash_table_contains(used_b, c) && !strcmp(sa, sb) &&
                prov_is_temporary(d->s[0].p, a) == prov_is_temporary(d->s[1].p, c))
                b = c;
        }
        if (!b && prov_is_temporary(d->s[0].p, a))
            b = temporary_by_name(d, a, rest_b, used_b);
        if (b) {
            g_hash_table_add(used_b, (gpointer)b);
            g_hash_table_insert(d->tmp_pair, g_strdup(a->path), g_strdup(b->path));
            if (strcmp(a->sha256, b->sha256)) {
                *inputs_differ = true;
                take_causes(d, parent, causes, a, b, product, depth);
            }
            continue;
        }
        *inputs_differ = true;
        g_autofree char *key = map_path(d, a->path);
        size_t at = add_cause(d, DIFFENG_INPUTS, key, wa, wb,
                              g_strdup_printf("read by the first build's process only"));
        g_array_append_val(causes, at);
    }
    if (rest_a) {
        g_ptr_array_free(rest_a, TRUE);
        g_ptr_array_free(rest_b, TRUE);
    }
    GPtrArray *only_b = in_reading_order(&d->s[1], wb, ib, used_b);
    for (guint k = 0; k < only_b->len; k++) {
        const struct prov_version *b = only_b->pdata[k];
        *inputs_differ = true;
        size_t at = add_cause(d, DIFFENG_INPUTS, b->path, wa, wb,
                              g_strdup("read by the second build's process only"));
        g_array_append_val(causes, at);
    }
    g_ptr_array_free(only_b, TRUE);
    g_ptr_array_free(left_a, TRUE);
    g_hash_table_destroy(used_b);
    g_hash_table_destroy(bpath);
}

/* A file written in steps (appended to: a log, an archive updated member by member): line
 * the two histories up from their first step; the first step that differs is where they
 * diverge.  Whether that explained the pair (else its last step is explained as a whole). */
static bool explain_steps(struct diffeng *d, const char *memo_key, GArray *causes,
                          const struct prov_version *va, const struct prov_version *vb,
                          const char *path, const char *product, int depth)
{
    GPtrArray *ha = history(&d->s[0], va), *hb = history(&d->s[1], vb);
    if (ha->len != hb->len) {
        size_t at = add_cause(d, DIFFENG_UNKNOWN, path, 0, 0,
                              g_strdup_printf("written in %u steps by one build and %u by "
                                              "the other", ha->len, hb->len));
        g_array_append_val(causes, at);
    } else {
        guint i = 0;
        while (i + 1 < ha->len &&
               !strcmp(((const struct prov_version *)ha->pdata[i])->sha256,
                       ((const struct prov_version *)hb->pdata[i])->sha256))
            i++;
        if (i + 1 < ha->len) /* an earlier step diverged first */
            take_causes(d, memo_key, causes, ha->pdata[i], hb->pdata[i], product, depth);
    }
    bool done = ha->len != hb->len || (causes->len > 0);
    g_ptr_array_free(ha, TRUE);
    g_ptr_array_free(hb, TRUE);
    return done;
}

/* Arguments differ: name the command that was written differently, not only the program it
 * ran: go up while the parents differ the same way (cc1's -O2 came from cc's). */
static size_t argv_cause(struct diffeng *d, const char *path, const struct qdb_process *pa,
                         const struct qdb_process *pb, char *argv)
{
    char *inner = g_strdup(argv);
    const struct qdb_process *ia0 = pa;
    int64_t wa = pa->id, wb = pb->id;
    for (int guard = 0; guard < 64; guard++) {
        const struct qdb_process *ua = pa->parent_id ? qdb_process(d->s[0].q, pa->parent_id)
                                                     : NULL;
        const struct qdb_process *ub = pb->parent_id ? qdb_process(d->s[1].q, pb->parent_id)
                                                     : NULL;
        char *up = ua && ub ? de_argv_difference(d, ua, ub) : NULL;
        if (!up)
            break;
        g_free(argv);
        argv = up;
        pa = ua;
        pb = ub;
        wa = ua->id;
        wb = ub->id;
    }
    if (pa != ia0 && strlen(argv) > 400) { /* a whole command line given as one argument
                                              * (sh -c '...'): what differs inside it */
        GString *det = g_string_new(NULL);
        const char *arg0 = pa->argv && pa->argv_len ? pa->argv : "?";
        const char *base = strrchr(arg0, '/');
        g_string_append_printf(det, "in the command line %s runs: %s", base ? base + 1 : arg0,
                               inner);
        g_free(argv);
        argv = g_string_free(det, FALSE);
    } else if (pa != ia0) {
        GString *det = g_string_new(argv);
        g_string_append_printf(det, "; so the programs that made its products differ "
                                    "too: %s", inner);
        g_free(argv);
        argv = g_string_free(det, FALSE);
    }
    g_free(inner);
    return add_cause(d, DIFFENG_ARGV, path, wa, wb, argv);
}

/* The writers read the same: the cause is in how they ran (argv, environment, program,
 * directory), else non-determinism.  `exe_compared`: the program was among the inputs. */
static size_t process_cause(struct diffeng *d, const char *path, const struct qdb_process *pa,
                            const struct qdb_process *pb, bool exe_compared)
{
    int64_t wa = pa->id, wb = pb->id;
    char *argv = de_argv_difference(d, pa, pb);
    if (argv)
        return argv_cause(d, path, pa, pb, argv);
    char *env = de_env_difference(d, wa, wb, de_differs_mapped(d, pa->cwd, pb->cwd));
    if (env)
        return add_cause(d, DIFFENG_ENV, path, wa, wb, env);
    if (de_differs_mapped(d, pa->exe, pb->exe) || de_differs_mapped(d, pa->cwd, pb->cwd)) {
        bool exe = de_differs_mapped(d, pa->exe, pb->exe);
        return add_cause(d, exe ? DIFFENG_EXE : DIFFENG_CWD, path, wa, wb,
                         g_strdup_printf("the same arguments, environment and inputs, run %s "
                                         "%s in A and %s in B", exe ? "as" : "in",
                                         exe ? pa->exe : pa->cwd, exe ? pb->exe : pb->cwd));
    }
    if (de_compile_records_dir(d, pa)) {
        g_hash_table_add(d->embedders, GINT_TO_POINTER(wa));
        return add_cause(d, DIFFENG_BUILD_PATH, path, wa, wb, g_strdup(""));
    }
    GArray *listed = qdb_ids(d->s[0].q, sql_dirs_listed_by_process, wa);
    bool lists = listed->len && g_array_index(listed, int64_t, 0) > 0;
    g_array_unref(listed);
    bool moved = d->layout[0] != NULL; /* (the builds' directories, or their trees) */
    bool untraced = !exe_compared && pa->exe;
    return add_cause(d, DIFFENG_NONDET, path, wa, wb,
                     g_strdup_printf("the same inputs, arguments and environment, another "
                                     "output: it reads the clock or randomness%s%s%s%s%s",
                                     lists ? ", or the order it listed a directory in" : "",
                                     moved ? ", or embeds the build path" : "",
                                     untraced ? ", or the program it ran, " : "",
                                     untraced ? pa->exe : "",
                                     untraced ? ", not traced here, differs (--system traces it)"
                                              : ""));
}

/* Compare the processes that wrote va and vb: their inputs, else how they ran. */
static void explain_writers(struct diffeng *d, const char *memo_key, GArray *causes,
                            const struct prov_version *va, const struct prov_version *vb,
                            const char *path, const char *product, int depth)
{
    int64_t wa = de_writer_of(&d->s[0], va->id), wb = de_writer_of(&d->s[1], vb->id);
    const struct qdb_process *pa = wa ? qdb_process(d->s[0].q, wa) : NULL;
    const struct qdb_process *pb = wb ? qdb_process(d->s[1].q, wb) : NULL;
    if (!pa || !pb || depth > 64) {
        size_t at = add_cause(d, DIFFENG_UNKNOWN, path, wa, wb,
                              g_strdup(depth > 64 ? "the chain is too long to follow"
                                                  : "no process of one build is known to have "
                                                    "written it"));
        g_array_append_val(causes, at);
        return;
    }
    GPtrArray *ia = direct_inputs(d, &d->s[0], va->id),
              *ib = direct_inputs(d, &d->s[1], vb->id);
    drop_system(d, ia);
    drop_system(d, ib);
    /* (the earlier step, if any, agreed: it is not an input to explain) */
    if (va->base_id)
        g_ptr_array_remove(ia, (gpointer)prov_version(d->s[0].p, va->base_id));
    if (vb->base_id)
        g_ptr_array_remove(ib, (gpointer)prov_version(d->s[1].p, vb->base_id));
    bool inputs_differ = false;
    explain_inputs(d, memo_key, causes, ia, ib, wa, wb, product, depth, &inputs_differ);
    /* Whether the program the writer ran was itself compared: it is among its inputs only
     * where it was traced (a compiler under /usr without --system is not). */
    bool exe_compared = pa->exe && pb->exe && has_path(ia, pa->exe) && has_path(ib, pb->exe);
    g_ptr_array_free(ia, TRUE);
    g_ptr_array_free(ib, TRUE);
    if (!inputs_differ) {
        size_t at = process_cause(d, path, pa, pb, exe_compared);
        g_array_append_val(causes, at);
    }
}

/* The root causes of two versions differing (indices into d->causes); memoised. */
static GArray *explain(struct diffeng *d, const struct prov_version *va,
                       const struct prov_version *vb, const char *product, int depth)
{
    g_autofree char *mkey = pair_key(va, vb);
    GArray *memo = g_hash_table_lookup(d->memo, mkey);
    if (memo)
        return memo;
    GArray *causes = g_array_new(FALSE, FALSE, sizeof(size_t));
    const char *memo_key = mkey;
    g_hash_table_insert(d->pair_path, (gpointer)memo_key, (gpointer)vb->path);
    g_hash_table_insert(d->memo, g_steal_pointer(&mkey), causes); /* (cycles end here) */
    g_autofree char *path = prov_is_temporary(d->s[1].p, vb)
                                ? g_strdup_printf("%s (a temporary)", vb->path)
                                : g_strdup(vb->path);
    if (va->origin != vb->origin) {
        bool a_made = va->origin == TRACEDB_VERSION_WRITTEN;
        size_t at = add_cause(d, DIFFENG_ORIGIN, path, 0, 0,
                              g_strdup_printf("made by the %s build, found by the %s",
                                              a_made ? "first" : "second",
                                              a_made ? "second" : "first"));
        g_array_append_val(causes, at);
        return causes;
    }
    if (va->origin == TRACEDB_VERSION_FOUND) {
        size_t at = add_cause(d, DIFFENG_INPUT, path, 0, 0,
                              g_strdup_printf("found with other content (sha256 %.12s… / %.12s…)",
                                              va->sha256[0] ? va->sha256 : "unknown",
                                              vb->sha256[0] ? vb->sha256 : "unknown"));
        g_array_append_val(causes, at);
        return causes;
    }
    if (d->layout[0] && dl_only_build_path(va, vb, d->layout[0], d->layout[1])) {
        int64_t wa = de_writer_of(&d->s[0], va->id), wb = de_writer_of(&d->s[1], vb->id);
        g_hash_table_add(d->embedders, GINT_TO_POINTER(wa));
        size_t at = add_cause(d, DIFFENG_BUILD_PATH, path, wa, wb, g_strdup(""));
        g_array_append_val(causes, at);
        return causes;
    }
    if ((va->base_id || vb->base_id) &&
        explain_steps(d, memo_key, causes, va, vb, path, product, depth))
        return causes;
    explain_writers(d, memo_key, causes, va, vb, path, product, depth);
    return causes;
}

gint de_by_str(gconstpointer a, gconstpointer b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

struct diffeng *diffeng_new(struct qdb *qa, struct prov *pa, struct qdb *qb, struct prov *pb)
{
    struct diffeng *d = g_new0(struct diffeng, 1);
    struct qdb *q[2] = {qa, qb};
    struct prov *p[2] = {pa, pb};
    for (int i = 0; i < 2; i++) {
        d->s[i].q = q[i];
        d->s[i].p = p[i];
        d->s[i].root = qdb_run(q[i])->cwd ? qdb_run(q[i])->cwd : "/";
        d->m.root[i] = d->s[i].root;
    }
    d->maps = g_ptr_array_new_with_free_func(g_free);
    d->excludes = g_ptr_array_new_with_free_func(g_free);
    d->expected_env = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    d->expected_paths = g_ptr_array_new_with_free_func(g_free);
    d->tmp_pair = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    d->memo = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
                                    (GDestroyNotify)g_array_unref);
    d->via = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    d->pair_path = g_hash_table_new(g_str_hash, g_str_equal);
    d->causes = g_ptr_array_new();
    d->embedders = g_hash_table_new(g_direct_hash, g_direct_equal);
    d->cause_of = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    d->product_pair = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, g_free);
    d->m.identical = g_ptr_array_new_with_free_func(g_free);
    d->m.differ = g_ptr_array_new_with_free_func(g_free);
    d->m.only_a = g_ptr_array_new_with_free_func(g_free);
    d->m.only_b = g_ptr_array_new_with_free_func(g_free);
    d->m.not_compared = g_ptr_array_new_with_free_func(g_free);
    d->m.causes = g_ptr_array_new();
    d->m.artifacts = g_ptr_array_new_with_free_func(g_free);
    return d;
}

void diffeng_free(struct diffeng *d)
{
    if (!d)
        return;
    for (guint i = 0; i < d->causes->len; i++) {
        struct cause *c = d->causes->pdata[i];
        g_free(c->path);
        g_free(c->detail);
        g_ptr_array_free(c->pub.products, TRUE);
        g_free(c);
    }
    g_free(d->layout[0]);
    g_free(d->layout[1]);
    g_hash_table_destroy(d->embedders);
    g_ptr_array_free(d->maps, TRUE);
    g_ptr_array_free(d->excludes, TRUE);
    g_hash_table_destroy(d->expected_env);
    g_ptr_array_free(d->expected_paths, TRUE);
    g_hash_table_destroy(d->tmp_pair);
    g_hash_table_destroy(d->pair_path); /* (its keys are the memo's) */
    g_hash_table_destroy(d->via);
    g_hash_table_destroy(d->memo);
    g_ptr_array_free(d->causes, TRUE);
    g_hash_table_destroy(d->cause_of);
    g_hash_table_destroy(d->product_pair); /* (its keys are model.differ's) */
    g_ptr_array_free(d->m.identical, TRUE);
    g_ptr_array_free(d->m.differ, TRUE);
    g_ptr_array_free(d->m.only_a, TRUE);
    g_ptr_array_free(d->m.only_b, TRUE);
    g_ptr_array_free(d->m.not_compared, TRUE);
    g_ptr_array_free(d->m.causes, TRUE);
    g_ptr_array_free(d->m.artifacts, TRUE);
    g_free(d);
}

void diffeng_exclude(struct diffeng *d, const char *glob)
{
    g_ptr_array_add(d->excludes, g_strdup(glob));
}

/* Whether only one trace saw the system trees: reads there are in one graph only. */
static void check_system_trees(struct diffeng *d)
{
    bool sys[2];
    for (int i = 0; i < 2; i++) {
        GArray *t = qdb_ids(d->s[i].q, tracedb_sql(TQ_SYSTEM_TREES_TRACED), 0);
        sys[i] = t->len && g_array_index(t, int64_t, 0) > 0;
        g_array_unref(t);
    }
    d->skip_system = sys[0] != sys[1];
    if (sys[0] != sys[1])
        not_compared(d, g_strdup_printf("files under the system trees: only %s was recorded "
                                        "with --system (its reads there are not matched)",
                                        sys[0] ? "A" : "B"));
}

/* Side s's products, path -> version, without those an exclude matches. */
static GHashTable *products_kept(struct diffeng *d, int side)
{
    GHashTable *t = products(&d->s[side]);
    GHashTableIter it;
    gpointer k, v;
    g_hash_table_iter_init(&it, t);
    while (g_hash_table_iter_next(&it, &k, &v)) {
        g_autofree char *key = side ? g_strdup(k) : map_path(d, k);
        size_t l = strlen(d->s[1].root);
        const char *rel = !strncmp(key, d->s[1].root, l) && key[l] == '/' ? key + l + 1 : key;
        for (guint i = 0; i < d->excludes->len; i++)
            if (g_pattern_match_simple(d->excludes->pdata[i], rel) ||
                g_pattern_match_simple(d->excludes->pdata[i], key)) {
                g_hash_table_iter_remove(&it);
                break;
            }
    }
    return t;
}

/* Match A's products with B's, explain each pair that differs.  A's products are explained in
 * place_of's order (their paths inside the build directory first), so the causes are
 * numbered by the first product each reaches — never by a hash table's order, nor by the
 * names of the directories the builds ran in. */
static void compare_products(struct diffeng *d, GHashTable *pa, GHashTable *pb)
{
    GHashTable *matched_b = g_hash_table_new(g_str_hash, g_str_equal);
    GHashTableIter it;
    gpointer k, v;
    g_autoptr(GPtrArray) keys = g_ptr_array_sized_new(g_hash_table_size(pa));
    g_hash_table_iter_init(&it, pa);
    while (g_hash_table_iter_next(&it, &k, NULL))
        g_ptr_array_add(keys, k);
    g_ptr_array_sort_with_data(keys, by_place, d);
    for (guint n = 0; n < keys->len; n++) {
        k = keys->pdata[n];
        v = g_hash_table_lookup(pa, k);
        char *key = map_path(d, k);
        const struct prov_version *vb = g_hash_table_lookup(pb, key);
        if (!vb) {
            g_ptr_array_add(d->m.only_a, key);
            continue;
        }
        g_hash_table_add(matched_b, (gpointer)vb->path);
        const struct prov_version *va = v;
        if (va->sha256[0] && !strcmp(va->sha256, vb->sha256)) {
            g_ptr_array_add(d->m.identical, key);
            continue;
        }
        g_ptr_array_add(d->m.differ, key);
        g_hash_table_insert(d->product_pair, key, pair_key(va, vb));
        GArray *c = explain(d, va, vb, key, 0);
        for (guint i = 0; i < c->len; i++) {
            struct cause *cs = d->causes->pdata[g_array_index(c, size_t, i)];
            if (!g_ptr_array_find_with_equal_func(cs->pub.products, key, g_str_equal, NULL))
                g_ptr_array_add(cs->pub.products, key);
        }
    }
    g_hash_table_iter_init(&it, pb);
    while (g_hash_table_iter_next(&it, &k, &v))
        if (!g_hash_table_contains(matched_b, k))
            g_ptr_array_add(d->m.only_b, g_strdup(k));
    g_hash_table_destroy(matched_b);
}

const struct diffeng_model *diffeng_run(struct diffeng *d)
{
    if (d->ran)
        return &d->m;
    d->ran = true;
    de_map_layout(d);
    check_system_trees(d);
    de_add_denials(d); /* first: what one build was refused is the likeliest cause */
    GHashTable *pa = products_kept(d, 0), *pb = products_kept(d, 1);
    compare_products(d, pa, pb);
    de_name_build_path(d);
    g_hash_table_destroy(pa);
    g_hash_table_destroy(pb);
    GPtrArray *lists[] = {d->m.identical, d->m.differ, d->m.only_a, d->m.only_b};
    for (size_t i = 0; i < G_N_ELEMENTS(lists); i++)
        g_ptr_array_sort(lists[i], de_by_str);
    for (guint i = 0; i < d->causes->len; i++)
        g_ptr_array_sort(((struct cause *)d->causes->pdata[i])->pub.products, de_by_str);
    de_find_artifacts(d);
    /* Builds of two different projects: each made products, none of them at a path of the
     * other's (after mapping) — nothing could be compared. */
    d->m.unrelated = !d->m.identical->len && !d->m.differ->len && d->m.only_a->len &&
                     d->m.only_b->len;
    return &d->m;
}

GArray *diffeng_causes_of(struct diffeng *d, const char *product)
{
    GArray *out = g_array_new(FALSE, FALSE, sizeof(size_t));
    const char *k = g_hash_table_lookup(d->product_pair, product);
    GArray *found = k ? g_hash_table_lookup(d->memo, k) : NULL;
    for (guint i = 0; found && i < found->len; i++) {
        size_t at = g_array_index(found, size_t, i);
        bool seen = false;
        for (guint j = 0; j < out->len && !seen; j++)
            seen = g_array_index(out, size_t, j) == at;
        if (!seen)
            g_array_append_val(out, at);
    }
    return out;
}

GPtrArray *diffeng_chain(struct diffeng *d, const char *product, size_t cause)
{
    GPtrArray *hops = g_ptr_array_new();
    const char *k = g_hash_table_lookup(d->product_pair, product);
    for (int guard = 0; k && guard < 256; guard++) {
        g_autofree char *link = g_strdup_printf("%s|%zu", k, cause);
        const char *next = g_hash_table_lookup(d->via, link);
        if (!next)
            break;
        g_ptr_array_add(hops, g_hash_table_lookup(d->pair_path, next));
        k = next;
    }
    return hops;
}
