/* copies: embedded copies of code among what the build compiled, and what they shipped in.
 * The engine is query/lib/copyscan.c; this file writes --index, parses the options and
 * renders copyscan's model. */
#include "driver.h"
#include "outfile.h"
#include "copyscan.h"
#include "filekind.h"
#include "jsonw.h"
#include "query.h"
#include "textout.h"
#include "winnow.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- --index DIR ------------------------------------------------------------------------- */

/* g_ptr_array_sort passes the slots: a comparison of strings must look into them. */
static gint by_name(gconstpointer a, gconstpointer b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

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
    g_ptr_array_sort(names, by_name);
    for (guint i = 0; i < names->len; i++) {
        const char *nm = names->pdata[i];
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


static void render_json(GString *out, struct qdb *q, const struct copyscan *m)
{
    struct jsonw w;
    query_jsonw_begin(&w, out, q);
    jsonw_key(&w, "files");
    jsonw_array_begin(&w);
    for (guint i = 0; i < m->files->len; i++) {
        const struct copyscan_file *f = m->files->pdata[i];
        jsonw_object_begin(&w);
        jsonw_kv_string(&w, "path", f->v->path);
        jsonw_kv_string(&w, "sha256", f->v->sha256);
        jsonw_key(&w, "matches");
        jsonw_array_begin(&w);
        for (guint k = 0; k < f->matches->len; k++) {
            const struct copyscan_match *c = &g_array_index(f->matches, struct copyscan_match, k);
            char score[G_ASCII_DTOSTR_BUF_SIZE];
            g_snprintf(score, sizeof score, "%.3f", c->score);
            jsonw_object_begin(&w);
            jsonw_kv_string(&w, "kind", copyscan_kind_name(c->kind));
            jsonw_kv_string(&w, "in", copyscan_where_name(c->where));
            jsonw_key(&w, "score");
            jsonw_raw(&w, score);
            jsonw_kv_string(&w, "name", c->name);
            jsonw_object_end(&w);
        }
        jsonw_array_end(&w);
        jsonw_key(&w, "shipped_in");
        jsonw_array_begin(&w);
        for (guint k = 0; k < f->shipped_in->len; k++)
            jsonw_string(&w, f->shipped_in->pdata[k]);
        jsonw_array_end(&w);
        jsonw_object_end(&w);
    }
    jsonw_array_end(&w);
    jsonw_key(&w, "directories");
    jsonw_array_begin(&w);
    for (guint i = 0; i < m->dirs->len; i++) {
        const struct copyscan_dir *d = m->dirs->pdata[i];
        char score[G_ASCII_DTOSTR_BUF_SIZE];
        g_snprintf(score, sizeof score, "%.3f", d->score);
        jsonw_object_begin(&w);
        jsonw_kv_string(&w, "directory", d->dir);
        jsonw_kv_string(&w, "known", d->known);
        jsonw_key(&w, "score");
        jsonw_raw(&w, score);
        jsonw_object_end(&w);
    }
    jsonw_array_end(&w);
    jsonw_object_end(&w);
    g_string_append_c(out, '\n');
}

static void text_file(GString *out, const struct copyscan_file *f, bool debian)
{
    text_escape(out, f->v->path, strlen(f->v->path));
    g_string_append_c(out, '\n');
    for (guint k = 0; k < f->matches->len; k++) {
        const struct copyscan_match *m = &g_array_index(f->matches, struct copyscan_match, k);
        if (m->kind == COPYSCAN_SAME)
            g_string_append_printf(out, "  same content as   (%s) ",
                                   copyscan_where_name(m->where));
        else
            g_string_append_printf(out, "  similar (%3.0f%%) to (%s) ", m->score * 100,
                                   copyscan_where_name(m->where));
        text_escape(out, m->name, strlen(m->name));
        g_string_append_c(out, '\n');
    }
    if (!f->shipped_in->len)
        g_string_append(out, debian ? "  shipped in no package\n"
                                    : "  shipped in nothing (vendored but unused)\n");
    for (guint k = 0; k < f->shipped_in->len; k++) {
        const char *path = f->shipped_in->pdata[k];
        g_string_append(out, k ? "              " : "  shipped in   ");
        text_escape(out, path, strlen(path));
        g_string_append_c(out, '\n');
    }
}

static void render_text(GString *out, const struct copyscan *m)
{
    for (guint i = 0; i < m->files->len; i++)
        text_file(out, m->files->pdata[i], m->debian);
    if (m->dirs->len)
        g_string_append(out, "directories:\n");
    else if (!m->files->len)
        g_string_append(out, "no copies found\n");
    for (guint i = 0; i < m->dirs->len; i++) {
        const struct copyscan_dir *d = m->dirs->pdata[i];
        g_string_append(out, "  ");
        text_escape(out, d->dir, strlen(d->dir));
        g_string_append_printf(out, "  %3.0f%% like (known) ", d->score * 100);
        text_escape(out, d->known, strlen(d->known));
        g_string_append_c(out, '\n');
    }
}

/* copies --index DIR [-o INDEX] */
static int write_index(const struct copies_cli *cc)
{
    struct stat st;
    if (stat(cc->index_root, &st) < 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "buildtrail copies: --index %s: not a directory; give the tree of "
                        "known code to index\n", cc->index_root);
        return 2;
    }
    GString *out = g_string_new(NULL);
    unsigned n = 0;
    index_dir(out, cc->index_root, "", &n);
    int status = 0;
    if (cc->output) {
        int e = outfile_write(cc->output, cc->mode, out->str, out->len);
        if (e < 0) {
            fprintf(stderr, "buildtrail copies: cannot write %s: %s; give a writable path "
                            "to -o\n", cc->output, outfile_strerror(e));
            status = 1;
        }
    } else if (query_emit(NULL, out)) {
        status = 1;
    }
    g_string_free(out, TRUE);
    return status;
}

int query_copies_main(int argc, char **argv)
{
    struct query_opts o = {0};
    struct copies_cli cc = {.threshold = 0.6, .mode = OUTFILE_MODE_UMASK};
    int r = query_parse(&copies_command, argc, argv, &o, &cc);
    if (r >= 0)
        return r;
    if (cc.index_root)
        return write_index(&cc);
    GPtrArray *known = g_ptr_array_new_with_free_func(copyindex_entry_free);
    if (cc.known_path) {
        g_autofree char *text = NULL;
        gsize len = 0;
        if (!g_file_get_contents(cc.known_path, &text, &len, NULL)) {
            fprintf(stderr, "buildtrail copies: cannot read %s; make an index with 'buildtrail "
                            "copies --index DIR -o FILE'\n", cc.known_path);
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
    g_autofree char *top = query_run_cwd(q);
    struct copyscan *m = copyscan_run(p, top, known, cc.threshold);
    GString *out = g_string_new(NULL);
    if (o.json)
        render_json(out, q, m);
    else
        render_text(out, m);
    int status = query_emit(q, out) ? 1 : 0;
    g_string_free(out, TRUE);
    copyscan_free(m);
    g_ptr_array_free(known, TRUE);
    prov_free(p);
    qdb_close(q);
    return status;
}
