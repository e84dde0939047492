/* copyscan — embedded copies among the source files a build read: the engine of `buildtrail
 * copies` (contract in copyscan.h; docs/architecture.md, "Embedded copies"). */
#include "copyscan.h"
#include "filekind.h"
#include "winnow.h"

#include <stdio.h>
#include <string.h>

const char *copyscan_kind_name(enum copyscan_kind k)
{
    return k == COPYSCAN_SAME ? "same" : "similar";
}

const char *copyscan_where_name(enum copyscan_where w)
{
    return w == COPYSCAN_BUILD ? "build" : "known";
}

/* Similarity needs this many fingerprints (a few hundred bytes of code): below it, any two
 * small files of one project share most of what little they have. */
#define MIN_FINGERPRINTS 64

/* Headers are compared with headers, sources with sources: a header shares its declarations
 * with its own implementation. */
static bool header_name(const char *path)
{
    return filekind_of(path) == FILEKIND_HEADER;
}

/* Under `dir` (a directory path without trailing slash)? */
static bool under(const char *path, const char *dir)
{
    size_t l = strlen(dir);
    return !strncmp(path, dir, l) && path[l] == '/';
}

/* A quilt backup (`.pc/PATCH/FILE`: what dpkg-source saved before applying a patch, read by
 * dh_autoreconf's md5sum, never compiled): not a copy of anything the build has. */
static bool quilt_backup(const char *path)
{
    return strstr(path, "/.pc/") != NULL;
}

/* A test program: in a directory named test, tests, testsuite, t or check, or with "test" in
 * its name (mtest3.c, foo_test.c, test-bar.c). */
static bool test_program(const char *path)
{
    static const char *const dirs[] = {"/test/", "/tests/", "/testsuite/", "/t/", "/check/",
                                       NULL};
    for (const char *const *d = dirs; *d; d++)
        if (strstr(path, *d))
            return true;
    const char *base = strrchr(path, '/');
    g_autofree char *lower = g_ascii_strdown(base ? base + 1 : path, -1);
    return strstr(lower, "test") != NULL;
}

/* Is a pair of the build's files worth reporting?  Not two files both outside the build's
 * directory `top` (system headers alike: GCC's pconfigintrin.h ~ sgxintrin.h); and, when only
 * similar, not two files of the build's own tree in one directory (a project's variants of
 * one file) nor two of its test programs (written from one another). */
static bool pair_reported(const char *a, const char *b, const char *top, bool same)
{
    bool root = !strcmp(top, "/"); /* a build run from / : everything is its tree */
    bool in_a = root || under(a, top), in_b = root || under(b, top);
    if (!in_a && !in_b)
        return false;
    if (same || !in_a || !in_b)
        return true;
    g_autofree char *da = g_path_get_dirname(a), *db = g_path_get_dirname(b);
    if (!strcmp(da, db))
        return false;
    size_t tl = root ? 0 : strlen(top);
    return !(test_program(a + tl) && test_program(b + tl));
}

struct candidate {
    const struct prov_version *v;
    GArray *fp;              /* NULL when its content could not be read as built */
};

static int cmp_match(gconstpointer a, gconstpointer b)
{
    const struct copyscan_match *x = a, *y = b;
    if (x->score != y->score)
        return x->score < y->score ? 1 : -1;
    return strcmp(x->name, y->name);
}

/* ---- similar files without comparing every pair ------------------------------------------
 * An inverted index: fingerprint -> the candidates that have it.  A file A can be similar to
 * B (B has at least t of A's fingerprints) only if B has one of A's |A| - floor(t|A|) + 1
 * rarest fingerprints (prefix filtering): so only those are looked up, and the common ones
 * (licence headers, include guards, shared by every file) cost nothing.  The pairs found are
 * then compared exactly, as before. */
struct fp_index {
    GHashTable *postings; /* guint32 -> GArray of guint (candidate indices) */
};

static void fp_index_init(struct fp_index *x)
{
    x->postings = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
                                        (GDestroyNotify)g_array_unref);
}

static void fp_index_clear(struct fp_index *x)
{
    g_hash_table_destroy(x->postings);
}

/* Fingerprints are keys as pointers: 0 is kept apart from "absent" by adding one (a guint32
 * plus one still fits in a pointer on the 64-bit systems we build for, and on 32-bit ones
 * the 2^32-1 fingerprint shares a list with 0: still only a candidate, compared exactly). */
static gpointer fp_key(guint32 h)
{
    return GSIZE_TO_POINTER((gsize)h + 1);
}

static void fp_index_add(struct fp_index *x, guint cand, const GArray *fp)
{
    for (guint i = 0; i < fp->len; i++) {
        gpointer k = fp_key(g_array_index(fp, guint32, i));
        GArray *list = g_hash_table_lookup(x->postings, k);
        if (!list) {
            list = g_array_new(FALSE, FALSE, sizeof(guint));
            g_hash_table_insert(x->postings, k, list);
        }
        g_array_append_val(list, cand);
    }
}

struct fp_rank {
    guint32 h;
    guint df; /* how many candidates have it */
};

static gint by_rarity(gconstpointer a, gconstpointer b)
{
    const struct fp_rank *x = a, *y = b;
    if (x->df != y->df)
        return x->df < y->df ? -1 : 1;
    return (x->h > y->h) - (x->h < y->h);
}

/* The candidates that may have at least `threshold` of `fp` (guint indices, each once). */
static GArray *similar_candidates(struct fp_index *x, const GArray *fp, double threshold)
{
    GArray *rank = g_array_sized_new(FALSE, FALSE, sizeof(struct fp_rank), fp->len);
    for (guint i = 0; i < fp->len; i++) {
        guint32 h = g_array_index(fp, guint32, i);
        GArray *list = g_hash_table_lookup(x->postings, fp_key(h));
        struct fp_rank r = {h, list ? list->len : 0};
        g_array_append_val(rank, r);
    }
    g_array_sort(rank, by_rarity);
    guint need = (guint)(threshold * fp->len); /* floor: never more than is needed */
    guint prefix = need ? fp->len - need + 1 : fp->len;
    GArray *out = g_array_new(FALSE, FALSE, sizeof(guint));
    GHashTable *seen = g_hash_table_new(g_direct_hash, g_direct_equal);
    for (guint i = 0; i < prefix && i < rank->len; i++) {
        GArray *list = g_hash_table_lookup(x->postings,
                                           fp_key(g_array_index(rank, struct fp_rank, i).h));
        for (guint k = 0; list && k < list->len; k++) {
            guint c = g_array_index(list, guint, k);
            if (g_hash_table_add(seen, GUINT_TO_POINTER(c + 1)))
                g_array_append_val(out, c);
        }
    }
    g_hash_table_destroy(seen);
    g_array_unref(rank);
    return out;
}

/* The build's products (prov_is_product) a version went into. */
static GPtrArray *shipped_in(struct prov *p, int64_t vid)
{
    GArray *starts = g_array_new(FALSE, FALSE, sizeof(int64_t));
    g_array_append_val(starts, vid);
    static const struct prov_walk_opts walk = {.scripts = false, .code_only = true};
    GArray *outs = prov_outputs(p, starts, &walk);
    GPtrArray *paths = g_ptr_array_new();
    for (guint i = 0; i < outs->len; i++) {
        const struct prov_node *n = &g_array_index(outs, struct prov_node, i);
        if (prov_is_product(p, n->v))
            g_ptr_array_add(paths, (gpointer)n->v->path);
    }
    g_array_unref(outs);
    g_array_unref(starts);
    return paths;
}

static gint by_str(gconstpointer a, gconstpointer b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* When the build made Debian packages (.deb, .udeb products): version id -> the packages
 * whose code closure holds it (GPtrArray of paths), walked back from each package once (the
 * input direction follows dpkg-deb through the tar child it pipes through); NULL otherwise. */
static GHashTable *deb_contents(struct prov *p)
{
    GHashTable *in = NULL;
    GPtrArray *products = prov_products(p);
    static const struct prov_walk_opts walk = {.scripts = false, .stop_at_shlibs = true,
                                               .code_only = true};
    for (guint i = 0; i < products->len; i++) {
        const struct prov_version *deb = products->pdata[i];
        if (!g_str_has_suffix(deb->path, ".deb") && !g_str_has_suffix(deb->path, ".udeb"))
            continue;
        if (!in)
            in = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL,
                                       (GDestroyNotify)g_ptr_array_unref);
        GArray *nodes = prov_inputs(p, deb->id, &walk);
        for (guint k = 0; k < nodes->len; k++) {
            const struct prov_node *n = &g_array_index(nodes, struct prov_node, k);
            GPtrArray *debs = g_hash_table_lookup(in, &n->v->id);
            if (!debs) {
                debs = g_ptr_array_new();
                g_hash_table_insert(in, (gpointer)&n->v->id, debs);
            }
            g_ptr_array_add(debs, (gpointer)deb->path);
        }
        g_array_unref(nodes);
    }
    g_ptr_array_free(products, TRUE);
    return in;
}


/* What one scan needs while it runs. */
struct scan_ctx {
    struct prov *p;
    const char *top;
    const GPtrArray *known;
    double threshold;
    GArray *cands;         /* struct candidate */
    GHashTable *by_sha;    /* sha256 -> GArray of guint (candidate indices) */
    struct fp_index fpx;
    GHashTable *debs;      /* deb_contents(), or NULL */
    GHashTable *dir_total; /* directory -> its candidates' fingerprints */
    GHashTable *dir_shared; /* "dir\nknown dir" -> fingerprints they share */
};

/* The candidates: source files the build read and did not make, with their fingerprints. */
static GArray *candidates(struct prov *p)
{
    GArray *ids = prov_versions_used_as(p, PROV_USE_OPENED, true);
    GArray *cands = g_array_new(FALSE, TRUE, sizeof(struct candidate));
    for (guint i = 0; i < ids->len; i++) {
        const struct prov_version *v = prov_version(p, g_array_index(ids, int64_t, i));
        if (!v || !filekind_is_code(v->path) || !v->sha256[0] || quilt_backup(v->path))
            continue;
        struct candidate cd = {v, NULL};
        gsize len = 0;
        const char *problem;
        g_autofree char *data = prov_read_version(v, &len, &problem);
        if (data)
            cd.fp = winnow_fingerprints(data, len);
        g_array_append_val(cands, cd);
    }
    g_array_unref(ids);
    return cands;
}

/* The candidates by content, and by fingerprint: each is compared only with those that can
 * match it (a pass over every pair was quadratic in the build's sources). */
static void index_candidates(struct scan_ctx *x)
{
    x->by_sha = g_hash_table_new_full(g_str_hash, g_str_equal, NULL,
                                      (GDestroyNotify)g_array_unref);
    fp_index_init(&x->fpx);
    for (guint i = 0; i < x->cands->len; i++) {
        const struct candidate *cd = &g_array_index(x->cands, struct candidate, i);
        GArray *same = g_hash_table_lookup(x->by_sha, cd->v->sha256);
        if (!same) {
            same = g_array_new(FALSE, FALSE, sizeof(guint));
            g_hash_table_insert(x->by_sha, (gpointer)cd->v->sha256, same);
        }
        g_array_append_val(same, i);
        if (cd->fp)
            fp_index_add(&x->fpx, i, cd->fp);
    }
}

static void add_match(GArray *matches, enum copyscan_kind kind, enum copyscan_where where,
                      const char *name, double score)
{
    struct copyscan_match m = {kind, where, g_strdup(name), score};
    g_array_append_val(matches, m);
}

/* The build's other files with candidate i's content, and those similar to it. */
static void build_matches(struct scan_ctx *x, guint i, GArray *matches)
{
    const struct candidate *cd = &g_array_index(x->cands, struct candidate, i);
    GArray *twins = g_hash_table_lookup(x->by_sha, cd->v->sha256);
    for (guint j = 0; j < twins->len; j++) {
        const struct candidate *o2 = &g_array_index(x->cands, struct candidate,
                                                    g_array_index(twins, guint, j));
        if (strcmp(o2->v->path, cd->v->path) &&
            pair_reported(cd->v->path, o2->v->path, x->top, true))
            add_match(matches, COPYSCAN_SAME, COPYSCAN_BUILD, o2->v->path, 1.0);
    }
    if (!cd->fp || cd->fp->len < MIN_FINGERPRINTS)
        return;
    GArray *near = similar_candidates(&x->fpx, cd->fp, x->threshold);
    for (guint j = 0; j < near->len; j++) {
        guint k = g_array_index(near, guint, j);
        const struct candidate *o2 = &g_array_index(x->cands, struct candidate, k);
        if (k == i || !strcmp(o2->v->path, cd->v->path) ||
            !strcmp(o2->v->sha256, cd->v->sha256) ||
            header_name(cd->v->path) != header_name(o2->v->path) ||
            !pair_reported(cd->v->path, o2->v->path, x->top, false))
            continue;
        double s = winnow_containment(cd->fp, o2->fp);
        if (s >= x->threshold)
            add_match(matches, COPYSCAN_SIMILAR, COPYSCAN_BUILD, o2->v->path, s);
    }
    g_array_unref(near);
}

/* The known index's files with candidate `cd`'s content or similar to it; each known
 * directory's share of cd's directory counted for the directory scores. */
static void known_matches(struct scan_ctx *x, const struct candidate *cd, GArray *matches)
{
    g_autofree char *dir = g_path_get_dirname(cd->v->path);
    if (cd->fp) {
        guint *t = g_hash_table_lookup(x->dir_total, dir);
        g_hash_table_insert(x->dir_total, g_strdup(dir),
                            GUINT_TO_POINTER(GPOINTER_TO_UINT(t) + cd->fp->len));
    }
    for (guint k = 0; k < x->known->len; k++) {
        const struct copyindex_entry *e = x->known->pdata[k];
        double s = 0;
        if (!strcmp(e->sha256, cd->v->sha256))
            s = 1.0;
        else if (cd->fp && e->fp && cd->fp->len >= MIN_FINGERPRINTS &&
                 header_name(cd->v->path) == header_name(e->name))
            s = winnow_containment(cd->fp, e->fp);
        if (s <= 0)
            continue;
        if (cd->fp && e->fp) {
            /* for the directory score: the known file's directory */
            g_autofree char *kdir = g_path_get_dirname(e->name);
            g_autofree char *key = g_strdup_printf("%s\n%s", dir, kdir);
            guint shared = (guint)(s * cd->fp->len + 0.5);
            guint *old = g_hash_table_lookup(x->dir_shared, key);
            g_hash_table_insert(x->dir_shared, g_strdup(key),
                                GUINT_TO_POINTER(GPOINTER_TO_UINT(old) + shared));
        }
        if (s >= x->threshold || s == 1.0) {
            bool same = !strcmp(e->sha256, cd->v->sha256);
            add_match(matches, same ? COPYSCAN_SAME : COPYSCAN_SIMILAR, COPYSCAN_KNOWN, e->name,
                      s);
        }
    }
}

static void match_array_free(GArray *matches)
{
    for (guint k = 0; k < matches->len; k++)
        g_free(g_array_index(matches, struct copyscan_match, k).name);
    g_array_free(matches, TRUE);
}

static void file_free(gpointer data)
{
    struct copyscan_file *f = data;
    match_array_free(f->matches);
    g_ptr_array_free(f->shipped_in, TRUE);
    g_free(f);
}

/* Candidate i with its copies, or NULL when it has none. */
static struct copyscan_file *file_copies(struct scan_ctx *x, guint i)
{
    const struct candidate *cd = &g_array_index(x->cands, struct candidate, i);
    GArray *matches = g_array_new(FALSE, TRUE, sizeof(struct copyscan_match));
    build_matches(x, i, matches);
    known_matches(x, cd, matches);
    if (!matches->len) {
        g_array_free(matches, TRUE);
        return NULL;
    }
    g_array_sort(matches, cmp_match);
    struct copyscan_file *f = g_new0(struct copyscan_file, 1);
    f->v = cd->v;
    f->matches = matches;
    if (x->debs) {
        GPtrArray *in = g_hash_table_lookup(x->debs, &cd->v->id);
        f->shipped_in = in ? g_ptr_array_copy(in, NULL, NULL) : g_ptr_array_new();
        g_ptr_array_set_free_func(f->shipped_in, NULL);
        g_ptr_array_sort(f->shipped_in, by_str);
    } else {
        f->shipped_in = shipped_in(x->p, cd->v->id);
    }
    return f;
}

static void dir_free(gpointer data)
{
    struct copyscan_dir *d = data;
    g_free(d->dir);
    g_free(d->known);
    g_free(d);
}

/* Directories: the share of a directory's fingerprints found in one known directory, at
 * least the threshold. */
static GPtrArray *directories(struct scan_ctx *x)
{
    GPtrArray *lines = g_ptr_array_new_with_free_func(g_free);
    GHashTableIter it;
    gpointer key, value;
    g_hash_table_iter_init(&it, x->dir_shared);
    while (g_hash_table_iter_next(&it, &key, &value)) {
        const char *k = key;
        const char *nl = strchr(k, '\n');
        g_autofree char *dir = g_strndup(k, (size_t)(nl - k));
        guint total = GPOINTER_TO_UINT(g_hash_table_lookup(x->dir_total, dir));
        double s = total ? (double)GPOINTER_TO_UINT(value) / total : 0;
        if (s >= x->threshold)
            g_ptr_array_add(lines, g_strdup_printf("%s\n%s\n%.3f", dir, nl + 1, s));
    }
    g_ptr_array_sort(lines, by_str);
    GPtrArray *dirs = g_ptr_array_new_with_free_func(dir_free);
    for (guint i = 0; i < lines->len; i++) {
        g_auto(GStrv) f = g_strsplit(lines->pdata[i], "\n", 3);
        struct copyscan_dir *d = g_new0(struct copyscan_dir, 1);
        d->dir = g_strdup(f[0]);
        d->known = g_strdup(f[1]);
        d->score = g_ascii_strtod(f[2], NULL);
        g_ptr_array_add(dirs, d);
    }
    g_ptr_array_free(lines, TRUE);
    return dirs;
}

struct copyscan *copyscan_run(struct prov *p, const char *top, const GPtrArray *known,
                              double threshold)
{
    struct scan_ctx x = {.p = p, .top = top, .known = known, .threshold = threshold};
    x.cands = candidates(p);
    prov_load(p); /* a walk forward per file reported (shipped_in) */
    x.debs = deb_contents(p); /* NULL: the build made no Debian package */
    index_candidates(&x);
    x.dir_total = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    x.dir_shared = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    struct copyscan *m = g_new0(struct copyscan, 1);
    m->debian = x.debs != NULL;
    m->files = g_ptr_array_new_with_free_func(file_free);
    for (guint i = 0; i < x.cands->len; i++) {
        struct copyscan_file *f = file_copies(&x, i);
        if (f)
            g_ptr_array_add(m->files, f);
    }
    m->dirs = directories(&x);
    g_hash_table_destroy(x.dir_total);
    g_hash_table_destroy(x.dir_shared);
    for (guint i = 0; i < x.cands->len; i++) {
        struct candidate *cd = &g_array_index(x.cands, struct candidate, i);
        if (cd->fp)
            g_array_free(cd->fp, TRUE);
    }
    g_array_free(x.cands, TRUE);
    g_hash_table_destroy(x.by_sha);
    fp_index_clear(&x.fpx);
    if (x.debs)
        g_hash_table_destroy(x.debs);
    return m;
}

void copyscan_free(struct copyscan *m)
{
    if (!m)
        return;
    g_ptr_array_free(m->files, TRUE);
    g_ptr_array_free(m->dirs, TRUE);
    g_free(m);
}
