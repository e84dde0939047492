/* diff: why two builds of the same source differ — which products differ, and the root
 * causes behind them, followed down the provenance graph of each trace.
 *
 * Products are matched by path, the first build's paths mapped onto the second's (its
 * directory onto the other's, then each --map OLD=NEW), and compared by SHA-256.  For a
 * product that differs, the process that made it in each build is the one that wrote it
 * (matched by what it wrote, never by pid or order); its direct inputs are paired by path
 * (temporaries, whose names are random, by directory and extension in reading order), and
 * every pair that differs is explained the same way, down to the first points where the
 * builds diverge: the root causes.
 *   input      a file found outside the build (or before it) whose content differs;
 *   origin     made by the build in one and found in the other;
 *   inputs     a process read a file in one build only;
 *   argv       a process read the same inputs but was run with other arguments;
 *   environment  ... or with another environment;
 *   executable, cwd  ... or as another program (not traced: found on another PATH), or in
 *              another directory (after mapping; PWD and OLDPWD follow it and are not an
 *              environment cause then);
 *   nondeterminism  ... the same in every way it can be told apart, yet its output differs
 *              (the clock, randomness, the order of a directory listing, the build path; or,
 *              when the program was not traced, the program's content — said so).
 * Each root cause lists the products it reaches; a product is listed under every cause that
 * reaches it.  Exit: 0 identical, 1 the products differ, 2 an error or a usage error. */
#include "driver.h"
#include "query.h"
#include "queries.h"
#include "textout.h"
#include "tracedb.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

enum cause_kind {
    C_INPUT, C_ORIGIN, C_INPUTS, C_ARGV, C_ENV, C_EXE, C_CWD, C_NONDET, C_UNKNOWN
};
static const char *const cause_names[] = {"input", "origin", "inputs", "argv", "environment",
                                          "executable", "cwd", "nondeterminism", "unexplained"};

struct cause {
    enum cause_kind kind;
    char *path;         /* the file (mapped to the second build's paths) */
    int64_t proc[2];    /* the process in each build (0: none) */
    char *detail;       /* what differs, for people */
    GPtrArray *products; /* char*: the products it reaches (not owned) */
    unsigned more_processes; /* other processes with the same argv/environment difference */
};

struct side {
    const char *name; /* "A", "B" */
    struct qdb *q;
    struct prov *p;
    const char *root; /* the directory the build ran in */
};

struct diffctx {
    struct side s[2];
    GPtrArray *maps;      /* char*: "OLD\0NEW" pairs, longest OLD first: A's paths as B's */
    GHashTable *tmp_pair; /* A's temporary path -> B's (owned strings) */
    GHashTable *memo;     /* "vA:vB" -> GArray of cause indices */
    GHashTable *via;      /* "vA:vB|cause" -> the pair "vA:vB" it came through (the chain) */
    GHashTable *pair_path; /* "vA:vB" -> B's path of the pair (not owned: the prov's) */
    GPtrArray *causes;    /* struct cause* */
    GHashTable *cause_of; /* "kind\npath\nprocA" -> index+1 */
    GPtrArray *not_compared; /* char*: what could not be compared, once each */
    bool skip_system;     /* only one trace saw the system trees: their files are not paired */
};

/* Under a system tree (what `run --system` adds to a trace). */
static bool is_system_path(const char *path)
{
    static const char *const tops[] = {"/usr/", "/etc/", "/opt/", "/bin/", "/sbin/", "/lib",
                                       "/boot/", NULL};
    for (const char *const *t = tops; *t; t++)
        if (g_str_has_prefix(path, *t))
            return true;
    return false;
}

/* The inputs worth pairing: all, or without the system trees' when one trace lacks them. */
static void drop_system(struct diffctx *d, GPtrArray *inputs)
{
    for (guint i = inputs->len; d->skip_system && i-- > 0;)
        if (is_system_path(((const struct prov_version *)inputs->pdata[i])->path))
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
static char *map_path(struct diffctx *d, const char *path)
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

static void add_map(struct diffctx *d, const char *old, const char *new)
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

/* An argv or environment entry of the first build in the second's terms: every mapped
 * prefix replaced wherever it starts a path (-I/a/b, --prefix=/a/b, PWD=/a/b). */
static char *map_words(struct diffctx *d, const char *s)
{
    GString *out = g_string_new(NULL);
    for (const char *p = s; *p;) {
        bool done = false;
        if (*p == '/') {
            for (guint i = 0; i < d->maps->len && !done; i++) {
                const char *old = d->maps->pdata[i], *new = old + strlen(old) + 1;
                size_t l = strlen(old);
                if (!strncmp(p, old, l) && (p[l] == '/' || !p[l] || p[l] == ' ' || p[l] == ':')) {
                    g_string_append(out, new);
                    p += l;
                    done = true;
                }
            }
            GHashTableIter it;
            gpointer k, v;
            g_hash_table_iter_init(&it, d->tmp_pair);
            while (!done && g_hash_table_iter_next(&it, &k, &v)) {
                size_t l = strlen(k);
                if (!strncmp(p, k, l)) {
                    g_string_append(out, v);
                    p += l;
                    done = true;
                }
            }
        }
        if (!done)
            g_string_append_c(out, *p++);
    }
    return g_string_free(out, FALSE);
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

static int64_t writer_of(struct side *s, int64_t vid)
{
    GArray *ids = qdb_ids(s->q, tracedb_sql(TQ_WRITER_OF_VERSION), vid);
    int64_t w = ids->len ? g_array_index(ids, int64_t, 0) : 0;
    g_array_unref(ids);
    return w;
}

/* The versions `vid`'s writer read before writing it (its direct inputs). */
static GPtrArray *direct_inputs(struct side *s, int64_t vid)
{
    static const struct prov_walk_opts walk = {.scripts = false, .max_depth = 1, .every_read = true};
    GArray *nodes = prov_inputs(s->p, vid, &walk);
    GPtrArray *out = g_ptr_array_new();
    for (guint i = 0; i < nodes->len; i++) {
        const struct prov_node *n = &g_array_index(nodes, struct prov_node, i);
        if (n->depth == 1)
            g_ptr_array_add(out, (gpointer)n->v);
    }
    g_array_unref(nodes);
    return out;
}

/* One root cause per what it is: an input by its path; argv, environment, executable and cwd
 * by what differs (-DX=1 given to forty compiles is one cause); non-determinism by its
 * process.  `path` is where it was first seen (the cause's headline). */
static size_t add_cause(struct diffctx *d, enum cause_kind kind, const char *path, int64_t pa,
                        int64_t pb, char *detail)
{
    g_autofree char *key =
        kind == C_ARGV || kind == C_ENV || kind == C_EXE || kind == C_CWD
            ? g_strdup_printf("%d\n%s", kind, detail)
        : kind == C_NONDET ? g_strdup_printf("%d\n%" G_GINT64_FORMAT, kind, pa)
                           : g_strdup_printf("%d\n%s\n%" G_GINT64_FORMAT, kind, path, pa);
    gpointer at = g_hash_table_lookup(d->cause_of, key);
    if (at) {
        struct cause *c = d->causes->pdata[GPOINTER_TO_SIZE(at) - 1];
        if (pa && pa != c->proc[0])
            c->more_processes++;
        g_free(detail);
        return (size_t)GPOINTER_TO_SIZE(at) - 1;
    }
    struct cause *c = g_new0(struct cause, 1);
    *c = (struct cause){kind, g_strdup(path), {pa, pb}, detail, g_ptr_array_new()};
    g_ptr_array_add(d->causes, c);
    g_hash_table_insert(d->cause_of, g_steal_pointer(&key), GSIZE_TO_POINTER(d->causes->len));
    return d->causes->len - 1;
}

static void not_compared(struct diffctx *d, char *what)
{
    for (guint i = 0; i < d->not_compared->len; i++)
        if (!strcmp(d->not_compared->pdata[i], what)) {
            g_free(what);
            return;
        }
    g_ptr_array_add(d->not_compared, what);
}

/* The words of p's argv (A's mapped into B's terms when `d` is given); g_ptr_array_unref. */
static GPtrArray *argv_words(struct diffctx *d, const struct qdb_process *p)
{
    GPtrArray *w = g_ptr_array_new_with_free_func(g_free);
    for (size_t i = 0; p->argv && i < p->argv_len;) {
        size_t l = strnlen(p->argv + i, p->argv_len - i);
        g_autofree char *word = g_strndup(p->argv + i, l);
        g_ptr_array_add(w, d ? map_words(d, word) : g_steal_pointer(&word));
        i += l + 1;
    }
    return w;
}

static bool has_word(GPtrArray *words, const char *w)
{
    return g_ptr_array_find_with_equal_func(words, w, g_str_equal, NULL);
}

/* Words as a shell reads them, space-separated. */
static void append_words(GString *out, GPtrArray *words)
{
    for (guint i = 0; i < words->len; i++) {
        if (i)
            g_string_append_c(out, ' ');
        text_quote_arg(out, words->pdata[i], strlen(words->pdata[i]));
    }
}

/* How B's argv differs from A's, for people, when it does (else NULL): "-O2 → -O1" for one
 * word that became another, else "removed W..., added W..." (either alone when the other is
 * empty), or "the same words, in another order or number". */
static char *argv_difference(struct diffctx *d, const struct qdb_process *a,
                             const struct qdb_process *b)
{
    GPtrArray *wa = argv_words(d, a), *wb = argv_words(NULL, b);
    bool same = wa->len == wb->len;
    for (guint i = 0; same && i < wa->len; i++)
        same = !strcmp(wa->pdata[i], wb->pdata[i]);
    char *out = NULL;
    if (!same) {
        GPtrArray *removed = g_ptr_array_new(), *added = g_ptr_array_new();
        for (guint i = 0; i < wa->len; i++)
            if (!has_word(wb, wa->pdata[i]) && !has_word(removed, wa->pdata[i]))
                g_ptr_array_add(removed, wa->pdata[i]);
        for (guint i = 0; i < wb->len; i++)
            if (!has_word(wa, wb->pdata[i]) && !has_word(added, wb->pdata[i]))
                g_ptr_array_add(added, wb->pdata[i]);
        GString *s = g_string_new(NULL);
        if (removed->len == 1 && added->len == 1) {
            append_words(s, removed);
            g_string_append(s, " \u2192 ");
            append_words(s, added);
        } else {
            if (removed->len) {
                g_string_append(s, "removed ");
                append_words(s, removed);
            }
            if (added->len) {
                g_string_append(s, removed->len ? ", added " : "added ");
                append_words(s, added);
            }
        }
        if (!s->len)
            g_string_append(s, "the same words, in another order or number");
        out = g_string_free(s, FALSE);
        g_ptr_array_free(removed, TRUE);
        g_ptr_array_free(added, TRUE);
    }
    g_ptr_array_unref(wa);
    g_ptr_array_unref(wb);
    return out;
}

/* Variables whose values say how a driver runs, not what a process makes. */
static bool env_noise(const char *name, size_t len)
{
    static const char *const noise[] = {"MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKE_TERMOUT",
                                        "MAKE_TERMERR", "_", "OLDPWD", "SHLVL", "TERM",
                                        "DISPLAY", "SSH_AUTH_SOCK", "SSH_CLIENT",
                                        "SSH_CONNECTION", "SSH_TTY", "XDG_SESSION_ID",
                                        "INVOCATION_ID", "JOURNAL_STREAM", NULL};
    for (const char *const *n = noise; *n; n++)
        if (strlen(*n) == len && !memcmp(*n, name, len))
            return true;
    return false;
}

struct env_table_ctx {
    struct diffctx *d;
    GHashTable *t;
    bool mapped;
};

static void env_table_entry(const char *name, const char *value, void *data)
{
    struct env_table_ctx *e = data;
    if (env_noise(name, strlen(name)))
        return;
    g_hash_table_insert(e->t, g_strdup(name),
                        e->mapped ? map_words(e->d, value ? value : "")
                                  : g_strdup(value ? value : ""));
}

/* Image id's environment as name -> value ("" when redacted), without the driver noise;
 * A's values mapped into B's terms.  NULL when the trace does not have it. */
static GHashTable *env_table(struct diffctx *d, struct side *s, int64_t id, bool mapped)
{
    struct env_table_ctx e = {d, g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free),
                              mapped};
    if (!query_each_env(s->q, id, env_table_entry, &e)) {
        g_hash_table_destroy(e.t);
        return NULL;
    }
    return e.t;
}

/* Whether A's path (mapped) and B's differ; unknown on either side is no difference. */
static bool differs_mapped(struct diffctx *d, const char *a, const char *b)
{
    if (!a || !b)
        return false;
    g_autofree char *m = map_path(d, a);
    return strcmp(m, b) != 0;
}

/* PWD and OLDPWD follow the directory a shell was in: where the processes' directories
 * differ, that is the cause (cwd), not these. */
static bool shell_cwd_var(const char *name)
{
    return !strcmp(name, "PWD") || !strcmp(name, "OLDPWD");
}

/* The environment variables that differ between A's process and B's, for people; NULL when
 * none (or either environment is not known). */
static char *env_difference(struct diffctx *d, int64_t pa, int64_t pb, bool cwd_differs)
{
    GHashTable *a = env_table(d, &d->s[0], pa, true), *b = env_table(d, &d->s[1], pb, false);
    char *out = NULL;
    if (a && b) {
        GPtrArray *names = g_ptr_array_new();
        GHashTableIter it;
        gpointer k, v;
        g_hash_table_iter_init(&it, a);
        while (g_hash_table_iter_next(&it, &k, &v)) {
            const char *vb = g_hash_table_lookup(b, k);
            if ((!vb || strcmp(vb, v)) && !(cwd_differs && shell_cwd_var(k)))
                g_ptr_array_add(names, k);
        }
        g_hash_table_iter_init(&it, b);
        while (g_hash_table_iter_next(&it, &k, &v))
            if (!g_hash_table_contains(a, k) && !(cwd_differs && shell_cwd_var(k)))
                g_ptr_array_add(names, k);
        g_ptr_array_sort(names, (GCompareFunc)g_strcmp0);
        if (names->len) {
            GString *s = g_string_new(NULL);
            for (guint i = 0; i < names->len; i++) {
                const char *n = names->pdata[i];
                const char *va = g_hash_table_lookup(a, n), *vb = g_hash_table_lookup(b, n);
                g_string_append_printf(s, "%s%s (%s%s%s / %s%s%s)", s->len ? ", " : "", n,
                                       va ? "'" : "", va ? va : "unset", va ? "'" : "",
                                       vb ? "'" : "", vb ? vb : "unset", vb ? "'" : "");
            }
            out = g_string_free(s, FALSE);
        }
        g_ptr_array_free(names, TRUE);
    }
    if (a)
        g_hash_table_destroy(a);
    if (b)
        g_hash_table_destroy(b);
    return out;
}


static gint by_path(gconstpointer x, gconstpointer y)
{
    const struct prov_version *a = *(const struct prov_version *const *)x;
    const struct prov_version *b = *(const struct prov_version *const *)y;
    return strcmp(a->path, b->path);
}

/* The directory and extension of a path: how temporaries are paired. */
static char *shape_of(const char *path)
{
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    if (!dot || (slash && dot < slash))
        dot = path + strlen(path);
    return g_strdup_printf("%.*s|%s", slash ? (int)(slash - path) : 0, path, dot);
}

static GArray *explain(struct diffctx *d, const struct prov_version *va,
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
static void take_causes(struct diffctx *d, const char *parent, GArray *causes,
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

/* Pair the direct inputs of the two writers and explain each pair that differs. */
static void explain_inputs(struct diffctx *d, const char *parent, GArray *causes,
                           GPtrArray *ia, GPtrArray *ib, int64_t wa, int64_t wb,
                           const char *product, int depth, bool *inputs_differ)
{
    g_ptr_array_sort(ia, by_path);
    g_ptr_array_sort(ib, by_path);
    GHashTable *bpath = g_hash_table_new(g_str_hash, g_str_equal);
    for (guint i = 0; i < ib->len; i++)
        g_hash_table_insert(bpath, (gpointer)((struct prov_version *)ib->pdata[i])->path,
                            ib->pdata[i]);
    GHashTable *used_b = g_hash_table_new(g_direct_hash, g_direct_equal);
    GPtrArray *left_a = g_ptr_array_new();
    for (guint i = 0; i < ia->len; i++) {
        const struct prov_version *a = ia->pdata[i];
        g_autofree char *key = map_path(d, a->path);
        const struct prov_version *b = g_hash_table_lookup(bpath, key);
        if (b && !g_hash_table_contains(used_b, b)) {
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
    for (guint i = 0; i < left_a->len; i++) {
        const struct prov_version *a = left_a->pdata[i], *b = NULL;
        g_autofree char *sa = shape_of(a->path);
        for (guint k = 0; k < ib->len && !b; k++) {
            const struct prov_version *c = ib->pdata[k];
            g_autofree char *sb = shape_of(c->path);
            if (!g_hash_table_contains(used_b, c) && !strcmp(sa, sb) &&
                prov_is_temporary(d->s[0].p, a) == prov_is_temporary(d->s[1].p, c))
                b = c;
        }
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
        size_t at = add_cause(d, C_INPUTS, key, wa, wb,
                              g_strdup_printf("read by the first build's process only"));
        g_array_append_val(causes, at);
    }
    for (guint k = 0; k < ib->len; k++) {
        const struct prov_version *b = ib->pdata[k];
        if (g_hash_table_contains(used_b, b))
            continue;
        *inputs_differ = true;
        size_t at = add_cause(d, C_INPUTS, b->path, wa, wb,
                              g_strdup("read by the second build's process only"));
        g_array_append_val(causes, at);
    }
    g_ptr_array_free(left_a, TRUE);
    g_hash_table_destroy(used_b);
    g_hash_table_destroy(bpath);
}

/* The root causes of two versions differing (indices into d->causes); memoised. */
static GArray *explain(struct diffctx *d, const struct prov_version *va,
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
        size_t at = add_cause(d, C_ORIGIN, path, 0, 0,
                              g_strdup_printf("made by the %s build, found by the %s",
                                              va->origin == TRACEDB_VERSION_WRITTEN ? "first"
                                                                                   : "second",
                                              va->origin == TRACEDB_VERSION_WRITTEN ? "second"
                                                                                   : "first"));
        g_array_append_val(causes, at);
        return causes;
    }
    if (va->origin == TRACEDB_VERSION_FOUND) {
        size_t at = add_cause(d, C_INPUT, path, 0, 0,
                              g_strdup_printf("found with other content (sha256 %.12s… / %.12s…)",
                                              va->sha256[0] ? va->sha256 : "unknown",
                                              vb->sha256[0] ? vb->sha256 : "unknown"));
        g_array_append_val(causes, at);
        return causes;
    }
    /* A file written in steps (appended to: a log, an archive updated member by member):
     * line the two histories up from their first step; the first step that differs is
     * where they diverge. */
    if (va->base_id || vb->base_id) {
        GPtrArray *ha = history(&d->s[0], va), *hb = history(&d->s[1], vb);
        if (ha->len != hb->len) {
            size_t at = add_cause(d, C_UNKNOWN, path, 0, 0,
                                  g_strdup_printf("written in %u steps by one build and %u by "
                                                  "the other", ha->len, hb->len));
            g_array_append_val(causes, at);
        } else {
            guint i = 0;
            while (i + 1 < ha->len &&
                   !strcmp(((const struct prov_version *)ha->pdata[i])->sha256,
                           ((const struct prov_version *)hb->pdata[i])->sha256))
                i++;
            if (i + 1 < ha->len) { /* an earlier step diverged first */
                take_causes(d, memo_key, causes, ha->pdata[i], hb->pdata[i], product, depth);
            }
        }
        bool done = ha->len != hb->len || (causes->len > 0);
        g_ptr_array_free(ha, TRUE);
        g_ptr_array_free(hb, TRUE);
        if (done)
            return causes;
    }
    int64_t wa = writer_of(&d->s[0], va->id), wb = writer_of(&d->s[1], vb->id);
    const struct qdb_process *pa = wa ? qdb_process(d->s[0].q, wa) : NULL;
    const struct qdb_process *pb = wb ? qdb_process(d->s[1].q, wb) : NULL;
    if (!pa || !pb || depth > 64) {
        size_t at = add_cause(d, C_UNKNOWN, path, wa, wb,
                              g_strdup(depth > 64 ? "the chain is too long to follow"
                                                  : "no process of one build is known to have "
                                                    "written it"));
        g_array_append_val(causes, at);
        return causes;
    }
    GPtrArray *ia = direct_inputs(&d->s[0], va->id), *ib = direct_inputs(&d->s[1], vb->id);
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
        char *argv = argv_difference(d, pa, pb);
        char *env = argv ? NULL
                              : env_difference(d, wa, wb, differs_mapped(d, pa->cwd, pb->cwd));
        size_t at;
        if (argv) {
            /* Name the command that was written differently, not only the program it ran:
             * go up while the parents differ the same way (cc1's -O2 came from cc's). */
            char *inner = g_strdup(argv);
            const struct qdb_process *ia0 = pa;
            for (int guard = 0; guard < 64; guard++) {
                const struct qdb_process *ua = pa->parent_id ? qdb_process(d->s[0].q, pa->parent_id)
                                                             : NULL;
                const struct qdb_process *ub = pb->parent_id ? qdb_process(d->s[1].q, pb->parent_id)
                                                             : NULL;
                char *up = ua && ub ? argv_difference(d, ua, ub) : NULL;
                if (!up)
                    break;
                g_free(argv);
                argv = up;
                pa = ua;
                pb = ub;
                wa = ua->id;
                wb = ub->id;
            }
            if (pa != ia0) {
                GString *det = g_string_new(argv);
                g_string_append_printf(det, "; so the programs that made its products differ "
                                            "too: %s", inner);
                g_free(argv);
                argv = g_string_free(det, FALSE);
            }
            g_free(inner);
            at = add_cause(d, C_ARGV, path, wa, wb, argv);
        } else if (env) {
            at = add_cause(d, C_ENV, path, wa, wb, env);
        } else if (differs_mapped(d, pa->exe, pb->exe) || differs_mapped(d, pa->cwd, pb->cwd)) {
            bool exe = differs_mapped(d, pa->exe, pb->exe);
            at = add_cause(d, exe ? C_EXE : C_CWD, path, wa, wb,
                           g_strdup_printf("the same arguments, environment and inputs, run %s "
                                           "%s in A and %s in B", exe ? "as" : "in",
                                           exe ? pa->exe : pa->cwd, exe ? pb->exe : pb->cwd));
        } else {
            GArray *listed = qdb_ids(d->s[0].q, tracedb_sql(TQ_DIRS_LISTED_BY_PROCESS), wa);
            bool lists = listed->len && g_array_index(listed, int64_t, 0) > 0;
            g_array_unref(listed);
            bool moved = strcmp(d->s[0].root, d->s[1].root) != 0;
            at = add_cause(d, C_NONDET, path, wa, wb,
                           g_strdup_printf("the same inputs, arguments and environment, another "
                                           "output: it reads the clock or randomness%s%s%s%s%s",
                                           lists ? ", or the order it listed a directory in" : "",
                                           moved ? ", or embeds the build path" : "",
                                           exe_compared || !pa->exe ? "" : ", or the program it ran, ",
                                           exe_compared || !pa->exe ? "" : pa->exe,
                                           exe_compared || !pa->exe ? ""
                                                                    : ", not traced here, differs "
                                                                      "(--system traces it)"));
        }
        g_array_append_val(causes, at);
    }
    return causes;
}

struct diff_cli {
    GPtrArray *maps;     /* "OLD=NEW" */
    GPtrArray *excludes; /* globs */
};

static int diff_option(void *ctx, int c, const char *arg)
{
    struct diff_cli *o = ctx;
    if (c == 'x') {
        g_ptr_array_add(o->excludes, g_strdup(arg));
        return 0;
    }
    if (c != 'm')
        return 2;
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || arg[0] != '/' || eq[1] != '/') {
        fprintf(stderr, "buildtrail diff: --map %s: give OLD=NEW, two absolute paths (the first "
                        "build's and the second's)\n", arg);
        return 2;
    }
    g_ptr_array_add(o->maps, g_strdup(arg));
    return 0;
}

static const struct option diff_options[] = {{"map", required_argument, NULL, 'm'},
                                             {"exclude", required_argument, NULL, 'x'},
                                             {0}};

static const struct query_command diff_command = {
    .name = "diff",
    .operands = "A.db B.db",
    .min_operands = 0, /* fewer than two: said below, naming what was given */
    .max_operands = 2,
    .about = "Why two builds of the same source differ.  Products (the files each build left)\n"
             "are matched by path, A's build directory mapped onto B's, and compared by\n"
             "SHA-256.  For each that differs, the process that wrote it in each build is\n"
             "compared: its inputs, paired by path, and those that differ followed down the\n"
             "provenance graph to the root causes, the first points where the builds\n"
             "diverge: an input found with other content (a system header, a tool), a file\n"
             "read in one build only, another argv or environment, or non-determinism (the\n"
             "same inputs, arguments and environment, another output: the clock,\n"
             "randomness, directory order, the build path).  Each root cause lists the\n"
             "products it reaches (another argument reads \"-O2 \u2192 -O1\", or \"removed W,\n"
             "added W\").  Traces recorded with and without --system compare, and what\n"
             "could not be compared is said; two builds with no product in common (two\n"
             "different projects) get a warning on stderr.\n",
    .options_help = "      --map OLD=NEW     A's path OLD is B's NEW (repeatable; A's build\n"
                    "                        directory maps onto B's without it)\n"
                    "      --exclude GLOB    leave out the products GLOB matches (relative to\n"
                    "                        B's build directory, or absolute; repeatable):\n"
                    "                        logs such as configure.log\n",
    .exit_help = "\nExit status: 0 the products are identical; 1 they differ; 2 an error (a\n"
                 "trace that cannot be read) or a usage error.\n",
    .options = diff_options,
    .option = diff_option,
};

static void text_process(GString *out, struct side *s, int64_t id)
{
    const struct qdb_process *p = id ? qdb_process(s->q, id) : NULL;
    g_string_append_printf(out, "    in %s: ", s->name);
    if (p)
        query_text_process(out, p);
    else
        g_string_append(out, "(no process)");
    g_string_append_c(out, '\n');
}

/* A path for people: relative to B's build directory when under it. */
static void text_path(GString *out, struct diffctx *d, const char *path)
{
    size_t l = strlen(d->s[1].root);
    if (l > 1 && !strncmp(path, d->s[1].root, l) && path[l] == '/')
        path += l + 1;
    text_escape(out, path, strlen(path));
}

/* The files between product pair `pkey` and where cause `at` arose, nearest first. */
static GPtrArray *chain_of(struct diffctx *d, const char *pkey, size_t at)
{
    GPtrArray *hops = g_ptr_array_new();
    const char *k = pkey;
    for (int guard = 0; guard < 256; guard++) {
        g_autofree char *link = g_strdup_printf("%s|%zu", k, at);
        const char *next = g_hash_table_lookup(d->via, link);
        if (!next)
            break;
        g_ptr_array_add(hops, g_hash_table_lookup(d->pair_path, next));
        k = next;
    }
    return hops;
}

/* One stderr line: A and B share no product; what each ran, where. */
static void warn_unrelated(struct diffctx *d)
{
    GString *e = g_string_new("buildtrail diff: A and B have no product in common (");
    for (int i = 0; i < 2; i++) {
        const struct qdb_process *root = qdb_process(d->s[i].q, qdb_run(d->s[i].q)->root_id);
        g_string_append_printf(e, "%s: ", d->s[i].name);
        if (root && root->argv && root->argv_len)
            text_argv(e, root->argv, root->argv_len);
        else
            g_string_append(e, "(command not recorded)");
        g_string_append(e, " in ");
        text_escape(e, d->s[i].root, strlen(d->s[i].root));
        g_string_append(e, i ? "" : "; ");
    }
    g_string_append(e, "): they look like builds of two different projects; compare two builds "
                       "of one project, or map where B's files are with --map OLD=NEW\n");
    fputs(e->str, stderr);
    g_string_free(e, TRUE);
}

static gint by_str(gconstpointer a, gconstpointer b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int query_diff_main(int argc, char **argv)
{
    struct query_opts o = {0};
    struct diff_cli cli = {g_ptr_array_new_with_free_func(g_free),
                           g_ptr_array_new_with_free_func(g_free)};
    g_autoptr(GPtrArray) user_maps = cli.maps;
    g_autoptr(GPtrArray) excludes = cli.excludes;
    int r = query_parse(&diff_command, argc, argv, &o, &cli);
    if (r >= 0)
        return r == 1 ? 2 : r;
    if (argc - optind < 2) {
        if (argc - optind == 1)
            fprintf(stderr, "buildtrail diff: diff needs two traces, only %s given; compare it "
                            "with another: buildtrail diff A.db B.db\n", argv[optind]);
        else
            fputs("buildtrail diff: diff needs two traces, the builds to compare: buildtrail "
                  "diff A.db B.db\n", stderr);
        return 2;
    }
    const char *paths[2] = {argv[optind], argv[optind + 1]};
    struct diffctx d = {
        .maps = g_ptr_array_new_with_free_func(g_free),
        .tmp_pair = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free),
        .memo = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
                                      (GDestroyNotify)g_array_unref),
        .via = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free),
        .pair_path = g_hash_table_new(g_str_hash, g_str_equal),
        .causes = g_ptr_array_new(),
        .cause_of = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
        .not_compared = g_ptr_array_new_with_free_func(g_free),
    };
    int status = 2;
    for (int i = 0; i < 2; i++) {
        d.s[i].name = i ? "B" : "A";
        d.s[i].q = query_open("diff", paths[i]);
        d.s[i].p = d.s[i].q ? query_open_prov("diff", d.s[i].q) : NULL;
        if (!d.s[i].p)
            goto out;
        d.s[i].root = qdb_run(d.s[i].q)->cwd ? qdb_run(d.s[i].q)->cwd : "/";
    }
    for (guint i = 0; i < user_maps->len; i++) {
        char *m = user_maps->pdata[i], *eq = strchr(m, '=');
        *eq = '\0';
        add_map(&d, m, eq + 1);
    }
    if (strcmp(d.s[0].root, d.s[1].root))
        add_map(&d, d.s[0].root, d.s[1].root);
    /* Only one trace saw the system trees: reads there are in one graph only. */
    bool sys[2];
    for (int i = 0; i < 2; i++) {
        GArray *t = qdb_ids(d.s[i].q, tracedb_sql(TQ_SYSTEM_TREES_TRACED), 0);
        sys[i] = t->len && g_array_index(t, int64_t, 0) > 0;
        g_array_unref(t);
    }
    d.skip_system = sys[0] != sys[1];
    if (sys[0] != sys[1])
        not_compared(&d, g_strdup_printf("files under the system trees: only %s was recorded "
                                         "with --system (its reads there are not matched)",
                                         sys[0] ? "A" : "B"));

    GHashTable *pa = products(&d.s[0]), *pb = products(&d.s[1]);
    GPtrArray *differ = g_ptr_array_new_with_free_func(g_free);
    GPtrArray *only_a = g_ptr_array_new_with_free_func(g_free);
    GPtrArray *only_b = g_ptr_array_new_with_free_func(g_free);
    unsigned identical = 0;
    GHashTable *matched_b = g_hash_table_new(g_str_hash, g_str_equal);
    GHashTable *product_pair = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, g_free);
    GHashTableIter it;
    gpointer k, v;
    for (int side = 0; side < 2; side++) { /* --exclude */
        GHashTable *t = side ? pb : pa;
        g_hash_table_iter_init(&it, t);
        while (g_hash_table_iter_next(&it, &k, &v)) {
            g_autofree char *key = side ? g_strdup(k) : map_path(&d, k);
            size_t l = strlen(d.s[1].root);
            const char *rel = !strncmp(key, d.s[1].root, l) && key[l] == '/' ? key + l + 1 : key;
            for (guint i = 0; i < excludes->len; i++)
                if (g_pattern_match_simple(excludes->pdata[i], rel) ||
                    g_pattern_match_simple(excludes->pdata[i], key)) {
                    g_hash_table_iter_remove(&it);
                    break;
                }
        }
    }
    g_hash_table_iter_init(&it, pa);
    while (g_hash_table_iter_next(&it, &k, &v)) {
        char *key = map_path(&d, k);
        const struct prov_version *vb = g_hash_table_lookup(pb, key);
        if (!vb) {
            g_ptr_array_add(only_a, key);
            continue;
        }
        g_hash_table_add(matched_b, (gpointer)vb->path);
        const struct prov_version *va = v;
        if (va->sha256[0] && !strcmp(va->sha256, vb->sha256)) {
            identical++;
            g_free(key);
            continue;
        }
        g_ptr_array_add(differ, key);
        g_hash_table_insert(product_pair, key, pair_key(va, vb));
        GArray *c = explain(&d, va, vb, key, 0);
        for (guint i = 0; i < c->len; i++) {
            struct cause *cs = d.causes->pdata[g_array_index(c, size_t, i)];
            if (!g_ptr_array_find_with_equal_func(cs->products, key, g_str_equal, NULL))
                g_ptr_array_add(cs->products, key);
        }
    }
    g_hash_table_iter_init(&it, pb);
    while (g_hash_table_iter_next(&it, &k, &v))
        if (!g_hash_table_contains(matched_b, k))
            g_ptr_array_add(only_b, g_strdup(k));
    g_hash_table_destroy(matched_b);
    g_ptr_array_sort(differ, by_str);
    g_ptr_array_sort(only_a, by_str);
    g_ptr_array_sort(only_b, by_str);
    for (guint i = 0; i < d.causes->len; i++)
        g_ptr_array_sort(((struct cause *)d.causes->pdata[i])->products, by_str);

    /* Builds of two different projects: each made products, none of them at a path of the
     * other's (after mapping) — nothing could be compared. */
    bool unrelated = !identical && !differ->len && only_a->len && only_b->len;
    GString *out = g_string_new(NULL);
    if (o.json) {
        g_string_append_printf(out, "{\"json_version\":%d,\"unrelated\":%s,\"a\":{",
                               QUERY_JSON_VERSION, unrelated ? "true" : "false");
        query_json_trace(out, d.s[0].q);
        g_string_append(out, "},\"b\":{");
        query_json_trace(out, d.s[1].q);
        g_string_append_printf(out, "},\"identical\":%u,\"differ\":[", identical);
        GPtrArray *lists[] = {differ, only_a, only_b, d.not_compared};
        const char *names[] = {"differ", "only_a", "only_b", "not_compared"};
        for (int l = 0; l < 4; l++) {
            if (l)
                g_string_append_printf(out, "],\"%s\":[", names[l]);
            for (guint i = 0; i < lists[l]->len; i++) {
                g_string_append(out, i ? "," : "");
                json_string(out, lists[l]->pdata[i], strlen(lists[l]->pdata[i]));
            }
        }
        g_string_append(out, "],\"root_causes\":[");
        for (guint i = 0; i < d.causes->len; i++) {
            const struct cause *c = d.causes->pdata[i];
            g_string_append_printf(out, "%s{\"kind\":\"%s\",\"path\":", i ? "," : "",
                                   cause_names[c->kind]);
            json_string(out, c->path, strlen(c->path));
            for (int s = 0; s < 2; s++) {
                g_string_append_printf(out, ",\"process_%s\":", s ? "b" : "a");
                const struct qdb_process *p = c->proc[s] ? qdb_process(d.s[s].q, c->proc[s])
                                                         : NULL;
                if (p)
                    query_json_process(out, p);
                else
                    g_string_append(out, "null");
            }
            g_string_append(out, ",\"detail\":");
            json_string(out, c->detail, strlen(c->detail));
            g_string_append_printf(out, ",\"more_processes\":%u", c->more_processes);
            g_string_append(out, ",\"products\":[");
            for (guint k2 = 0; k2 < c->products->len; k2++) {
                g_string_append(out, k2 ? "," : "");
                json_string(out, c->products->pdata[k2], strlen(c->products->pdata[k2]));
            }
            g_string_append(out, "],\"chains\":[");
            for (guint k2 = 0; k2 < c->products->len; k2++) {
                GPtrArray *hops = chain_of(&d, g_hash_table_lookup(product_pair,
                                                                   c->products->pdata[k2]), i);
                g_string_append(out, k2 ? ",[" : "[");
                for (guint h = 0; h < hops->len; h++) {
                    g_string_append(out, h ? "," : "");
                    json_string(out, hops->pdata[h], strlen(hops->pdata[h]));
                }
                g_string_append_c(out, ']');
                g_ptr_array_free(hops, TRUE);
            }
            g_string_append(out, "]}");
        }
        g_string_append(out, "]}\n");
    } else {
        g_string_append(out, "A: ");
        text_escape(out, d.s[0].root, strlen(d.s[0].root));
        g_string_append(out, "\nB: ");
        text_escape(out, d.s[1].root, strlen(d.s[1].root));
        g_string_append_printf(out, "\nproducts: %u identical, %u differ, %u only in A, %u only "
                                    "in B\n", identical, differ->len, only_a->len, only_b->len);
        for (guint i = 0; i < d.causes->len; i++) {
            const struct cause *c = d.causes->pdata[i];
            g_string_append_printf(out, "\nroot cause %u: %s: ", i + 1, cause_names[c->kind]);
            text_path(out, &d, c->path);
            g_string_append(out, "\n    ");
            text_escape(out, c->detail, strlen(c->detail));
            g_string_append_c(out, '\n');
            if (c->proc[0] || c->proc[1]) {
                text_process(out, &d.s[0], c->proc[0]);
                text_process(out, &d.s[1], c->proc[1]);
                if (c->more_processes)
                    g_string_append_printf(out, "    (and %u other process%s the same way)\n",
                                           c->more_processes,
                                           c->more_processes == 1 ? "" : "es");
            }
            g_string_append_printf(out, "    reaches %u product%s:\n", c->products->len,
                                   c->products->len == 1 ? "" : "s");
            for (guint k2 = 0; k2 < c->products->len; k2++) {
                g_string_append(out, "      ");
                text_path(out, &d, c->products->pdata[k2]);
                GPtrArray *hops = chain_of(&d, g_hash_table_lookup(product_pair,
                                                                   c->products->pdata[k2]), i);
                for (guint h = 0; h < hops->len; h++) {
                    g_string_append(out, h ? " <- " : "  <- ");
                    text_path(out, &d, hops->pdata[h]);
                }
                g_ptr_array_free(hops, TRUE);
                g_string_append_c(out, '\n');
            }
        }
        const char *titles[] = {"only in A", "only in B"};
        GPtrArray *lists[] = {only_a, only_b};
        for (int l = 0; l < 2; l++) {
            if (!lists[l]->len)
                continue;
            g_string_append_printf(out, "\n%s:\n", titles[l]);
            for (guint i = 0; i < lists[l]->len; i++) {
                g_string_append(out, "  ");
                text_path(out, &d, lists[l]->pdata[i]);
                g_string_append_c(out, '\n');
            }
        }
        for (guint i = 0; i < d.not_compared->len; i++)
            g_string_append_printf(out, "\nnot compared: %s\n",
                                   (const char *)d.not_compared->pdata[i]);
    }
    bool failed = qdb_failed(d.s[0].q) ? query_failed(d.s[0].q) : query_failed(d.s[1].q);
    if (failed) {
        status = 2;
    } else {
        if (unrelated)
            warn_unrelated(&d);
        status = query_emit(NULL, out) ? 2
                 : (differ->len || only_a->len || only_b->len) ? 1
                                                               : 0;
    }
    g_string_free(out, TRUE);
    for (guint i = 0; i < d.causes->len; i++) {
        struct cause *c = d.causes->pdata[i];
        g_free(c->path);
        g_free(c->detail);
        g_ptr_array_free(c->products, TRUE);
        g_free(c);
    }
    g_ptr_array_free(differ, TRUE);
    g_ptr_array_free(only_a, TRUE);
    g_ptr_array_free(only_b, TRUE);
    g_hash_table_destroy(product_pair);
    g_hash_table_destroy(pa);
    g_hash_table_destroy(pb);
out:
    for (int i = 0; i < 2; i++) {
        if (d.s[i].p)
            prov_free(d.s[i].p);
        if (d.s[i].q)
            qdb_close(d.s[i].q);
    }
    g_ptr_array_free(d.maps, TRUE);
    g_hash_table_destroy(d.tmp_pair);
    g_hash_table_destroy(d.pair_path); /* (its keys are the memo's) */
    g_hash_table_destroy(d.via);
    g_hash_table_destroy(d.memo);
    g_ptr_array_free(d.causes, TRUE);
    g_hash_table_destroy(d.cause_of);
    g_ptr_array_free(d.not_compared, TRUE);
    return status;
}
