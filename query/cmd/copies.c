/* copies: embedded copies of code among what the build compiled, and what they shipped in. */
#include "driver.h"
#include "outfile.h"
#include "filekind.h"
#include "query.h"
#include "textout.h"
#include "queries.h"
#include "tracedb.h"
#include "winnow.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

/* ---- --index DIR ------------------------------------------------------------------------- */

static void index_dir(GString *out, const char *root, const char *rel, unsigned *n)
{
    g_autofree char *dir = rel[0] ? g_build_filename(root, rel, NULL) : g_strdup(root);
    GDir *d = g_dir_open(dir, 0, NULL);
    if (!d)
        return;
    GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
    const char *name;
    while ((name = g_dir_read_name(d)))
        g_ptr_array_add(names, g_strdup(name));
    g_dir_close(d);
    g_ptr_array_sort(names, (GCompareFunc)g_strcmp0);
    for (guint i = 0; i < names->len; i++) {
        const char *nm = *(char **)&names->pdata[i];
        g_autofree char *r = rel[0] ? g_build_filename(rel, nm, NULL) : g_strdup(nm);
        g_autofree char *full = g_build_filename(root, r, NULL);
        struct stat st;
        if (lstat(full, &st) < 0 || strchr(r, '\n'))
            continue;
        if (S_ISDIR(st.st_mode)) {
            index_dir(out, root, r, n);
        } else if (S_ISREG(st.st_mode)) {
            g_autofree char *data = NULL;
            gsize len = 0;
            if (!g_file_get_contents(full, &data, &len, NULL))
                continue;
            g_autofree char *sha = g_compute_checksum_for_data(G_CHECKSUM_SHA256, (guchar *)data, len);
            g_autofree char *base = g_path_get_basename(root);
            g_autofree char *label = g_build_filename(base, r, NULL);
            GArray *fp = filekind_is_code(r) ? winnow_fingerprints(data, len) : NULL;
            copyindex_write(out, label, sha, fp);
            if (fp)
                g_array_free(fp, TRUE);
            (*n)++;
        }
    }
    g_ptr_array_free(names, TRUE);
}

/* ---- matching ---------------------------------------------------------------------------- */

struct candidate {
    const struct prov_version *v;
    GArray *fp;              /* NULL when its content could not be read as built */
};

struct match {
    const char *what;        /* "same" or "similar" */
    const char *where;       /* "build" or "known" */
    char *name;
    double score;
};

static int cmp_match(gconstpointer a, gconstpointer b)
{
    const struct match *x = a, *y = b;
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

struct copies_cli {
    const char *known_path, *index_root, *output;
    double threshold;
    mode_t mode; /* --output-mode, or OUTFILE_MODE_UMASK */
};

static int copies_option(void *ctx, int c, const char *arg)
{
    struct copies_cli *o = ctx;
    switch (c) {
    case 'K': o->known_path = arg; return 0;
    case 'I': o->index_root = arg; return 0;
    case 'o': o->output = arg; return 0;
    case 'P': return query_parse_mode("copies", arg, &o->mode) ? 0 : 2;
    case 'T': {
        char *end;
        double t = strtod(arg, &end);
        if (*end || t <= 0 || t > 100) {
            fprintf(stderr, "buildtrail copies: --threshold '%s' is not a percentage between 1 "
                            "and 100\n", arg);
            return 2;
        }
        o->threshold = t / 100;
        return 0;
    }
    }
    return 2;
}

static const struct option copies_options[] = {
    {"known", required_argument, NULL, 'K'},
    {"index", required_argument, NULL, 'I'},
    {"output", required_argument, NULL, 'o'},
    {"output-mode", required_argument, NULL, 'P'},
    {"threshold", required_argument, NULL, 'T'},
    {0}};

static const struct query_command copies_command = {
    .name = "copies",
    .operands = "",
    .about = "Embedded code copies among the source files the build compiled or included:\n"
             "files with the same content as another file the build read, or as a file of\n"
             "a known-copies index (--known), and files similar to one (an older or patched\n"
             "copy: the share of the file's winnowed fingerprints found in the other, at\n"
             "least --threshold percent, default 60).  Each is shown with the built files\n"
             "it went into (none: vendored but unused) or, when the build made Debian\n"
             "packages, the .deb and .udeb files it is in (not debian/files, a .changes;\n"
             "'shipped in no package' when none); then a score per directory.  Left out:\n"
             "quilt's backups (.pc/: saved by dpkg-source, never compiled); pairs of files\n"
             "both outside the build's directory (system headers alike); and, as only\n"
             "similar, two files of the build's tree in one directory (a project's variants\n"
             "of one file) or two of its test programs (in a test, tests, testsuite, t or\n"
             "check directory, or with 'test' in the name: written from one another).\n"
             "Matches in a --known index are reported wherever the file lies.\n"
             "'buildtrail copies --index DIR [-o INDEX]' writes an index of DIR's files\n"
             "(sha256sum lines, plus fingerprints of source files) to INDEX or stdout.\n",
    .options_help = "      --known INDEX     also compare with the files of INDEX\n"
                    "      --threshold PCT   how similar a file must be to count (default 60)\n"
                    "      --index DIR       write an index of DIR instead (no trace needed)\n"
                    "  -o, --output INDEX    with --index: write it to INDEX (as export -o does)\n"
                    "      --output-mode MODE  INDEX's permissions, in octal (default: 0666 less\n"
                    "                        the umask, or those of the INDEX it replaces; an\n"
                    "                        index holds nothing of a trace)\n",
    .options = copies_options,
    .shortopts = "o:",
    .option = copies_option,
};

int query_copies_main(int argc, char **argv)
{
    struct query_opts o = {0};
    struct copies_cli cc = {.threshold = 0.6, .mode = OUTFILE_MODE_UMASK};
    int r = query_parse(&copies_command, argc, argv, &o, &cc);
    if (r >= 0)
        return r;
    const char *known_path = cc.known_path, *index_root = cc.index_root, *output = cc.output;
    double threshold = cc.threshold;
    if (index_root) {
        GString *out = g_string_new(NULL);
        unsigned n = 0;
        struct stat st;
        if (stat(index_root, &st) < 0 || !S_ISDIR(st.st_mode)) {
            fprintf(stderr, "buildtrail copies: --index %s: not a directory; give the tree of "
                            "known code to index\n", index_root);
            g_string_free(out, TRUE);
            return 2;
        }
        index_dir(out, index_root, "", &n);
        int status = 0;
        if (output) {
            int e = outfile_write(output, cc.mode, out->str, out->len);
            if (e < 0) {
                fprintf(stderr, "buildtrail copies: cannot write %s: %s; give a writable path "
                                "to -o\n", output, outfile_strerror(e));
                status = 1;
            }
        } else if (query_emit(NULL, out)) {
            status = 1;
        }
        g_string_free(out, TRUE);
        return status;
    }
    GPtrArray *known = g_ptr_array_new_with_free_func(copyindex_entry_free);
    if (known_path) {
        g_autofree char *text = NULL;
        gsize len = 0;
        if (!g_file_get_contents(known_path, &text, &len, NULL)) {
            fprintf(stderr, "buildtrail copies: cannot read %s; make an index with 'buildtrail "
                            "copies --index DIR -o FILE'\n", known_path);
            g_ptr_array_free(known, TRUE);
            return 2;
        }
        copyindex_parse(text, len, known);
    }
    struct qdb *q = query_open("copies", o.db_path);
    struct prov *p = q ? query_open_prov("copies", q) : NULL;
    if (!p) {
        qdb_close(q);
        g_ptr_array_free(known, TRUE);
        return 1;
    }
    /* The candidates: source files the build read and did not make. */
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
    prov_load(p); /* a walk forward per file reported (shipped_in) */
    g_autofree char *top = query_run_cwd(q);
    GHashTable *debs = deb_contents(p); /* NULL: the build made no Debian package */
    /* The candidates by content, and by fingerprint: each is compared only with those that
     * can match it (a pass over every pair was quadratic in the build's sources). */
    GHashTable *by_sha = g_hash_table_new_full(g_str_hash, g_str_equal, NULL,
                                               (GDestroyNotify)g_array_unref);
    struct fp_index fpx;
    fp_index_init(&fpx);
    for (guint i = 0; i < cands->len; i++) {
        const struct candidate *cd = &g_array_index(cands, struct candidate, i);
        GArray *same = g_hash_table_lookup(by_sha, cd->v->sha256);
        if (!same) {
            same = g_array_new(FALSE, FALSE, sizeof(guint));
            g_hash_table_insert(by_sha, (gpointer)cd->v->sha256, same);
        }
        g_array_append_val(same, i);
        if (cd->fp)
            fp_index_add(&fpx, i, cd->fp);
    }
    GString *out = g_string_new(NULL);
    if (o.json) {
        query_json_begin(out, q, "files");
        g_string_append_c(out, '[');
    }
    bool first = true;
    unsigned reported = 0;
    /* Per directory: its files' fingerprints, and how many each known directory shares. */
    GHashTable *dir_total = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    GHashTable *dir_shared = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    for (guint i = 0; i < cands->len; i++) {
        const struct candidate *cd = &g_array_index(cands, struct candidate, i);
        GArray *matches = g_array_new(FALSE, TRUE, sizeof(struct match));
        GArray *twins = g_hash_table_lookup(by_sha, cd->v->sha256);
        for (guint j = 0; j < twins->len; j++) {
            const struct candidate *o2 = &g_array_index(cands, struct candidate,
                                                        g_array_index(twins, guint, j));
            if (strcmp(o2->v->path, cd->v->path) &&
                pair_reported(cd->v->path, o2->v->path, top, true)) {
                struct match m = {"same", "build", g_strdup(o2->v->path), 1.0};
                g_array_append_val(matches, m);
            }
        }
        if (cd->fp && cd->fp->len >= MIN_FINGERPRINTS) {
            GArray *near = similar_candidates(&fpx, cd->fp, threshold);
            for (guint j = 0; j < near->len; j++) {
                guint k = g_array_index(near, guint, j);
                const struct candidate *o2 = &g_array_index(cands, struct candidate, k);
                if (k == i || !strcmp(o2->v->path, cd->v->path) ||
                    !strcmp(o2->v->sha256, cd->v->sha256) ||
                    header_name(cd->v->path) != header_name(o2->v->path) ||
                    !pair_reported(cd->v->path, o2->v->path, top, false))
                    continue;
                double s = winnow_containment(cd->fp, o2->fp);
                if (s >= threshold) {
                    struct match m = {"similar", "build", g_strdup(o2->v->path), s};
                    g_array_append_val(matches, m);
                }
            }
            g_array_unref(near);
        }
        g_autofree char *dir = g_path_get_dirname(cd->v->path);
        if (cd->fp) {
            guint *t = g_hash_table_lookup(dir_total, dir);
            g_hash_table_insert(dir_total, g_strdup(dir),
                                GUINT_TO_POINTER(GPOINTER_TO_UINT(t) + cd->fp->len));
        }
        for (guint k = 0; k < known->len; k++) {
            const struct copyindex_entry *e = known->pdata[k];
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
                guint *old = g_hash_table_lookup(dir_shared, key);
                g_hash_table_insert(dir_shared, g_strdup(key),
                                    GUINT_TO_POINTER(GPOINTER_TO_UINT(old) + shared));
            }
            if (s >= threshold || s == 1.0) {
                bool same = !strcmp(e->sha256, cd->v->sha256);
                struct match m = {same ? "same" : "similar", "known", g_strdup(e->name), s};
                g_array_append_val(matches, m);
            }
        }
        if (!matches->len) {
            g_array_free(matches, TRUE);
            continue;
        }
        g_array_sort(matches, cmp_match);
        reported++;
        GPtrArray *into = NULL;
        if (debs) {
            GPtrArray *in = g_hash_table_lookup(debs, &cd->v->id);
            into = in ? g_ptr_array_copy(in, NULL, NULL) : g_ptr_array_new();
            g_ptr_array_sort(into, by_str);
        } else {
            into = shipped_in(p, cd->v->id);
        }
        if (o.json) {
            g_string_append(out, first ? "{\"path\":" : ",{\"path\":");
            json_string(out, cd->v->path, strlen(cd->v->path));
            g_string_append_printf(out, ",\"sha256\":\"%s\",\"matches\":[", cd->v->sha256);
            for (guint k = 0; k < matches->len; k++) {
                const struct match *m = &g_array_index(matches, struct match, k);
                g_string_append_printf(out, "%s{\"kind\":\"%s\",\"in\":\"%s\",\"score\":%.3f,\"name\":",
                                       k ? "," : "", m->what, m->where, m->score);
                json_string(out, m->name, strlen(m->name));
                g_string_append_c(out, '}');
            }
            g_string_append(out, "],\"shipped_in\":[");
            for (guint k = 0; k < into->len; k++) {
                if (k)
                    g_string_append_c(out, ',');
                json_string(out, into->pdata[k], strlen(into->pdata[k]));
            }
            g_string_append(out, "]}");
        } else {
            text_escape(out, cd->v->path, strlen(cd->v->path));
            g_string_append_c(out, '\n');
            for (guint k = 0; k < matches->len; k++) {
                const struct match *m = &g_array_index(matches, struct match, k);
                if (!strcmp(m->what, "same"))
                    g_string_append_printf(out, "  same content as   (%s) ", m->where);
                else
                    g_string_append_printf(out, "  similar (%3.0f%%) to (%s) ", m->score * 100,
                                           m->where);
                text_escape(out, m->name, strlen(m->name));
                g_string_append_c(out, '\n');
            }
            if (!into->len)
                g_string_append(out, debs ? "  shipped in no package\n"
                                          : "  shipped in nothing (vendored but unused)\n");
            for (guint k = 0; k < into->len; k++) {
                g_string_append(out, k ? "              " : "  shipped in   ");
                text_escape(out, into->pdata[k], strlen(into->pdata[k]));
                g_string_append_c(out, '\n');
            }
        }
        first = false;
        g_ptr_array_free(into, TRUE);
        for (guint k = 0; k < matches->len; k++)
            g_free(g_array_index(matches, struct match, k).name);
        g_array_free(matches, TRUE);
    }
    /* Directories: the share of a directory's fingerprints found in one known directory. */
    GPtrArray *dir_lines = g_ptr_array_new_with_free_func(g_free);
    GHashTableIter it;
    gpointer key, value;
    g_hash_table_iter_init(&it, dir_shared);
    while (g_hash_table_iter_next(&it, &key, &value)) {
        const char *k = key;
        const char *nl = strchr(k, '\n');
        g_autofree char *dir = g_strndup(k, (size_t)(nl - k));
        guint total = GPOINTER_TO_UINT(g_hash_table_lookup(dir_total, dir));
        double s = total ? (double)GPOINTER_TO_UINT(value) / total : 0;
        if (s >= threshold)
            g_ptr_array_add(dir_lines, g_strdup_printf("%s\n%s\n%.3f", dir, nl + 1, s));
    }
    g_ptr_array_sort(dir_lines, (GCompareFunc)g_strcmp0);
    if (o.json) {
        g_string_append(out, "],\"directories\":[");
    } else if (dir_lines->len) {
        g_string_append(out, "directories:\n");
    } else if (!reported) {
        g_string_append(out, "no copies found\n");
    }
    for (guint i = 0; i < dir_lines->len; i++) {
        g_auto(GStrv) f = g_strsplit(dir_lines->pdata[i], "\n", 3);
        double s = g_ascii_strtod(f[2], NULL);
        if (o.json) {
            g_string_append(out, i ? ",{\"directory\":" : "{\"directory\":");
            json_string(out, f[0], strlen(f[0]));
            g_string_append(out, ",\"known\":");
            json_string(out, f[1], strlen(f[1]));
            g_string_append_printf(out, ",\"score\":%.3f}", s);
        } else {
            g_string_append(out, "  ");
            text_escape(out, f[0], strlen(f[0]));
            g_string_append_printf(out, "  %3.0f%% like (known) ", s * 100);
            text_escape(out, f[1], strlen(f[1]));
            g_string_append_c(out, '\n');
        }
    }
    if (o.json)
        g_string_append(out, "]}\n");
    int status = query_emit(q, out) ? 1 : 0;
    g_string_free(out, TRUE);
    g_ptr_array_free(dir_lines, TRUE);
    g_hash_table_destroy(dir_total);
    g_hash_table_destroy(dir_shared);
    for (guint i = 0; i < cands->len; i++) {
        struct candidate *cd = &g_array_index(cands, struct candidate, i);
        if (cd->fp)
            g_array_free(cd->fp, TRUE);
    }
    g_array_free(cands, TRUE);
    g_hash_table_destroy(by_sha);
    fp_index_clear(&fpx);
    if (debs)
        g_hash_table_destroy(debs);
    g_ptr_array_free(known, TRUE);
    prov_free(p);
    qdb_close(q);
    return status;
}
