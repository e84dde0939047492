/* compile-commands: clang's JSON compilation database, as Bear writes it (docs/exports.md). */
#include "export.h"

#include "ccdb.h"
#include "jsonw.h"
#include "filekind.h"
#include "progkind.h"
#include "stmt.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* `id` and every process below it (forks and execs), breadth first. */
static GArray *subtree(struct export_ctx *x, int64_t id)
{
    GArray *all = g_array_new(FALSE, FALSE, sizeof(int64_t));
    g_array_append_val(all, id);
    for (guint i = 0; i < all->len; i++)
        prov_successors(x->p, g_array_index(all, int64_t, i), all);
    return all;
}

static bool has_source_ext(const char *w)
{
    return w[0] != '-' && filekind_cc_source(w);
}

static bool has_object_ext(const char *w)
{
    const char *dot = strrchr(w, '.');
    return dot && (!strcmp(dot, ".o") || !strcmp(dot, ".obj") || !strcmp(dot, ".lo"));
}

/* (path, kind, time, access id) of what image ?1 changed, in order */
TRACEDB_STATEMENT(sql_path_changes_of_process, 1, TRACEDB_SCHEMA_VERSION,
                  "SELECT f.path, a.kind, a.first_ns, a.id FROM accesses a JOIN files f ON "
                  "f.id = a.file_id WHERE a.process_id = ? AND a.result = 0 AND a.kind IN "
                  TRACEDB_KINDS_CHANGED " ORDER BY a.first_ns, a.id");
enum { CHANGE_PATH, CHANGE_KIND, CHANGE_TIME, CHANGE_ID };

/* One change a subtree made to a path. */
struct change {
    char *path;
    int64_t ns, id;
    bool gone;
};

static gint change_time_cmp(gconstpointer a, gconstpointer b)
{
    const struct change *x = a, *y = b;
    if (x->ns != y->ns)
        return x->ns < y->ns ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

/* a row if the build removed directory ?1 (a file id) */
TRACEDB_STATEMENT(sql_dir_removed, 1, TRACEDB_SCHEMA_VERSION,
                  "SELECT 1 FROM accesses WHERE file_id = ?1 AND kind IN " TRACEDB_KINDS_RMDIR
                  " AND result = 0 LIMIT 1");

/* Files written (and not removed again) by a process subtree: absolute paths, in the order
 * first changed.  The changes of every process are taken in time order, not process by
 * process (the driver removes its temporaries after its children wrote them). */
static GPtrArray *subtree_outputs(struct export_ctx *x, GArray *procs)
{
    GArray *changes = g_array_new(FALSE, FALSE, sizeof(struct change));
    sqlite3_stmt *st = NULL;
    bool ok = qdb_prepare(x->q, sql_path_changes_of_process, &st);
    for (guint i = 0; ok && i < procs->len; i++) {
        qdb_bind_int64(x->q, st, 1, g_array_index(procs, int64_t, i));
        while (qdb_row(x->q, st)) {
            int kind = sqlite3_column_int(st, CHANGE_KIND);
            const char *path = (const char *)sqlite3_column_text(st, CHANGE_PATH);
            if (!path)
                continue;
            struct change c = {g_strdup(path),
                               sqlite3_column_int64(st, CHANGE_TIME),
                               sqlite3_column_int64(st, CHANGE_ID),
                               kind == TRACEDB_UNLINK || kind == TRACEDB_RENAME_FROM};
            g_array_append_val(changes, c);
        }
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    g_array_sort(changes, change_time_cmp);
    GHashTable *state = g_hash_table_new(g_str_hash, g_str_equal); /* path -> 1 gone, 2 there */
    GPtrArray *order = g_ptr_array_new();
    for (guint i = 0; i < changes->len; i++) {
        const struct change *c = &g_array_index(changes, struct change, i);
        if (!g_hash_table_contains(state, c->path))
            g_ptr_array_add(order, c->path);
        g_hash_table_insert(state, c->path, GINT_TO_POINTER(c->gone ? 1 : 2));
    }
    GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
    for (guint i = 0; i < order->len; i++) {
        const char *path = order->pdata[i];
        if (GPOINTER_TO_INT(g_hash_table_lookup(state, path)) == 2)
            g_ptr_array_add(out, g_strdup(path));
    }
    g_ptr_array_free(order, TRUE);
    g_hash_table_destroy(state);
    for (guint i = 0; i < changes->len; i++)
        g_free(g_array_index(changes, struct change, i).path);
    g_array_unref(changes);
    return out;
}

/* A forked child still running its parent's program (same argv and executable), as a
 * compiler driver's children are between fork and exec. */
static bool is_fork_copy(struct export_ctx *x, const struct qdb_process *p)
{
    const struct qdb_process *parent = p->parent_id ? qdb_process(x->q, p->parent_id) : NULL;
    return !p->prev_image_id && parent && parent->argv && p->argv &&
           parent->argv_len == p->argv_len && !memcmp(parent->argv, p->argv, p->argv_len) &&
           !g_strcmp0(parent->exe, p->exe);
}

static GPtrArray *split_argv(const struct qdb_process *p)
{
    GPtrArray *words = g_ptr_array_new();
    for (size_t i = 0; p->argv && i < p->argv_len;) {
        const char *w = p->argv + i;
        size_t l = strnlen(w, p->argv_len - i);
        g_ptr_array_add(words, (gpointer)w);
        i += l + 1;
    }
    return words;
}

/* The output file argv names, as the compiler driver reads it: the last -o FILE or -oFILE
 * (clang's -objc... options are not one), NULL when there is none or it is "-" (stdout). */
static const char *argv_output(GPtrArray *words)
{
    const char *out = NULL;
    for (guint k = 1; k < words->len; k++) {
        const char *w = words->pdata[k];
        if (!strcmp(w, "-o") && k + 1 < words->len)
            out = words->pdata[++k];
        else if (g_str_has_prefix(w, "-o") && w[2] && !g_str_has_prefix(w, "-objc"))
            out = w + 2;
        else if (!strcmp(w, "-x") || !strcmp(w, "-MF") || !strcmp(w, "-MT") ||
                 !strcmp(w, "-MQ") || !strcmp(w, "-include") || !strcmp(w, "-I") ||
                 !strcmp(w, "-D") || !strcmp(w, "-U"))
            k++; /* its argument is not an -o */
    }
    return out && strcmp(out, "-") ? out : NULL;
}

/* What the compiler writes for `src` when argv names no output: SRC's stem with `ext` (".o"
 * for -c, ".s" for -S) in the current directory. */
static char *default_output(const char *cwd, const char *src, const char *ext)
{
    g_autofree char *base = g_path_get_basename(src);
    char *dot = strrchr(base, '.');
    if (dot && dot != base)
        *dot = '\0';
    g_autofree char *name = g_strconcat(base, ext, NULL);
    return qdb_absolute_path_in(cwd, name);
}

static bool dir_removed(struct export_ctx *x, const char *dir)
{
    int64_t fid = qdb_file_id(x->q, dir);
    if (!fid)
        return false;
    GArray *rows = qdb_ids(x->q, sql_dir_removed, fid);
    bool removed = rows->len > 0;
    g_array_unref(rows);
    return removed;
}

/* A build system's own compiler probe whose files stay behind: CMake identifying the compiler
 * (CMakeFiles/VERSION/CompilerIdLANG/), Meson's sanity check (meson-private/sanitycheck*).
 * Bear lists them; a compilation database of the project does not (CMake's own has none). */
static bool is_probe_source(const char *src)
{
    return g_pattern_match_simple("*/CMakeFiles/*/CompilerId*/*", src) ||
           g_pattern_match_simple("*/meson-private/sanitycheck*", src);
}

/* A compiler by name: the known drivers, `zig cc`/`zig c++`, and the --compiler globs. */
static bool is_compiler(struct export_ctx *x, const struct qdb_process *p)
{
    const char *slash = strrchr(p->argv, '/');
    const char *prog = slash ? slash + 1 : p->argv;
    if (progkind_is_compiler_driver(prog))
        return true;
    size_t l0 = strlen(p->argv) + 1;
    if (!strcmp(prog, "zig") && l0 < p->argv_len &&
        (!strcmp(p->argv + l0, "cc") || !strcmp(p->argv + l0, "c++")))
        return true;
    for (char **g = x->compilers; g && *g; g++)
        if (g_pattern_match_simple(*g, prog))
            return true;
    return false;
}

static void take_path(const char *name, const char *value, void *data)
{
    char **path = data;
    if (value && !strcmp(name, "PATH")) {
        g_free(*path);
        *path = g_strdup(value);
    }
}

/* The first directory of `path` (the process's PATH) whose argv[0] is the executable that
 * ran, as invoked_as says. */
static char *invoked_on_path(const struct qdb_process *p, const char *cwd, const char *path)
{
    g_autofree char *exe_real = p->exe ? realpath(p->exe, NULL) : NULL;
    g_auto(GStrv) dirs = g_strsplit(path ? path : "/usr/local/bin:/usr/bin:/bin", ":", -1);
    for (char **d = dirs; *d; d++) {
        g_autofree char *dir = qdb_absolute_path_in(cwd, **d ? *d : ".");
        g_autofree char *cand = g_build_filename(dir, p->argv, NULL);
        g_autofree char *real = realpath(cand, NULL);
        if (real && (exe_real ? !strcmp(real, exe_real) : p->exe && !strcmp(real, p->exe)))
            return g_steal_pointer(&cand);
    }
    return g_strdup(p->exe ? p->exe : p->argv);
}

/* The program as the build invoked it, as Bear writes it: argv[0] if it holds a '/' (made
 * absolute against the cwd), else the first directory of the process's PATH whose argv[0]
 * is the executable that ran (symlinks not resolved: /usr/bin/cc, not
 * /usr/bin/x86_64-linux-gnu-gcc-12); the executable itself when neither can be told. */
static char *invoked_as(struct export_ctx *x, const struct qdb_process *p, GHashTable *seen)
{
    const char *cwd = p->cwd ? p->cwd : "/";
    if (strchr(p->argv, '/'))
        return qdb_absolute_path_in(cwd, p->argv);
    g_autofree char *path = NULL;
    query_each_env(x->q, p->id, take_path, &path);
    /* Thousands of compiles run the same compiler from the same place: look once. */
    g_autofree char *key = g_strdup_printf("%s\n%s\n%s\n%s", cwd, p->argv, path ? path : "",
                                           p->exe ? p->exe : "");
    const char *known = g_hash_table_lookup(seen, key);
    if (known)
        return g_strdup(known);
    char *found = invoked_on_path(p, cwd, path);
    g_hash_table_insert(seen, g_steal_pointer(&key), g_strdup(found));
    return found;
}

/* A wrapper that poses as the compiler (ccache's gcc symlink) starts the real one with the
 * same arguments: the entry is the real compiler's, the innermost.  `tree`: p's subtree. */
static bool wraps_compiler(struct export_ctx *x, const struct qdb_process *p, GArray *tree)
{
    size_t tail = strlen(p->argv) + 1;
    for (guint k = 1; k < tree->len; k++) {
        const struct qdb_process *d = qdb_process(x->q, g_array_index(tree, int64_t, k));
        if (!d || !d->argv || !d->argv_len || is_fork_copy(x, d))
            continue;
        size_t dtail = strlen(d->argv) + 1;
        if (is_compiler(x, d) && d->argv_len - dtail == p->argv_len - tail &&
            !memcmp(d->argv + dtail, p->argv + tail, p->argv_len - tail))
            return true;
    }
    return false;
}

/* A compiler's command line, as the driver reads it. */
struct cc_step {
    GPtrArray *words;   /* argv, pointing into the process's */
    GPtrArray *sources; /* absolute paths of the sources it names */
    bool compile, assemble_only, preprocess_only;
    /* Without -c or -S, sources are compiled and linked in one step (`cc -o prog prog.c`,
     * rsync's rounding.c): one entry per source, as Bear lists them, its output the
     * program; without sources it is a link step. */
    bool link, and_link;
};

static void cc_step_parse(const struct qdb_process *p, struct cc_step *c)
{
    *c = (struct cc_step){.words = split_argv(p),
                          .sources = g_ptr_array_new_with_free_func(g_free)};
    for (guint k = 1; k < c->words->len; k++) {
        const char *w = c->words->pdata[k];
        if (!strcmp(w, "-c") || !strcmp(w, "-S")) {
            c->compile = true;
            c->assemble_only |= w[1] == 'S';
        }
        else if (!strcmp(w, "-E") || !strcmp(w, "-M") || !strcmp(w, "-MM"))
            c->preprocess_only = true;
        else if (!strcmp(w, "-o") || !strcmp(w, "-x") || !strcmp(w, "-MF") ||
                 !strcmp(w, "-MT") || !strcmp(w, "-MQ") || !strcmp(w, "-include") ||
                 !strcmp(w, "-I") || !strcmp(w, "-D") || !strcmp(w, "-U"))
            k++; /* its argument is not a source */
        else if (has_source_ext(w))
            g_ptr_array_add(c->sources, qdb_absolute_path_in(p->cwd ? p->cwd : "/", w));
    }
    c->link = !c->compile && !c->preprocess_only && !c->sources->len;
    c->and_link = !c->compile && !c->preprocess_only && c->sources->len;
}

static void cc_step_clear(struct cc_step *c)
{
    g_ptr_array_free(c->sources, TRUE);
    g_ptr_array_free(c->words, TRUE);
}

/* What the compile actually wrote for `src` (NULL: a link's) among `written`; for several
 * sources, the object with the source's stem. */
static const char *written_output(const struct cc_step *c, GPtrArray *written, const char *src)
{
    bool linking = c->link || c->and_link;
    for (guint k = 0; k < written->len; k++) {
        const char *w = written->pdata[k];
        if (!(linking ? !has_object_ext(w) && !has_source_ext(w) && !g_str_has_suffix(w, ".d")
                      : has_object_ext(w) || (!has_source_ext(w) && !g_str_has_suffix(w, ".d"))))
            continue;
        if (!linking && c->sources->len > 1) {
            g_autofree char *sb = g_path_get_basename(src);
            g_autofree char *wb = g_path_get_basename(w);
            char *d1 = strrchr(sb, '.'), *d2 = strrchr(wb, '.');
            if (d1)
                *d1 = '\0';
            if (d2)
                *d2 = '\0';
            if (strcmp(sb, wb))
                continue;
        }
        return w;
    }
    return NULL;
}

/* What the entries of one compiler process share. */
struct cc_entries {
    struct export_ctx *x;
    struct jsonw *w;
    GHashTable *made;    /* ccdb_key of every entry written */
    GHashTable *invoked; /* invoked_as's cache */
    unsigned entries;    /* written so far */
};

/* One entry: the compile of `src` (NULL: a link) to `output`. */
static void write_entry(struct cc_entries *e, const struct qdb_process *p,
                        const struct cc_step *c, const char *src, const char *output)
{
    struct export_ctx *x = e->x;
    struct jsonw *w = e->w;
    const char *dir = p->cwd ? p->cwd : x->run.cwd;
    jsonw_space(w, "\n  ");
    jsonw_object_begin(w);
    jsonw_key(w, "arguments");
    jsonw_array_begin(w);
    g_autofree char *program = invoked_as(x, p, e->invoked);
    for (guint k = 0; k < c->words->len; k++)
        jsonw_string(w, k == 0 ? program : c->words->pdata[k]);
    jsonw_array_end(w);
    jsonw_kv_string(w, "directory", dir ? dir : "");
    jsonw_kv_string(w, "file", c->link ? output : src);
    if (output)
        jsonw_kv_string(w, "output", output);
    jsonw_object_end(w);
    char *key = ccdb_key(dir, c->link ? output : src, output);
    if (key)
        g_hash_table_add(e->made, key);
    e->entries++;
    ex_flush(x);
}

/* The entries of compiler process p: one per translation unit (a link: one, for its
 * output). */
static void process_entries(struct cc_entries *e, const struct qdb_process *p)
{
    struct export_ctx *x = e->x;
    if (is_fork_copy(x, p))
        return;
    GArray *tree = subtree(x, p->id);
    struct cc_step c;
    cc_step_parse(p, &c);
    GPtrArray *written = NULL;
    if (wraps_compiler(x, p, tree) || c.preprocess_only || (c.link && !x->with_links) ||
        (c.compile && !c.sources->len))
        goto out;
    written = subtree_outputs(x, tree);
    /* A compile in a directory the build removed afterwards is a configure probe (CMake's
     * TryCompile-*, autoconf's conftest directories): not part of what was built. */
    if (p->cwd && dir_removed(x, p->cwd))
        goto out;
    /* The output argv names, as the compiler reads it (Bear's "output"): -o, else the
     * compiler's own default; what the compile wrote only when argv cannot say (-o -, or
     * -o with several sources: the compiler refuses that). */
    const char *cwd = p->cwd ? p->cwd : x->run.cwd;
    const char *named = argv_output(c.words);
    bool by_argv = !(named && c.compile && c.sources->len > 1) &&
                   (named || c.compile || c.link || c.and_link);
    guint n_entries = c.link ? 1 : c.sources->len;
    for (guint s = 0; s < n_entries; s++) {
        const char *src = c.link ? NULL : c.sources->pdata[s];
        if (src) {
            int64_t fid = qdb_file_id(x->q, src);
            if (fid && !prov_exists_at_end(x->p, fid))
                continue; /* a configure test's source, deleted since (as Bear does) */
            if (is_probe_source(src))
                continue;
        }
        const char *output = written_output(&c, written, src);
        if (c.link && !output)
            continue; /* a link step that wrote nothing (it failed, or printed only) */
        g_autofree char *from_argv = NULL;
        if (by_argv)
            from_argv = named       ? qdb_absolute_path_in(cwd, named)
                        : c.compile ? default_output(cwd, src, c.assemble_only ? ".s" : ".o")
                                    : qdb_absolute_path_in(cwd, "a.out");
        write_entry(e, p, &c, src, from_argv ? from_argv : output);
    }
out:
    if (written)
        g_ptr_array_free(written, TRUE);
    g_array_unref(tree);
    cc_step_clear(&c);
}

int fmt_compile_commands(struct export_ctx *x)
{
    struct jsonw w;
    jsonw_init(&w, x->out);
    struct cc_entries e = {
        .x = x, .w = &w, .made = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
        .invoked = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free)};
    qdb_load_all(x->q);
    GPtrArray *procs = g_ptr_array_new();
    GHashTableIter it;
    gpointer v;
    g_hash_table_iter_init(&it, x->q->processes);
    while (g_hash_table_iter_next(&it, NULL, &v)) {
        const struct qdb_process *p = v;
        if (p->argv && p->argv_len && is_compiler(x, p))
            g_ptr_array_add(procs, v);
    }
    g_ptr_array_sort(procs, ex_proc_id_cmp);
    jsonw_array_begin(&w);
    for (guint i = 0; i < procs->len; i++)
        process_entries(&e, procs->pdata[i]);
    bool any = e.entries > 0;
    /* --append: the old database's entries the build did not make again, as they were */
    for (guint i = 0; x->append_entries && i < x->append_entries->len; i++) {
        const struct ccdb_entry *a = &g_array_index(x->append_entries, struct ccdb_entry, i);
        g_autofree char *key = ccdb_key(a->directory, a->file, a->output);
        if (key && g_hash_table_contains(e.made, key))
            continue;
        g_autofree char *text = g_strndup(x->append_text + a->begin, a->end - a->begin);
        jsonw_space(&w, "\n  ");
        jsonw_raw(&w, text);
        any = true;
        ex_flush(x);
    }
    if (any)
        jsonw_space(&w, "\n");
    jsonw_array_end(&w);
    g_string_append_c(x->out, '\n');
    g_ptr_array_free(procs, TRUE);
    g_hash_table_destroy(e.made);
    g_hash_table_destroy(e.invoked);
    return 0;
}
