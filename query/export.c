/* export: the trace in the formats other tools read (see docs/exports.md for each mapping). */
#include "common.h"
#include "outfile.h"
#include "filekind.h"
#include "query.h"
#include "textout.h"
#include "progkind.h"
#include "tracedb.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- what every format needs ------------------------------------------------------------- */

struct run_info {
    char *argv;          /* NUL-separated */
    size_t argv_len;
    char *cwd, *hostname, *version, *state;
    int64_t start_realtime_ns, start_ns, end_ns;
    int exit_status;     /* -1 unknown */
};

struct export_ctx {
    struct qdb *q;
    struct prov *p;
    struct run_info run;
    GString *out;
    /* options */
    bool with_links;
    const char *closure_of;
    int depth;           /* 0: unlimited */
    char **collapse;     /* NULL-terminated dirs shown as one node each (dot) */
};

static char *col_dup(sqlite3_stmt *st, int i)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    return t ? g_strdup((const char *)t) : NULL;
}

static void load_run(struct export_ctx *x)
{
    struct run_info *r = &x->run;
    r->exit_status = -1;
    sqlite3_stmt *st = NULL;
    if (qdb_prepare(x->q, "SELECT argv, cwd, hostname, version, state, "
                                     "start_realtime_ns, start_ns, end_ns, exit_status "
                                     "FROM runs ORDER BY id LIMIT 1", &st) &&
        qdb_row(x->q, st)) {
        r->argv_len = (size_t)sqlite3_column_bytes(st, 0);
        r->argv = g_memdup2(sqlite3_column_blob(st, 0), r->argv_len + 1);
        r->cwd = col_dup(st, 1);
        r->hostname = col_dup(st, 2);
        r->version = col_dup(st, 3);
        r->state = col_dup(st, 4);
        r->start_realtime_ns = sqlite3_column_int64(st, 5);
        r->start_ns = sqlite3_column_int64(st, 6);
        r->end_ns = sqlite3_column_int64(st, 7);
        if (sqlite3_column_type(st, 8) != SQLITE_NULL)
            r->exit_status = sqlite3_column_int(st, 8);
    }
    sqlite3_finalize(st);
    if (!r->cwd)
        r->cwd = g_strdup("/");
}

static void free_run(struct run_info *r)
{
    g_free(r->argv);
    g_free(r->cwd);
    g_free(r->hostname);
    g_free(r->version);
    g_free(r->state);
}

/* Build-relative time in microseconds (Trace Event format) and ISO 8601 wall-clock time. */
static void iso_time(struct export_ctx *x, int64_t boot_ns, char buf[32])
{
    int64_t real = x->run.start_realtime_ns + (boot_ns - x->run.start_ns);
    time_t secs = (time_t)(real / 1000000000);
    struct tm tm;
    gmtime_r(&secs, &tm);
    strftime(buf, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* An attestation of an incomplete trace says so: `,"KEY":"INCOMPLETE TRACE: why; …"` (nothing
 * for a complete trace). */
static void incomplete_member(struct export_ctx *x, GString *o, const char *key)
{
    const struct qdb_run *r = qdb_run(x->q);
    if (r->complete)
        return;
    g_autofree char *text = g_strdup_printf("INCOMPLETE TRACE: %s; this document covers only "
                                            "what was recorded", r->incomplete);
    g_string_append_printf(o, ",\"%s\":", key);
    json_string(o, text, strlen(text));
}

/* "traceState":…,"traceComplete":bool[,"traceIncomplete":why] (members of an open object). */
static void trace_state_members(struct export_ctx *x, GString *o)
{
    const struct qdb_run *r = qdb_run(x->q);
    const char *state = qdb_run_state_name(r->state);
    g_string_append(o, "\"traceState\":");
    json_string(o, state, strlen(state));
    g_string_append_printf(o, ",\"traceComplete\":%s", r->complete ? "true" : "false");
    if (r->incomplete) {
        g_string_append(o, ",\"traceIncomplete\":");
        json_string(o, r->incomplete, strlen(r->incomplete));
    }
}

/* `id` and every process below it (forks and execs), breadth first. */
static GArray *subtree(struct export_ctx *x, int64_t id)
{
    GArray *all = g_array_new(FALSE, FALSE, sizeof(int64_t));
    g_array_append_val(all, id);
    for (guint i = 0; i < all->len; i++)
        prov_successors(x->p, g_array_index(all, int64_t, i), all);
    return all;
}

/* The build's products: for every path it wrote that still exists at the end (outside its
 * private /tmp), the version there.  Sorted by path. */
static GArray *products(struct export_ctx *x)
{
    GArray *out = g_array_new(FALSE, FALSE, sizeof(const struct prov_version *));
    sqlite3_stmt *st = NULL;
    if (!qdb_prepare(x->q, "SELECT DISTINCT a.file_id FROM accesses a JOIN files f ON "
                                     "f.id = a.file_id WHERE a.kind IN " TRACEDB_KINDS_PRODUCED " AND a.result = 0 "
                                     "AND a.version_id IS NOT NULL ORDER BY f.path", &st))
        return out;
    GHashTable *seen = g_hash_table_new(g_int64_hash, g_int64_equal);
    while (qdb_row(x->q, st)) {
        int64_t file_id = sqlite3_column_int64(st, 0);
        if (!prov_exists_at_end(x->p, file_id))
            continue;
        const struct prov_version *v = prov_version(x->p, prov_version_at(x->p, file_id));
        if (!v || v->origin != TRACEDB_VERSION_WRITTEN || prov_in_private_tmp(x->p, v->path) ||
            g_hash_table_contains(seen, &v->id))
            continue;
        g_hash_table_add(seen, (gpointer)&v->id);
        g_array_append_val(out, v);
    }
    sqlite3_finalize(st);
    g_hash_table_destroy(seen);
    return out;
}

/* Every found version the build read (its materials), sorted by path. */
static GArray *materials(struct export_ctx *x)
{
    GArray *ids = qdb_ids(x->q, "SELECT DISTINCT a.version_id FROM accesses a JOIN versions v ON "
                                "v.id = a.version_id WHERE a.kind IN " TRACEDB_KINDS_READ " AND a.result = 0 AND "
                                "v.origin = 1 AND ?1 = ?1", 0);
    GArray *out = g_array_new(FALSE, FALSE, sizeof(const struct prov_version *));
    for (guint i = 0; i < ids->len; i++) {
        const struct prov_version *v = prov_version(x->p, g_array_index(ids, int64_t, i));
        if (v)
            g_array_append_val(out, v);
    }
    g_array_unref(ids);
    return out;
}

static gint version_path_cmp(gconstpointer a, gconstpointer b)
{
    const struct prov_version *x = *(const struct prov_version *const *)a;
    const struct prov_version *y = *(const struct prov_version *const *)b;
    int c = strcmp(x->path, y->path);
    return c ? c : (x->id > y->id) - (x->id < y->id);
}

static void json_key_string(GString *out, const char *key, const char *s)
{
    g_string_append_printf(out, "\"%s\":", key);
    json_string(out, s ? s : "", s ? strlen(s) : 0);
}

/* ---- compile-commands -------------------------------------------------------------------- */

static bool has_source_ext(const char *w)
{
    return w[0] != '-' && filekind_cc_source(w);
}

static bool has_object_ext(const char *w)
{
    const char *dot = strrchr(w, '.');
    return dot && (!strcmp(dot, ".o") || !strcmp(dot, ".obj") || !strcmp(dot, ".lo"));
}

/* Files written (and not removed again) by a process subtree: absolute paths. */
static GPtrArray *subtree_outputs(struct export_ctx *x, GArray *procs)
{
    GHashTable *state = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    GPtrArray *order = g_ptr_array_new();
    sqlite3_stmt *st = NULL;
    if (!qdb_prepare(x->q, "SELECT f.path, a.kind FROM accesses a JOIN files f ON "
                                     "f.id = a.file_id WHERE a.process_id = ? AND a.result = 0 AND "
                                     "a.kind IN " TRACEDB_KINDS_CHANGED " ORDER BY a.first_ns", &st)) {
        g_hash_table_destroy(state);
        return g_ptr_array_new_with_free_func(g_free);
    }
    for (guint i = 0; i < procs->len; i++) {
        qdb_bind_int64(x->q, st, 1, g_array_index(procs, int64_t, i));
        while (qdb_row(x->q, st)) {
            const char *path = (const char *)sqlite3_column_text(st, 0);
            int kind = sqlite3_column_int(st, 1);
            bool gone = kind == TRACEDB_UNLINK || kind == TRACEDB_RENAME_FROM;
            if (!g_hash_table_contains(state, path)) {
                char *k = g_strdup(path);
                g_hash_table_insert(state, k, GINT_TO_POINTER(gone ? 1 : 2));
                g_ptr_array_add(order, k);
            } else {
                g_hash_table_insert(state, g_strdup(path), GINT_TO_POINTER(gone ? 1 : 2));
            }
        }
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
    for (guint i = 0; i < order->len; i++) {
        const char *path = order->pdata[i];
        if (GPOINTER_TO_INT(g_hash_table_lookup(state, path)) == 2)
            g_ptr_array_add(out, g_strdup(path));
    }
    g_ptr_array_free(order, TRUE);
    g_hash_table_destroy(state);
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

static gint proc_id_cmp(gconstpointer a, gconstpointer b)
{
    const struct qdb_process *x = *(const struct qdb_process *const *)a;
    const struct qdb_process *y = *(const struct qdb_process *const *)b;
    return (x->id > y->id) - (x->id < y->id);
}

static gint proc_id_cmp_int64(gconstpointer a, gconstpointer b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
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

static int fmt_compile_commands(struct export_ctx *x)
{
    qdb_load_all(x->q);
    GPtrArray *procs = g_ptr_array_new();
    GHashTableIter it;
    gpointer v;
    g_hash_table_iter_init(&it, x->q->processes);
    while (g_hash_table_iter_next(&it, NULL, &v)) {
        const struct qdb_process *p = v;
        if (!p->argv || !p->argv_len)
            continue;
        const char *slash = strrchr(p->argv, '/');
        const char *prog = slash ? slash + 1 : p->argv;
        if (progkind_is_compiler_driver(prog))
            g_ptr_array_add(procs, v);
    }
    g_ptr_array_sort(procs, proc_id_cmp);
    g_string_append(x->out, "[");
    bool first = true;
    for (guint i = 0; i < procs->len; i++) {
        const struct qdb_process *p = procs->pdata[i];
        if (is_fork_copy(x, p))
            continue;
        /* A wrapper that poses as the compiler (ccache's gcc symlink) starts the real one with
         * the same arguments: the entry is the real compiler's, the innermost. */
        GArray *tree = subtree(x, p->id);
        bool wrapped = false;
        size_t tail = strlen(p->argv) + 1;
        for (guint k = 1; k < tree->len && !wrapped; k++) {
            const struct qdb_process *d = qdb_process(x->q, g_array_index(tree, int64_t, k));
            if (!d || !d->argv || !d->argv_len || is_fork_copy(x, d))
                continue;
            const char *ds = strrchr(d->argv, '/');
            size_t dtail = strlen(d->argv) + 1;
            wrapped = progkind_is_compiler_driver(ds ? ds + 1 : d->argv) && d->argv_len - dtail == p->argv_len - tail &&
                      !memcmp(d->argv + dtail, p->argv + tail, p->argv_len - tail);
        }
        if (wrapped) {
            g_array_unref(tree);
            continue;
        }
        GPtrArray *words = split_argv(p);
        bool compile = false, preprocess_only = false;
        GPtrArray *sources = g_ptr_array_new_with_free_func(g_free);
        for (guint k = 1; k < words->len; k++) {
            const char *w = words->pdata[k];
            if (!strcmp(w, "-c") || !strcmp(w, "-S"))
                compile = true;
            else if (!strcmp(w, "-E") || !strcmp(w, "-M") || !strcmp(w, "-MM"))
                preprocess_only = true;
            else if (!strcmp(w, "-o") || !strcmp(w, "-x") || !strcmp(w, "-MF") ||
                     !strcmp(w, "-MT") || !strcmp(w, "-MQ") || !strcmp(w, "-include") ||
                     !strcmp(w, "-I") || !strcmp(w, "-D") || !strcmp(w, "-U"))
                k++; /* its argument is not a source */
            else if (has_source_ext(w))
                g_ptr_array_add(sources, qdb_absolute_path_in(p->cwd ? p->cwd : "/", w));
        }
        bool link = !compile && !preprocess_only;
        if (preprocess_only || (!compile && !x->with_links) || (compile && !sources->len)) {
            g_ptr_array_free(sources, TRUE);
            g_ptr_array_free(words, TRUE);
            g_array_unref(tree);
            continue;
        }
        GPtrArray *written = subtree_outputs(x, tree);
        g_array_unref(tree);
        /* One entry per translation unit (a link: one entry, for its output). */
        guint n_entries = link ? 1 : sources->len;
        for (guint s = 0; s < n_entries; s++) {
            const char *src = link ? NULL : sources->pdata[s];
            if (src) {
                int64_t fid = qdb_file_id(x->q, src);
                if (fid && !prov_exists_at_end(x->p, fid))
                    continue; /* a configure test's source, deleted since (as Bear does) */
            }
            /* The output: what the compile actually wrote; for several sources, the object
             * with the source's stem. */
            const char *output = NULL;
            for (guint k = 0; k < written->len && !output; k++) {
                const char *w = written->pdata[k];
                if (link ? !has_object_ext(w) && !g_str_has_suffix(w, ".d")
                         : has_object_ext(w) || (!has_source_ext(w) && !g_str_has_suffix(w, ".d"))) {
                    if (!link && sources->len > 1) {
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
                    output = w;
                }
            }
            if (link && !output)
                continue;
            g_string_append(x->out, first ? "\n  {" : ",\n  {");
            first = false;
            g_string_append(x->out, "\"arguments\":[");
            for (guint k = 0; k < words->len; k++) {
                const char *w = k == 0 && p->exe ? p->exe : words->pdata[k];
                if (k)
                    g_string_append_c(x->out, ',');
                json_string(x->out, w, strlen(w));
            }
            g_string_append(x->out, "],");
            json_key_string(x->out, "directory", p->cwd ? p->cwd : x->run.cwd);
            g_string_append_c(x->out, ',');
            json_key_string(x->out, "file", link ? output : src);
            if (output) {
                g_string_append_c(x->out, ',');
                json_key_string(x->out, "output", output);
            }
            g_string_append(x->out, "}");
        }
        g_ptr_array_free(written, TRUE);
        g_ptr_array_free(sources, TRUE);
        g_ptr_array_free(words, TRUE);
    }
    g_string_append(x->out, first ? "]\n" : "\n]\n");
    g_ptr_array_free(procs, TRUE);
    return 0;
}

/* ---- chrome-trace ------------------------------------------------------------------------ */

/* A task (one pid's life): its first image and every image it exec'd. */
struct task {
    const struct qdb_process *first, *last;
    int64_t start_ns, end_ns;
    int lane;
};

static gint task_start_cmp(gconstpointer a, gconstpointer b)
{
    const struct task *x = a, *y = b;
    if (x->start_ns != y->start_ns)
        return (x->start_ns > y->start_ns) - (x->start_ns < y->start_ns);
    return (x->first->id > y->first->id) - (x->first->id < y->first->id);
}

/* The last time the trace saw `id` do anything (accesses, output). */
static int64_t last_activity(struct export_ctx *x, int64_t id)
{
    sqlite3_stmt *st = NULL;
    int64_t t = 0;
    if (qdb_prepare(x->q, "SELECT MAX(t) FROM (SELECT MAX(last_ns) AS t FROM accesses "
                                     "WHERE process_id = ?1 UNION ALL SELECT MAX(time_ns) FROM output "
                                     "WHERE process_id = ?1)", &st)) {
        qdb_bind_int64(x->q, st, 1, id);
        if (qdb_row(x->q, st))
            t = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    return t;
}

static int fmt_chrome_trace(struct export_ctx *x)
{
    qdb_load_all(x->q);
    /* Tasks: images that are not an exec of another, followed along their exec chain. */
    GArray *tasks = g_array_new(FALSE, FALSE, sizeof(struct task));
    GHashTable *next_image = g_hash_table_new(g_int64_hash, g_int64_equal);
    GHashTableIter it;
    gpointer v;
    g_hash_table_iter_init(&it, x->q->processes);
    while (g_hash_table_iter_next(&it, NULL, &v)) {
        const struct qdb_process *p = v;
        if (p->prev_image_id)
            g_hash_table_insert(next_image, (gpointer)&p->prev_image_id, v);
    }
    g_hash_table_iter_init(&it, x->q->processes);
    while (g_hash_table_iter_next(&it, NULL, &v)) {
        const struct qdb_process *p = v;
        if (p->prev_image_id)
            continue;
        struct task t = {.first = p, .last = p, .start_ns = p->start_ns};
        const struct qdb_process *n;
        while ((n = g_hash_table_lookup(next_image, &t.last->id)))
            t.last = n;
        int64_t end = t.last->exited ? t.last->end_ns : 0;
        for (const struct qdb_process *i = t.last; !end && i; i = i->prev_image_id ? qdb_process(x->q, i->prev_image_id) : NULL)
            end = last_activity(x, i->id);
        t.end_ns = end > t.start_ns ? end : t.start_ns + 1000;
        g_array_append_val(tasks, t);
    }
    g_hash_table_destroy(next_image);
    g_array_sort(tasks, task_start_cmp);
    /* Lanes: the first lane free at a task's start, so slices on one lane never overlap. */
    GArray *lane_end = g_array_new(FALSE, FALSE, sizeof(int64_t));
    for (guint i = 0; i < tasks->len; i++) {
        struct task *t = &g_array_index(tasks, struct task, i);
        guint l = 0;
        while (l < lane_end->len && g_array_index(lane_end, int64_t, l) > t->start_ns)
            l++;
        if (l == lane_end->len)
            g_array_append_val(lane_end, t->end_ns);
        else
            g_array_index(lane_end, int64_t, l) = t->end_ns;
        t->lane = (int)l + 1;
    }
    GString *o = x->out;
    g_string_append(o, "{\"displayTimeUnit\":\"ms\",\"otherData\":{");
    json_key_string(o, "tool", "buildtrail");
    g_string_append(o, ",\"command\":");
    json_argv(o, x->run.argv ? x->run.argv : "", x->run.argv_len);
    g_string_append(o, "},\"traceEvents\":[\n");
    g_string_append(o, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":0,\"args\":{\"name\":");
    GString *cmd = g_string_new(NULL);
    text_argv(cmd, x->run.argv ? x->run.argv : "", x->run.argv_len);
    json_string(o, cmd->str, cmd->len);
    g_string_free(cmd, TRUE);
    g_string_append(o, "}}");
    for (guint l = 0; l < lane_end->len; l++)
        g_string_append_printf(o, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":%u,"
                                  "\"args\":{\"name\":\"lane %u\"}}", l + 1, l + 1);
    for (guint i = 0; i < tasks->len; i++) {
        const struct task *t = &g_array_index(tasks, struct task, i);
        const struct qdb_process *p = t->last;
        GString *name = g_string_new(NULL);
        if (p->argv && p->argv_len)
            text_argv(name, p->argv, p->argv_len);
        else
            g_string_append(name, p->comm ? p->comm : "?");
        if (name->len > 160) {
            g_string_truncate(name, 157);
            g_string_append(name, "...");
        }
        g_string_append(o, ",\n{\"name\":");
        json_string(o, name->str, name->len);
        g_string_free(name, TRUE);
        g_string_append_printf(o, ",\"cat\":\"process\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,"
                                  "\"pid\":1,\"tid\":%d,\"args\":{\"id\":%" PRId64 ",\"pid\":%d",
                               (double)(t->start_ns - x->run.start_ns) / 1e3,
                               (double)(t->end_ns - t->start_ns) / 1e3, t->lane, p->id, p->pid);
        if (p->parent_id)
            g_string_append_printf(o, ",\"parent\":%" PRId64, p->parent_id);
        g_string_append(o, ",\"argv\":");
        if (p->argv)
            json_argv(o, p->argv, p->argv_len);
        else
            g_string_append(o, "[]");
        if (p->cwd) {
            g_string_append_c(o, ',');
            json_key_string(o, "cwd", p->cwd);
        }
        if (p->exited) {
            if (p->exit_signal)
                g_string_append_printf(o, ",\"signal\":%d", p->exit_signal);
            else
                g_string_append_printf(o, ",\"exit\":%d", p->exit_code);
        }
        if (t->first != t->last)
            g_string_append_printf(o, ",\"images\":%d", t->last->exec_seq - t->first->exec_seq + 1);
        /* Files it touched: counts, and the paths it wrote. */
        GArray *ids = qdb_ids(x->q, "SELECT COUNT(*) FROM accesses WHERE process_id = ?1 AND "
                                    "kind IN " TRACEDB_KINDS_READ " AND result = 0", p->id);
        g_string_append_printf(o, ",\"files_read\":%" PRId64,
                               ids->len ? g_array_index(ids, int64_t, 0) : 0);
        g_array_unref(ids);
        sqlite3_stmt *st = NULL;
        g_string_append(o, ",\"files_written\":[");
        if (qdb_prepare(x->q, "SELECT DISTINCT f.path FROM accesses a JOIN files f ON "
                                         "f.id = a.file_id WHERE a.process_id = ? AND a.result = 0 "
                                         "AND a.kind IN " TRACEDB_KINDS_CHANGED " AND a.kind NOT IN " TRACEDB_KINDS_GONE
                                         " AND (a.kind != 2 OR a.bytes > 0)", &st)) {
            bool f1 = true;
            for (const struct qdb_process *img = t->last; img;
                 img = img != t->first && img->prev_image_id ? qdb_process(x->q, img->prev_image_id)
                                                             : NULL) {
                qdb_bind_int64(x->q, st, 1, img->id);
                while (qdb_row(x->q, st)) {
                    if (!f1)
                        g_string_append_c(o, ',');
                    f1 = false;
                    const char *path = (const char *)sqlite3_column_text(st, 0);
                    json_string(o, path, strlen(path));
                }
                sqlite3_reset(st);
            }
        }
        sqlite3_finalize(st);
        g_string_append(o, "]}}");
    }
    g_string_append(o, "\n]}\n");
    g_array_free(lane_end, TRUE);
    g_array_free(tasks, TRUE);
    return 0;
}

/* The nearest ancestor of process `id` (exec predecessors, then parents) that is in `set`
 * (int64 ids), or 0. */
static int64_t nearest_ancestor_in(struct export_ctx *x, int64_t id, GHashTable *set)
{
    for (const struct qdb_process *a = qdb_process(x->q, id); a;) {
        int64_t up = a->prev_image_id ? a->prev_image_id : a->parent_id;
        if (!up)
            return 0;
        if (g_hash_table_contains(set, &up))
            return up;
        a = qdb_process(x->q, up);
    }
    return 0;
}

/* ---- dot --------------------------------------------------------------------------------- */

static void dot_id(GString *o, const char *s)
{
    /* A DOT quoted ID: backslash and quote escaped; bytes kept (Graphviz reads UTF-8). */
    g_string_append_c(o, '"');
    for (const char *c = s; *c; c++) {
        if (*c == '"' || *c == '\\')
            g_string_append_c(o, '\\');
        if (*c == '\n')
            g_string_append(o, "\\n");
        else
            g_string_append_c(o, *c);
    }
    g_string_append_c(o, '"');
}

/* A version's node name: its path, or the collapsed directory it is under. */
static char *dot_file_node(struct export_ctx *x, const struct prov_version *v, bool *collapsed)
{
    for (char **d = x->collapse; d && *d; d++) {
        char *one[] = {*d, NULL};
        if (prov_path_under(v->path, one)) {
            *collapsed = true;
            return g_strdup_printf("%s/…", *d);
        }
    }
    *collapsed = false;
    return g_strdup_printf("v%" PRId64, v->id);
}

static int fmt_dot(struct export_ctx *x)
{
    GArray *nodes = NULL; /* struct prov_node */
    int64_t start = 0;
    static const struct prov_walk_opts walk = {.scripts = false};
    if (x->closure_of) {
        g_autofree char *abs = qdb_absolute_path(x->closure_of);
        int64_t fid = qdb_file_id(x->q, abs);
        start = fid ? prov_version_at(x->p, fid) : 0;
        if (!start) {
            if (!query_failed(x->q))
                fprintf(stderr, "buildtrail export: %s: the build never read or wrote it; check "
                                "the path given to --closure-of\n", x->closure_of);
            return 1;
        }
        nodes = prov_inputs(x->p, start, &walk);
        struct prov_node self = {prov_version(x->p, start), PROV_ROLE_OTHER, 0};
        g_array_append_val(nodes, self);
    } else {
        /* The whole build: every version that was read or written. */
        GArray *ids = qdb_ids(x->q, "SELECT DISTINCT version_id FROM accesses WHERE version_id "
                                    "IS NOT NULL AND result = 0 AND ?1 = ?1", 0);
        nodes = g_array_new(FALSE, FALSE, sizeof(struct prov_node));
        for (guint i = 0; i < ids->len; i++) {
            struct prov_node n = {prov_version(x->p, g_array_index(ids, int64_t, i)),
                                  PROV_ROLE_OTHER, 0};
            if (n.v)
                g_array_append_val(nodes, n);
        }
        g_array_unref(ids);
    }
    GHashTable *in_graph = g_hash_table_new(g_int64_hash, g_int64_equal);
    for (guint i = 0; i < nodes->len; i++) {
        struct prov_node *n = &g_array_index(nodes, struct prov_node, i);
        if (!x->depth || n->depth <= x->depth)
            g_hash_table_add(in_graph, (gpointer)&n->v->id);
    }
    GString *o = x->out;
    g_string_append(o, "digraph buildtrail {\n  rankdir=LR;\n  node [fontsize=10];\n");
    GHashTable *emitted = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    GHashTable *procs = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    GHashTable *edges = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    sqlite3_stmt *acc = NULL;
    qdb_prepare(x->q, "SELECT process_id, kind FROM accesses WHERE version_id = ? AND "
                                 "result = 0 AND process_id IS NOT NULL AND kind IN " TRACEDB_KINDS_USED, &acc);
    for (guint i = 0; i < nodes->len; i++) {
        struct prov_node *n = &g_array_index(nodes, struct prov_node, i);
        if (!g_hash_table_contains(in_graph, &n->v->id))
            continue;
        bool collapsed;
        char *name = dot_file_node(x, n->v, &collapsed);
        if (!g_hash_table_contains(emitted, name)) {
            g_string_append(o, "  ");
            dot_id(o, name);
            g_string_append(o, " [shape=ellipse");
            if (collapsed) {
                g_string_append(o, ",style=dashed,label=");
                dot_id(o, name);
            } else {
                g_autofree char *label = g_strdup_printf("%s\nv%" PRId64 " %.12s", n->v->path,
                                                         n->v->id, n->v->sha256);
                g_string_append(o, ",label=");
                dot_id(o, label);
                if (n->v->origin == TRACEDB_VERSION_FOUND)
                    g_string_append(o, ",style=filled,fillcolor=\"#e8f0ff\"");
                if (n->v->id == start)
                    g_string_append(o, ",penwidth=2");
            }
            g_string_append(o, "];\n");
            g_hash_table_add(emitted, g_strdup(name));
        }
        /* Edges to the processes that read or wrote this version (only the writers of
         * versions in the graph, and those writers' reads of versions in the graph). */
        qdb_bind_int64(x->q, acc, 1, n->v->id);
        while (acc && qdb_row(x->q, acc)) {
            int64_t pid = sqlite3_column_int64(acc, 0);
            int kind = sqlite3_column_int(acc, 1);
            bool wrote = kind == TRACEDB_WRITE || kind == TRACEDB_CREATE || kind == TRACEDB_TRUNCATE;
            g_autofree char *pnode = g_strdup_printf("p%" PRId64, pid);
            g_autofree char *edge = wrote ? g_strdup_printf("%s->%s", pnode, name)
                                          : g_strdup_printf("%s->%s", name, pnode);
            if (!wrote && !g_hash_table_contains(procs, &pid)) {
                /* Only readers that wrote something in the graph are drawn. */
                bool writes_in_graph = false;
                GArray *w = qdb_ids(x->q, "SELECT DISTINCT version_id FROM accesses WHERE "
                                          "process_id = ?1 AND kind IN " TRACEDB_KINDS_MADE " AND result = 0 AND "
                                          "version_id IS NOT NULL", pid);
                for (guint k = 0; k < w->len && !writes_in_graph; k++)
                    writes_in_graph = g_hash_table_contains(in_graph, &g_array_index(w, int64_t, k));
                g_array_unref(w);
                if (!writes_in_graph)
                    continue;
            }
            if (!g_hash_table_contains(procs, &pid)) {
                const struct qdb_process *p = qdb_process(x->q, pid);
                int64_t *k = g_new(int64_t, 1);
                *k = pid;
                g_hash_table_add(procs, k);
                GString *label = g_string_new(NULL);
                g_string_append_printf(label, "[%" PRId64 "] ", pid);
                if (p && p->argv && p->argv_len)
                    text_argv(label, p->argv, p->argv_len);
                if (label->len > 80) {
                    g_string_truncate(label, 77);
                    g_string_append(label, "...");
                }
                g_string_append(o, "  ");
                dot_id(o, pnode);
                g_string_append(o, " [shape=box,label=");
                dot_id(o, label->str);
                g_string_append(o, "];\n");
                g_string_free(label, TRUE);
            }
            if (g_hash_table_contains(edges, edge))
                continue;
            g_hash_table_add(edges, g_strdup(edge));
            g_string_append(o, "  ");
            dot_id(o, wrote ? pnode : name);
            g_string_append(o, " -> ");
            dot_id(o, wrote ? name : pnode);
            g_string_append(o, wrote ? " [label=wrote];\n" : " [label=read,color=gray40];\n");
        }
        if (acc)
            sqlite3_reset(acc);
        g_free(name);
    }
    sqlite3_finalize(acc);
    /* spawned: between drawn processes, along the parent chain. */
    GHashTableIter it;
    gpointer key;
    g_hash_table_iter_init(&it, procs);
    while (g_hash_table_iter_next(&it, &key, NULL)) {
        int64_t id = *(int64_t *)key, up = nearest_ancestor_in(x, id, procs);
        if (up)
            g_string_append_printf(o, "  \"p%" PRId64 "\" -> \"p%" PRId64 "\" [label=spawned,"
                                      "style=dotted];\n", up, id);
    }
    g_string_append(o, "}\n");
    g_hash_table_destroy(edges);
    g_hash_table_destroy(procs);
    g_hash_table_destroy(emitted);
    g_hash_table_destroy(in_graph);
    g_array_unref(nodes);
    return 0;
}

/* ---- SBOMs and provenance statements ----------------------------------------------------- */

/* The leaf inputs and the tools of one product. */
static void product_inputs(struct export_ctx *x, const struct prov_version *v, GArray **leaves,
                           GArray **tools)
{
    static const struct prov_walk_opts walk = {.scripts = true};
    GArray *nodes = prov_inputs(x->p, v->id, &walk);
    *leaves = g_array_new(FALSE, FALSE, sizeof(const struct prov_version *));
    *tools = g_array_new(FALSE, FALSE, sizeof(const struct prov_version *));
    for (guint i = 0; i < nodes->len; i++) {
        struct prov_node *n = &g_array_index(nodes, struct prov_node, i);
        if (n->role == PROV_ROLE_TOOL)
            g_array_append_val(*tools, n->v);
        else if (n->v->origin == TRACEDB_VERSION_FOUND)
            g_array_append_val(*leaves, n->v);
    }
    g_array_unref(nodes);
}

static char *doc_name(struct export_ctx *x)
{
    GString *s = g_string_new("buildtrail: ");
    text_argv(s, x->run.argv ? x->run.argv : "", x->run.argv_len);
    return g_string_free(s, FALSE);
}

/* A stable identifier for this trace: SHA-256 of the run's start time, host and command. */
static char *trace_uid(struct export_ctx *x)
{
    GChecksum *c = g_checksum_new(G_CHECKSUM_SHA256);
    char t[32];
    snprintf(t, sizeof t, "%" PRId64, x->run.start_realtime_ns);
    g_checksum_update(c, (const guchar *)t, -1);
    if (x->run.hostname)
        g_checksum_update(c, (const guchar *)x->run.hostname, -1);
    if (x->run.argv)
        g_checksum_update(c, (const guchar *)x->run.argv, (gssize)x->run.argv_len);
    char *r = g_strndup(g_checksum_get_string(c), 32);
    g_checksum_free(c);
    return r;
}

static const char *rel_or_abs(struct export_ctx *x, const char *path, char *buf, size_t cap)
{
    size_t l = strlen(x->run.cwd);
    if (!strncmp(path, x->run.cwd, l) && path[l] == '/') {
        snprintf(buf, cap, ".%s", path + l);
        return buf;
    }
    return path;
}

static void spdx_file_id(GString *o, const struct prov_version *v)
{
    g_string_append_printf(o, "\"SPDXRef-File-v%" PRId64 "\"", v->id);
}

static void spdx_add_file(struct export_ctx *x, GHashTable *files, GString *fo,
                          const struct prov_version *v)
{
    if (g_hash_table_contains(files, &v->id) || !v->sha1[0])
        return;
    g_hash_table_add(files, (gpointer)&v->id);
    char buf[4096];
    g_string_append(fo, fo->len ? ",\n    {\"SPDXID\":" : "\n    {\"SPDXID\":");
    spdx_file_id(fo, v);
    g_string_append(fo, ",\"fileName\":");
    const char *name = rel_or_abs(x, v->path, buf, sizeof buf);
    json_string(fo, name, strlen(name));
    g_string_append_printf(fo, ",\"checksums\":[{\"algorithm\":\"SHA1\",\"checksumValue\":\"%s\"},"
                               "{\"algorithm\":\"SHA256\",\"checksumValue\":\"%s\"}]",
                           v->sha1, v->sha256);
    g_string_append_printf(fo, ",\"fileTypes\":[\"%s\"]",
                           v->origin == TRACEDB_VERSION_FOUND ? "SOURCE" : "OTHER");
    g_string_append(fo, ",\"licenseConcluded\":\"NOASSERTION\",\"copyrightText\":\"NOASSERTION\"");
    g_string_append_printf(fo, ",\"comment\":\"buildtrail version %" PRId64 "; %s by the build\"}",
                           v->id, v->origin == TRACEDB_VERSION_FOUND ? "read" : "made");
}

static void spdx_rel(GString *ro, const char *a, const char *type, const char *b)
{
    g_string_append_printf(ro, "%s\n    {\"spdxElementId\":%s,\"relationshipType\":\"%s\","
                               "\"relatedSpdxElement\":%s}", ro->len ? "," : "", a, type, b);
}

static int fmt_spdx(struct export_ctx *x)
{
    GArray *prods = products(x);
    GHashTable *files = g_hash_table_new(g_int64_hash, g_int64_equal);
    GString *fo = g_string_new(NULL), *ro = g_string_new(NULL);
    for (guint i = 0; i < prods->len; i++) {
        const struct prov_version *v = g_array_index(prods, const struct prov_version *, i);
        if (!v->sha1[0])
            continue;
        spdx_add_file(x, files, fo, v);
        GString *pid = g_string_new(NULL);
        spdx_file_id(pid, v);
        spdx_rel(ro, "\"SPDXRef-DOCUMENT\"", "DESCRIBES", pid->str);
        GArray *leaves, *tools;
        product_inputs(x, v, &leaves, &tools);
        for (guint k = 0; k < leaves->len; k++) {
            const struct prov_version *in = g_array_index(leaves, const struct prov_version *, k);
            if (!in->sha1[0])
                continue;
            spdx_add_file(x, files, fo, in);
            GString *iid = g_string_new(NULL);
            spdx_file_id(iid, in);
            spdx_rel(ro, pid->str, "GENERATED_FROM", iid->str);
            g_string_free(iid, TRUE);
        }
        for (guint k = 0; k < tools->len; k++) {
            const struct prov_version *t = g_array_index(tools, const struct prov_version *, k);
            if (!t->sha1[0])
                continue;
            spdx_add_file(x, files, fo, t);
            GString *tid = g_string_new(NULL);
            spdx_file_id(tid, t);
            spdx_rel(ro, tid->str, "BUILD_TOOL_OF", pid->str);
            g_string_free(tid, TRUE);
        }
        g_array_unref(leaves);
        g_array_unref(tools);
        g_string_free(pid, TRUE);
    }
    char created[32];
    iso_time(x, x->run.start_ns, created);
    g_autofree char *name = doc_name(x);
    g_autofree char *uid = trace_uid(x);
    GString *o = x->out;
    g_string_append(o, "{\n  \"spdxVersion\":\"SPDX-2.3\",\"dataLicense\":\"CC0-1.0\","
                       "\"SPDXID\":\"SPDXRef-DOCUMENT\",\n  ");
    json_key_string(o, "name", name);
    g_string_append_printf(o, ",\n  \"documentNamespace\":\"https://buildtrail.invalid/spdx/%s\","
                              "\n  \"creationInfo\":{\"created\":\"%s\",\"creators\":"
                              "[\"Tool: buildtrail-%s\"]",
                           uid, created, x->run.version ? x->run.version : BT_VERSION);
    incomplete_member(x, o, "comment");
    g_string_append_printf(o, "},\n  \"files\":[%s\n  ],\n  \"relationships\":[%s\n  ]\n}\n",
                           fo->str, ro->str);
    g_string_free(fo, TRUE);
    g_string_free(ro, TRUE);
    g_hash_table_destroy(files);
    g_array_unref(prods);
    return 0;
}

static void cdx_component_ref(GString *o, const struct prov_version *v)
{
    g_string_append_printf(o, "\"file-v%" PRId64 "\"", v->id);
}

static void cdx_add_component(struct export_ctx *x, GHashTable *seen, GString *co,
                              const struct prov_version *v)
{
    if (g_hash_table_contains(seen, &v->id))
        return;
    g_hash_table_add(seen, (gpointer)&v->id);
    char buf[4096];
    g_string_append(co, co->len ? ",\n    {\"type\":\"file\",\"bom-ref\":"
                                : "\n    {\"type\":\"file\",\"bom-ref\":");
    cdx_component_ref(co, v);
    g_string_append(co, ",\"name\":");
    const char *name = rel_or_abs(x, v->path, buf, sizeof buf);
    json_string(co, name, strlen(name));
    if (v->sha256[0])
        g_string_append_printf(co, ",\"hashes\":[{\"alg\":\"SHA-256\",\"content\":\"%s\"},"
                                   "{\"alg\":\"SHA-1\",\"content\":\"%s\"}]",
                               v->sha256, v->sha1);
    g_string_append_printf(co, ",\"properties\":[{\"name\":\"buildtrail:origin\",\"value\":\"%s\"},"
                               "{\"name\":\"buildtrail:gitoid\",\"value\":\"%s\"}]}",
                           v->origin == TRACEDB_VERSION_FOUND ? "found" : "built", v->git_sha1);
}

/* The versions process `pid` touched with one of `kinds` (an SQL list such as "(1,5)"),
 * successfully, as struct prov_version pointers (owned by the prov). */
static GPtrArray *versions_of(struct export_ctx *x, int64_t pid, const char *kinds)
{
    g_autofree char *sql = g_strdup_printf("SELECT DISTINCT version_id FROM accesses WHERE "
                                           "process_id = ?1 AND kind IN %s AND result = 0 AND "
                                           "version_id IS NOT NULL", kinds);
    GArray *ids = qdb_ids(x->q, sql, pid);
    GPtrArray *out = g_ptr_array_new();
    for (guint i = 0; i < ids->len; i++) {
        const struct prov_version *v = prov_version(x->p, g_array_index(ids, int64_t, i));
        if (v)
            g_ptr_array_add(out, (gpointer)v);
    }
    g_array_unref(ids);
    return out;
}

/* A task's inputs (the versions process `pid` read) or outputs (those it wrote), as
 * resource references; each becomes a component too. */
static void cdx_resources(struct export_ctx *x, GHashTable *seen, GString *co, GString *tasks,
                          int64_t pid, bool inputs)
{
    GPtrArray *versions = versions_of(x, pid, inputs ? TRACEDB_KINDS_READ : TRACEDB_KINDS_MADE);
    bool first = true;
    for (guint m = 0; m < versions->len; m++) {
        const struct prov_version *v = versions->pdata[m];
        cdx_add_component(x, seen, co, v);
        g_string_append(tasks, first ? "{\"resource\":{\"ref\":" : ",{\"resource\":{\"ref\":");
        cdx_component_ref(tasks, v);
        g_string_append(tasks, "}}");
        first = false;
    }
    g_ptr_array_free(versions, TRUE);
}

/* The processes that wrote a version (its tasks in a formulation). */
static GArray *writers(struct export_ctx *x, const struct prov_version *v)
{
    return qdb_ids(x->q, "SELECT DISTINCT process_id FROM accesses WHERE version_id = ?1 AND "
                         "kind IN " TRACEDB_KINDS_MADE " AND result = 0 AND process_id IS NOT NULL", v->id);
}

static int fmt_cyclonedx(struct export_ctx *x)
{
    GArray *prods = products(x);
    GHashTable *seen = g_hash_table_new(g_int64_hash, g_int64_equal);
    GString *co = g_string_new(NULL), *tasks = g_string_new(NULL);
    GHashTable *task_done = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    for (guint i = 0; i < prods->len; i++) {
        const struct prov_version *v = g_array_index(prods, const struct prov_version *, i);
        cdx_add_component(x, seen, co, v);
        GArray *leaves, *tools;
        product_inputs(x, v, &leaves, &tools);
        for (guint k = 0; k < leaves->len; k++)
            cdx_add_component(x, seen, co, g_array_index(leaves, const struct prov_version *, k));
        GArray *w = writers(x, v);
        for (guint k = 0; k < w->len; k++) {
            int64_t pid = g_array_index(w, int64_t, k);
            if (g_hash_table_contains(task_done, &pid))
                continue;
            int64_t *key = g_new(int64_t, 1);
            *key = pid;
            g_hash_table_add(task_done, key);
            const struct qdb_process *p = qdb_process(x->q, pid);
            g_string_append(tasks, tasks->len ? ",\n      {" : "\n      {");
            g_string_append_printf(tasks, "\"bom-ref\":\"task-p%" PRId64 "\",\"uid\":\"p%" PRId64 "\","
                                          "\"name\":", pid, pid);
            GString *nm = g_string_new(NULL);
            if (p && p->argv)
                text_argv(nm, p->argv, p->argv_len);
            else
                g_string_append(nm, "?");
            json_string(tasks, nm->str, nm->len);
            g_string_free(nm, TRUE);
            g_string_append(tasks, ",\"taskTypes\":[\"build\"],\"inputs\":[");
            cdx_resources(x, seen, co, tasks, pid, true);
            g_string_append(tasks, "],\"outputs\":[");
            cdx_resources(x, seen, co, tasks, pid, false);
            g_string_append(tasks, "]}");
        }
        g_array_unref(w);
        g_array_unref(leaves);
        g_array_unref(tools);
    }
    char created[32];
    iso_time(x, x->run.start_ns, created);
    g_autofree char *uid = trace_uid(x);
    g_autofree char *name = doc_name(x);
    GString *o = x->out;
    g_string_append_printf(o, "{\n  \"bomFormat\":\"CycloneDX\",\"specVersion\":\"1.6\","
                              "\"serialNumber\":\"urn:uuid:%.8s-%.4s-4%.3s-8%.3s-%.12s\","
                              "\"version\":1,\n  \"metadata\":{\"timestamp\":\"%s\","
                              "\"tools\":{\"components\":[{\"type\":\"application\","
                              "\"name\":\"buildtrail\",\"version\":\"%s\"}]},\"component\":"
                              "{\"type\":\"application\",\"bom-ref\":\"build\",\"name\":",
                           uid, uid + 8, uid + 12, uid + 15, uid + 18, created,
                           x->run.version ? x->run.version : BT_VERSION);
    json_string(o, name, strlen(name));
    g_string_append(o, "},\"properties\":[{\"name\":\"buildtrail:trace:state\",\"value\":");
    const struct qdb_run *run = qdb_run(x->q);
    const char *state = qdb_run_state_name(run->state);
    json_string(o, state, strlen(state));
    g_string_append_printf(o, "},{\"name\":\"buildtrail:trace:complete\",\"value\":\"%s\"}",
                           run->complete ? "true" : "false");
    if (run->incomplete) {
        g_string_append(o, ",{\"name\":\"buildtrail:trace:incomplete\",\"value\":");
        json_string(o, run->incomplete, strlen(run->incomplete));
        g_string_append_c(o, '}');
    }
    g_string_append_printf(o, "]},\n  \"components\":[%s\n  ],\n  \"formulation\":[{\"bom-ref\":"
                              "\"formula-1\",\"workflows\":[{\"bom-ref\":\"workflow-1\","
                              "\"uid\":\"%s\",\"name\":", co->str, uid);
    json_string(o, name, strlen(name));
    g_string_append_printf(o, ",\"taskTypes\":[\"build\"],\"tasks\":[%s\n    ]}]}]\n}\n",
                           tasks->str);
    g_string_free(co, TRUE);
    g_string_free(tasks, TRUE);
    g_hash_table_destroy(task_done);
    g_hash_table_destroy(seen);
    g_array_unref(prods);
    return 0;
}

static void intoto_descriptor(struct export_ctx *x, GString *o, const struct prov_version *v)
{
    char buf[4096];
    const char *name = rel_or_abs(x, v->path, buf, sizeof buf);
    g_string_append(o, "{\"name\":");
    json_string(o, name, strlen(name));
    g_string_append(o, ",\"digest\":{");
    if (v->sha256[0])
        g_string_append_printf(o, "\"sha256\":\"%s\",\"gitBlob\":\"%s\"", v->sha256, v->git_sha1);
    g_string_append(o, "}}");
}

/* in-toto Statement v1 with SLSA Provenance v1 (slsa) or the runtime-trace predicate (intoto). */
static int fmt_statement(struct export_ctx *x, bool slsa)
{
    GArray *prods = products(x);
    GArray *mats = materials(x);
    g_array_sort(mats, version_path_cmp);
    GString *o = x->out;
    g_string_append(o, "{\n  \"_type\":\"https://in-toto.io/Statement/v1\",\n  \"subject\":[");
    bool first = true;
    for (guint i = 0; i < prods->len; i++) {
        const struct prov_version *v = g_array_index(prods, const struct prov_version *, i);
        if (!v->sha256[0])
            continue;
        g_string_append(o, first ? "\n    " : ",\n    ");
        intoto_descriptor(x, o, v);
        first = false;
    }
    /* No end is invented: a run that has none (killed, still recording) gets no finish time. */
    char started[32], finished[32] = "";
    iso_time(x, x->run.start_ns, started);
    if (qdb_run(x->q)->end_realtime_ns)
        iso_time(x, x->run.end_ns, finished);
    g_autofree char *uid = trace_uid(x);
    if (slsa) {
        g_string_append(o, "\n  ],\n  \"predicateType\":\"https://slsa.dev/provenance/v1\",\n"
                           "  \"predicate\":{\n    \"buildDefinition\":{\"buildType\":"
                           "\"https://buildtrail.invalid/buildtypes/traced-command/v1\","
                           "\"externalParameters\":{\"command\":");
        json_argv(o, x->run.argv ? x->run.argv : "", x->run.argv_len);
        g_string_append(o, ",");
        json_key_string(o, "workingDirectory", x->run.cwd);
        g_string_append(o, "},\"internalParameters\":{");
        trace_state_members(x, o);
        g_string_append(o, "},\"resolvedDependencies\":[");
        for (guint i = 0; i < mats->len; i++) {
            g_string_append(o, i ? ",\n      " : "\n      ");
            intoto_descriptor(x, o, g_array_index(mats, const struct prov_version *, i));
        }
        g_string_append_printf(o, "]},\n    \"runDetails\":{\"builder\":{\"id\":"
                                  "\"https://buildtrail.invalid/builder/%s\"},\"metadata\":"
                                  "{\"invocationId\":\"%s\",\"startedOn\":\"%s\"",
                               x->run.hostname ? x->run.hostname : "unknown", uid, started);
        if (*finished)
            g_string_append_printf(o, ",\"finishedOn\":\"%s\"", finished);
        g_string_append(o, "},\"byproducts\":[{\"name\":\"build log\",\"mediaType\":"
                           "\"text/plain\"},{\"name\":\"buildtrail trace\",\"mediaType\":"
                           "\"application/vnd.sqlite3\"}]}\n  }\n}\n");
    } else {
        g_string_append(o, "\n  ],\n  \"predicateType\":\"https://in-toto.io/attestation/"
                           "runtime-trace/v0.1\",\n  \"predicate\":{\n    \"monitor\":{\"type\":"
                           "\"https://buildtrail.invalid/monitor/fuse/v1\",");
        trace_state_members(x, o);
        g_string_append(o, "},\n    \"monitoredProcess\":{");
        json_key_string(o, "hostID", x->run.hostname);
        g_string_append(o, ",\"type\":\"https://buildtrail.invalid/process/v1\",\"command\":");
        json_argv(o, x->run.argv ? x->run.argv : "", x->run.argv_len);
        g_string_append(o, "},\n    \"monitorLog\":{\"process\":[");
        qdb_load_all(x->q);
        GPtrArray *all = g_ptr_array_new();
        GHashTableIter it;
        gpointer v;
        g_hash_table_iter_init(&it, x->q->processes);
        while (g_hash_table_iter_next(&it, NULL, &v))
            g_ptr_array_add(all, v);
        g_ptr_array_sort(all, proc_id_cmp);
        for (guint i = 0; i < all->len; i++) {
            g_string_append(o, i ? ",\n      " : "\n      ");
            query_json_process(o, all->pdata[i]);
        }
        g_ptr_array_free(all, TRUE);
        g_string_append(o, "],\n      \"fileAccess\":[");
        sqlite3_stmt *st = NULL;
        if (qdb_prepare(x->q, "SELECT a.process_id, a.kind, f.path, a.version_id, "
                                         "a.result FROM accesses a JOIN files f ON f.id = "
                                         "a.file_id ORDER BY a.first_ns, a.id", &st)) {
            bool f1 = true;
            while (qdb_row(x->q, st)) {
                g_string_append(o, f1 ? "\n      {" : ",\n      {");
                f1 = false;
                g_string_append_printf(o, "\"process\":%" PRId64 ",\"access\":\"%s\",\"path\":",
                                       (int64_t)sqlite3_column_int64(st, 0),
                                       tracedb_access_kind_name(sqlite3_column_int(st, 1)));
                const char *path = (const char *)sqlite3_column_text(st, 2);
                json_string(o, path, strlen(path));
                const struct prov_version *ver =
                    sqlite3_column_int64(st, 3) ? prov_version(x->p, sqlite3_column_int64(st, 3))
                                                : NULL;
                if (ver && ver->sha256[0])
                    g_string_append_printf(o, ",\"digest\":{\"sha256\":\"%s\",\"gitBlob\":\"%s\"}",
                                           ver->sha256, ver->git_sha1);
                if (sqlite3_column_int(st, 4))
                    g_string_append_printf(o, ",\"errno\":%d", sqlite3_column_int(st, 4));
                g_string_append_c(o, '}');
            }
        }
        sqlite3_finalize(st);
        g_string_append_printf(o, "]\n    },\n    \"monitorStartTime\":\"%s\"", started);
        if (*finished)
            g_string_append_printf(o, ",\"monitorEndTime\":\"%s\"", finished);
        g_string_append(o, "\n  }\n}\n");
    }
    g_array_unref(prods);
    g_array_unref(mats);
    return 0;
}

static int fmt_intoto(struct export_ctx *x)
{
    return fmt_statement(x, false);
}

static int fmt_slsa(struct export_ctx *x)
{
    return fmt_statement(x, true);
}

/* ---- spdx3 (SPDX 3.0.1 JSON-LD, Core + Software + Build) --------------------------------- */

struct spdx3 {
    struct export_ctx *x;
    const char *base;       /* IRI prefix of this document's elements */
    GString *graph;         /* the elements, comma-separated */
    GString *ids;           /* every element's IRI, for SpdxDocument.element */
    GHashTable *files;      /* version ids already written */
    int n_rel;
};

static void s3_begin(struct spdx3 *d, const char *type, const char *iri)
{
    g_string_append(d->graph, ",\n  {\"type\":\"");
    g_string_append(d->graph, type);
    g_string_append(d->graph, "\",\"spdxId\":");
    json_string(d->graph, iri, strlen(iri));
    g_string_append(d->graph, ",\"creationInfo\":\"_:creation\"");
    g_string_append(d->ids, d->ids->len ? "," : "");
    json_string(d->ids, iri, strlen(iri));
}

static char *s3_file_iri(struct spdx3 *d, const struct prov_version *v)
{
    return g_strdup_printf("%sfile/v%" PRId64, d->base, v->id);
}

static void s3_file(struct spdx3 *d, const struct prov_version *v)
{
    if (g_hash_table_contains(d->files, &v->id))
        return;
    g_hash_table_add(d->files, (gpointer)&v->id);
    g_autofree char *iri = s3_file_iri(d, v);
    s3_begin(d, "software_File", iri);
    char buf[4096];
    const char *name = rel_or_abs(d->x, v->path, buf, sizeof buf);
    g_string_append(d->graph, ",\"name\":");
    json_string(d->graph, name, strlen(name));
    g_string_append(d->graph, ",\"software_fileKind\":\"file\"");
    if (v->sha256[0])
        g_string_append_printf(d->graph, ",\"verifiedUsing\":[{\"type\":\"Hash\",\"algorithm\":"
                                         "\"sha256\",\"hashValue\":\"%s\"},{\"type\":\"Hash\","
                                         "\"algorithm\":\"sha1\",\"hashValue\":\"%s\"}],"
                                         "\"software_contentIdentifier\":[{\"type\":"
                                         "\"software_ContentIdentifier\",\"software_contentIdentifierType\":"
                                         "\"swhid\",\"software_contentIdentifierValue\":"
                                         "\"swh:1:cnt:%s\"}]",
                               v->sha256, v->sha1, v->git_sha1);
    g_string_append(d->graph, "}");
}

static void s3_rel(struct spdx3 *d, const char *from, const char *type, GPtrArray *to)
{
    if (!to->len)
        return;
    g_autofree char *iri = g_strdup_printf("%srelationship/%d", d->base, ++d->n_rel);
    s3_begin(d, "Relationship", iri);
    g_string_append(d->graph, ",\"from\":");
    json_string(d->graph, from, strlen(from));
    g_string_append_printf(d->graph, ",\"relationshipType\":\"%s\",\"to\":[", type);
    for (guint i = 0; i < to->len; i++) {
        if (i)
            g_string_append_c(d->graph, ',');
        json_string(d->graph, to->pdata[i], strlen(to->pdata[i]));
    }
    g_string_append(d->graph, "]}");
}

/* The versions a process read (kinds 1) or wrote (2,3,4) or executed (5), as file IRIs. */
static GPtrArray *s3_files_of(struct spdx3 *d, int64_t pid, const char *kinds)
{
    GPtrArray *versions = versions_of(d->x, pid, kinds);
    GPtrArray *iris = g_ptr_array_new_with_free_func(g_free);
    for (guint i = 0; i < versions->len; i++) {
        s3_file(d, versions->pdata[i]);
        g_ptr_array_add(iris, s3_file_iri(d, versions->pdata[i]));
    }
    g_ptr_array_free(versions, TRUE);
    return iris;
}

static int fmt_spdx3(struct export_ctx *x)
{
    g_autofree char *uid = trace_uid(x);
    g_autofree char *base = g_strdup_printf("https://buildtrail.invalid/spdx3/%s/", uid);
    struct spdx3 d = {x, base, g_string_new(NULL), g_string_new(NULL),
                      g_hash_table_new(g_int64_hash, g_int64_equal), 0};
    char created[32];
    iso_time(x, x->run.start_ns, created);
    g_autofree char *agent = g_strdup_printf("%sagent", base);
    g_autofree char *tool = g_strdup_printf("%stool/buildtrail", base);
    s3_begin(&d, "SoftwareAgent", agent);
    g_string_append(d.graph, ",\"name\":");
    g_autofree char *who = g_strdup_printf("the user who ran buildtrail on %s",
                                           x->run.hostname ? x->run.hostname : "unknown");
    json_string(d.graph, who, strlen(who));
    g_string_append(d.graph, "}");
    s3_begin(&d, "Tool", tool);
    g_string_append_printf(d.graph, ",\"name\":\"buildtrail %s\"}",
                           x->run.version ? x->run.version : BT_VERSION);
    /* The builds: every process that wrote a product or a version in a product's closure. */
    GArray *prods = products(x);
    GHashTable *builds = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    GPtrArray *roots = g_ptr_array_new_with_free_func(g_free);
    static const struct prov_walk_opts walk = {.scripts = false};
    for (guint i = 0; i < prods->len; i++) {
        const struct prov_version *v = g_array_index(prods, const struct prov_version *, i);
        GArray *nodes = prov_inputs(x->p, v->id, &walk);
        struct prov_node self = {v, PROV_ROLE_OTHER, 0};
        g_array_append_val(nodes, self);
        for (guint k = 0; k < nodes->len; k++) {
            GArray *w = writers(x, g_array_index(nodes, struct prov_node, k).v);
            for (guint m = 0; m < w->len; m++) {
                int64_t pid = g_array_index(w, int64_t, m);
                if (g_hash_table_contains(builds, &pid))
                    continue;
                int64_t *key = g_new(int64_t, 1);
                *key = pid;
                g_hash_table_add(builds, key);
            }
            g_array_unref(w);
        }
        g_array_unref(nodes);
    }
    GList *pids = g_list_sort(g_hash_table_get_keys(builds), (GCompareFunc)proc_id_cmp_int64);
    for (GList *l = pids; l; l = l->next) {
        int64_t pid = *(int64_t *)l->data;
        const struct qdb_process *p = qdb_process(x->q, pid);
        if (!p)
            continue;
        g_autofree char *iri = g_strdup_printf("%sbuild/p%" PRId64, base, pid);
        s3_begin(&d, "build_Build", iri);
        g_string_append(d.graph, ",\"name\":");
        GString *nm = g_string_new(NULL);
        if (p->argv)
            text_argv(nm, p->argv, p->argv_len);
        json_string(d.graph, nm->str, nm->len);
        g_string_free(nm, TRUE);
        char start[32];
        iso_time(x, p->start_ns, start);
        g_string_append_printf(d.graph, ",\"build_buildType\":\"https://buildtrail.invalid/"
                                        "buildtypes/process/v1\",\"build_buildId\":\"p%" PRId64 "\","
                                        "\"build_buildStartTime\":\"%s\"", pid, start);
        if (p->exited) {
            char end[32];
            iso_time(x, p->end_ns, end);
            g_string_append_printf(d.graph, ",\"build_buildEndTime\":\"%s\"", end);
        }
        g_string_append(d.graph, "}");
        g_ptr_array_add(roots, g_strdup(iri));
        GPtrArray *in = s3_files_of(&d, pid, TRACEDB_KINDS_OPENED_READ),
                  *out = s3_files_of(&d, pid, TRACEDB_KINDS_MADE),
                  *tools = s3_files_of(&d, pid, TRACEDB_KINDS_EXEC);
        s3_rel(&d, iri, "hasInput", in);
        s3_rel(&d, iri, "hasOutput", out);
        s3_rel(&d, iri, "usesTool", tools);
        GPtrArray *by = g_ptr_array_new();
        g_ptr_array_add(by, agent);
        s3_rel(&d, iri, "invokedBy", by);
        g_ptr_array_free(by, TRUE);
        g_ptr_array_free(in, TRUE);
        g_ptr_array_free(out, TRUE);
        g_ptr_array_free(tools, TRUE);
    }
    g_list_free(pids);
    g_autofree char *doc = g_strdup_printf("%sdocument", base);
    g_autofree char *name = doc_name(x);
    GString *o = x->out;
    g_string_append(o, "{\"@context\":\"https://spdx.org/rdf/3.0.1/spdx-context.jsonld\",\n"
                       "\"@graph\":[\n  {\"type\":\"CreationInfo\",\"@id\":\"_:creation\","
                       "\"specVersion\":\"3.0.1\",");
    g_string_append_printf(o, "\"created\":\"%s\",\"createdBy\":[", created);
    json_string(o, agent, strlen(agent));
    g_string_append(o, "],\"createdUsing\":[");
    json_string(o, tool, strlen(tool));
    g_string_append(o, "]");
    incomplete_member(x, o, "comment");
    g_string_append(o, "},\n  {\"type\":\"SpdxDocument\",\"spdxId\":");
    json_string(o, doc, strlen(doc));
    g_string_append(o, ",\"creationInfo\":\"_:creation\",\"name\":");
    json_string(o, name, strlen(name));
    g_string_append(o, ",\"profileConformance\":[\"core\",\"software\",\"build\"],"
                       "\"rootElement\":[");
    for (guint i = 0; i < roots->len; i++) {
        if (i)
            g_string_append_c(o, ',');
        json_string(o, roots->pdata[i], strlen(roots->pdata[i]));
    }
    g_string_append_printf(o, "],\"element\":[%s]}%s\n]}\n", d.ids->str, d.graph->str);
    g_ptr_array_free(roots, TRUE);
    g_hash_table_destroy(builds);
    g_array_unref(prods);
    g_hash_table_destroy(d.files);
    g_string_free(d.graph, TRUE);
    g_string_free(d.ids, TRUE);
    return 0;
}

/* ---- prov (W3C PROV-JSON) ---------------------------------------------------------------- */

static int fmt_prov(struct export_ctx *x)
{
    GString *ent = g_string_new(NULL), *act = g_string_new(NULL), *used = g_string_new(NULL),
            *gen = g_string_new(NULL), *inf = g_string_new(NULL);
    GHashTable *ents = g_hash_table_new(g_int64_hash, g_int64_equal);
    GHashTable *acts = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    sqlite3_stmt *st = NULL;
    int n = 0;
    if (!qdb_prepare(x->q, "SELECT process_id, version_id, kind, MIN(first_ns), "
                                     "MAX(last_ns) FROM accesses WHERE version_id IS NOT NULL AND "
                                     "process_id IS NOT NULL AND result = 0 AND kind IN "
                                     TRACEDB_KINDS_USED " GROUP BY process_id, version_id, kind IN "
                                     TRACEDB_KINDS_READ " ORDER BY 4", &st)) {
        return 1; /* the error is kept in x->q: main reports it */
    }
    while (qdb_row(x->q, st)) {
        int64_t pid = sqlite3_column_int64(st, 0), vid = sqlite3_column_int64(st, 1);
        int kind = sqlite3_column_int(st, 2);
        const struct prov_version *v = prov_version(x->p, vid);
        const struct qdb_process *p = qdb_process(x->q, pid);
        if (!v || !p)
            continue;
        if (!g_hash_table_contains(ents, &v->id)) {
            g_hash_table_add(ents, (gpointer)&v->id);
            g_string_append_printf(ent, "%s\n    \"file:v%" PRId64 "\":{\"prov:label\":",
                                   ent->len ? "," : "", v->id);
            json_string(ent, v->path, strlen(v->path));
            g_string_append_printf(ent, ",\"bt:origin\":\"%s\"",
                                   v->origin == TRACEDB_VERSION_FOUND ? "found" : "built");
            if (v->sha256[0])
                g_string_append_printf(ent, ",\"bt:sha256\":\"%s\",\"bt:gitBlob\":\"%s\"",
                                       v->sha256, v->git_sha1);
            g_string_append_c(ent, '}');
        }
        if (!g_hash_table_contains(acts, &pid)) {
            int64_t *k = g_new(int64_t, 1);
            *k = pid;
            g_hash_table_add(acts, k);
            char start[32];
            iso_time(x, p->start_ns, start);
            g_string_append_printf(act, "%s\n    \"proc:p%" PRId64 "\":{\"prov:label\":",
                                   act->len ? "," : "", pid);
            GString *nm = g_string_new(NULL);
            if (p->argv)
                text_argv(nm, p->argv, p->argv_len);
            json_string(act, nm->str, nm->len);
            g_string_free(nm, TRUE);
            g_string_append_printf(act, ",\"prov:startTime\":\"%s\"", start);
            if (p->exited) {
                char end[32];
                iso_time(x, p->end_ns, end);
                g_string_append_printf(act, ",\"prov:endTime\":\"%s\"", end);
            }
            g_string_append_printf(act, ",\"bt:pid\":%d}", p->pid);
        }
        char when[32];
        bool read = kind == TRACEDB_READ || kind == TRACEDB_EXEC;
        iso_time(x, sqlite3_column_int64(st, read ? 3 : 4), when);
        GString *rel = read ? used : gen;
        g_string_append_printf(rel, "%s\n    \"_:%s%d\":{\"prov:%s\":\"proc:p%" PRId64 "\","
                                    "\"prov:entity\":\"file:v%" PRId64 "\",\"prov:time\":\"%s\"}",
                               rel->len ? "," : "", read ? "u" : "g", ++n,
                               "activity", pid, v->id, when);
    }
    sqlite3_finalize(st);
    /* Process tree among the activities: a child was informed by the process that started it. */
    GHashTableIter it;
    gpointer key;
    g_hash_table_iter_init(&it, acts);
    while (g_hash_table_iter_next(&it, &key, NULL)) {
        int64_t id = *(int64_t *)key, up = nearest_ancestor_in(x, id, acts);
        if (up)
            g_string_append_printf(inf, "%s\n    \"_:i%d\":{\"prov:informed\":\"proc:p%" PRId64
                                        "\",\"prov:informant\":\"proc:p%" PRId64 "\"}",
                                   inf->len ? "," : "", ++n, id, up);
    }
    g_autofree char *uid = trace_uid(x);
    g_string_append_printf(x->out, "{\n  \"prefix\":{\"bt\":\"https://buildtrail.invalid/ns#\","
                                   "\"file\":\"https://buildtrail.invalid/trace/%s/version/\","
                                   "\"proc\":\"https://buildtrail.invalid/trace/%s/process/\"},\n"
                                   "  \"entity\":{%s},\n  \"activity\":{%s},\n  \"used\":{%s},\n"
                                   "  \"wasGeneratedBy\":{%s},\n  \"wasInformedBy\":{%s}\n}\n",
                           uid, uid, ent->str, act->str, used->str, gen->str, inf->str);
    g_hash_table_destroy(ents);
    g_hash_table_destroy(acts);
    g_string_free(ent, TRUE);
    g_string_free(act, TRUE);
    g_string_free(used, TRUE);
    g_string_free(gen, TRUE);
    g_string_free(inf, TRUE);
    return 0;
}

/* ---- sql (PostgreSQL) -------------------------------------------------------------------- */

/* One table of the dump: the SQLite query (its first column is always the trace key, added
 * here) and the PostgreSQL columns, in the same order.  Column types: b = bytea (paths, argv,
 * hashes: raw bytes, never re-encoded), t = text (our own ASCII words), i = integer/bigint. */
static const struct sql_table {
    const char *name, *select, *columns, *types;
} sql_tables[] = {
    {"bt_processes",
     "SELECT id, pid, start_ticks, exec_seq, parent_id, prev_image_id, orphan, start_ns, "
     "first_seen_ns, comm, exe, cwd, argv FROM processes ORDER BY id",
     "id bigint, pid integer, start_ticks bigint, exec_seq integer, parent_id bigint, "
     "prev_image_id bigint, orphan integer, start_ns bigint, first_seen_ns bigint, comm bytea, "
     "exe bytea, cwd bytea, argv bytea, PRIMARY KEY (trace, id)",
     "iiiiiiiiibbbb"},
    {"bt_exits", "SELECT process_id, end_ns, exit_code, exit_signal FROM exits ORDER BY 1",
     "process_id bigint, end_ns bigint, exit_code integer, exit_signal integer, "
     "PRIMARY KEY (trace, process_id)", "iiii"},
    {"bt_files", "SELECT id, path FROM files ORDER BY id",
     "id bigint, path bytea, PRIMARY KEY (trace, id)", "ib"},
    {"bt_versions",
     "SELECT id, file_id, origin, base_id, begin_ns, end_ns, size, sha256, sha1, git_sha1, "
     "hash_error FROM versions ORDER BY id",
     "id bigint, file_id bigint, origin smallint, base_id bigint, begin_ns bigint, "
     "end_ns bigint, size bigint, sha256 bytea, sha1 bytea, git_sha1 bytea, hash_error integer, "
     "PRIMARY KEY (trace, id)", "iiiiiiibbbi"},
    {"bt_accesses",
     "SELECT a.id, a.process_id, a.file_id, k.name, a.open_flags, a.bytes, a.first_ns, a.last_ns, "
     "a.result, a.version_id FROM accesses a LEFT JOIN access_kinds k ON k.code = a.kind "
     "ORDER BY a.id",
     "id bigint, process_id bigint, file_id bigint, kind text, open_flags integer, bytes bigint, "
     "first_ns bigint, last_ns bigint, result integer, version_id bigint, "
     "PRIMARY KEY (trace, id)", "iiitiiiiii"},
    {"bt_output", "SELECT seq, process_id, stream, time_ns, data FROM output ORDER BY seq",
     "seq bigint, process_id bigint, stream smallint, time_ns bigint, data bytea, "
     "PRIMARY KEY (trace, seq)", "iiiib"},
};

static void sql_bytea(GString *o, const void *data, int n)
{
    static const char hex[] = "0123456789abcdef";
    g_string_append(o, "'\\x");
    const unsigned char *b = data;
    for (int i = 0; i < n; i++) {
        g_string_append_c(o, hex[b[i] >> 4]);
        g_string_append_c(o, hex[b[i] & 15]);
    }
    g_string_append_c(o, '\'');
}

static void sql_text(GString *o, const char *s)
{
    g_string_append_c(o, '\'');
    for (const char *c = s; *c; c++) {
        if (*c == '\'')
            g_string_append_c(o, '\'');
        g_string_append_c(o, *c);
    }
    g_string_append_c(o, '\'');
}

static int fmt_sql(struct export_ctx *x)
{
    GString *o = x->out;
    g_autofree char *uid = trace_uid(x);
    char started[32];
    iso_time(x, x->run.start_ns, started);
    g_string_append_printf(o, "-- buildtrail trace %s (schema %d), for PostgreSQL.\n"
                              "-- Load any number of traces into one database: every row is keyed "
                              "by its trace; loading a trace again replaces it.\n"
                              "BEGIN;\nSET standard_conforming_strings = on;\nSET client_min_messages = warning;\n"
                              "CREATE TABLE IF NOT EXISTS bt_traces (trace text PRIMARY KEY, "
                              "command bytea, cwd bytea, host text, started timestamptz, "
                              "start_ns bigint, end_ns bigint, exit_status integer, state text, "
                              "buildtrail_version text);\n", uid, x->q->schema_version);
    for (size_t t = 0; t < G_N_ELEMENTS(sql_tables); t++)
        g_string_append_printf(o, "CREATE TABLE IF NOT EXISTS %s (trace text NOT NULL REFERENCES "
                                  "bt_traces (trace) ON DELETE CASCADE, %s);\n",
                               sql_tables[t].name, sql_tables[t].columns);
    g_string_append(o, "CREATE INDEX IF NOT EXISTS bt_versions_sha256 ON bt_versions (sha256);\n"
                       "CREATE INDEX IF NOT EXISTS bt_files_path ON bt_files (path);\n"
                       "CREATE INDEX IF NOT EXISTS bt_accesses_version ON bt_accesses "
                       "(trace, version_id);\n");
    g_string_append(o, "DELETE FROM bt_traces WHERE trace = ");
    sql_text(o, uid);
    g_string_append(o, ";\nINSERT INTO bt_traces VALUES (");
    sql_text(o, uid);
    g_string_append_c(o, ',');
    sql_bytea(o, x->run.argv ? x->run.argv : "", (int)x->run.argv_len);
    g_string_append_c(o, ',');
    sql_bytea(o, x->run.cwd, (int)strlen(x->run.cwd));
    g_string_append_c(o, ',');
    sql_text(o, x->run.hostname ? x->run.hostname : "");
    g_string_append_printf(o, ",'%s',%" PRId64 ",%" PRId64 ",", started, x->run.start_ns,
                           x->run.end_ns);
    if (x->run.exit_status >= 0)
        g_string_append_printf(o, "%d,", x->run.exit_status);
    else
        g_string_append(o, "NULL,");
    sql_text(o, x->run.state ? x->run.state : "");
    g_string_append_c(o, ',');
    sql_text(o, x->run.version ? x->run.version : "");
    g_string_append(o, ");\n");
    for (size_t t = 0; t < G_N_ELEMENTS(sql_tables); t++) {
        const struct sql_table *tab = &sql_tables[t];
        sqlite3_stmt *st = NULL;
        if (!qdb_prepare(x->q, tab->select, &st)) {
            return 1; /* the error is kept in x->q: main reports it */
        }
        int rows = 0;
        while (qdb_row(x->q, st)) {
            /* Batches of 500 rows per INSERT: fast to load, and no statement grows unbounded. */
            if (rows % 500)
                g_string_append(o, ",\n(");
            else
                g_string_append_printf(o, "%sINSERT INTO %s VALUES\n(", rows ? ";\n" : "",
                                       tab->name);
            sql_text(o, uid);
            for (int c = 0; tab->types[c]; c++) {
                g_string_append_c(o, ',');
                if (sqlite3_column_type(st, c) == SQLITE_NULL) {
                    g_string_append(o, "NULL");
                } else if (tab->types[c] == 'i') {
                    g_string_append_printf(o, "%" PRId64, (int64_t)sqlite3_column_int64(st, c));
                } else if (tab->types[c] == 't') {
                    sql_text(o, (const char *)sqlite3_column_text(st, c));
                } else {
                    const void *b = sqlite3_column_blob(st, c);
                    sql_bytea(o, b ? b : "", sqlite3_column_bytes(st, c));
                }
            }
            g_string_append_c(o, ')');
            rows++;
        }
        if (rows)
            g_string_append(o, ";\n");
        sqlite3_finalize(st);
    }
    g_string_append(o, "COMMIT;\n");
    return 0;
}

/* ---- the command ------------------------------------------------------------------------- */

static const struct format {
    const char *name;
    int (*write)(struct export_ctx *x);
    const char *what;
    bool attestation; /* a claim about the whole build: refused on an incomplete trace */
} formats[] = {
    {"compile-commands", fmt_compile_commands,
     "clang's JSON compilation database (like Bear's): one entry per compiled file"},
    {"dot", fmt_dot, "the provenance graph for Graphviz (processes, file versions, read/wrote)"},
    {"prov", fmt_prov, "W3C PROV-JSON: file versions as entities, processes as activities"},
    {"chrome-trace", fmt_chrome_trace,
     "the build timeline (Trace Event JSON, for Perfetto / chrome://tracing)"},
    {"spdx", fmt_spdx, "SPDX 2.3 JSON: built files GENERATED_FROM their sources, with hashes", true},
    {"spdx3", fmt_spdx3, "SPDX 3.0.1 JSON-LD, Build profile: a build_Build per writing process", true},
    {"cyclonedx", fmt_cyclonedx, "CycloneDX 1.6 JSON with the build as a formulation", true},
    {"intoto", fmt_intoto, "in-toto Statement v1, runtime-trace predicate (every file access)", true},
    {"slsa", fmt_slsa, "in-toto Statement v1, SLSA Provenance v1 predicate (unsigned)", true},
    {"sql", fmt_sql, "a PostgreSQL dump; many traces load into one database"},
};

static void list_formats(void)
{
    fputs("\nFormats:\n", stdout);
    for (size_t i = 0; i < G_N_ELEMENTS(formats); i++)
        printf("  %-17s %s\n", formats[i].name, formats[i].what);
}

struct export_cli {
    const char *format, *output;
    GPtrArray *collapse;
    struct export_ctx *x;
};

static int export_option(void *ctx, int c, const char *arg)
{
    struct export_cli *o = ctx;
    switch (c) {
    case 'f': o->format = arg; return 0;
    case 'o': o->output = arg; return 0;
    case 'L': o->x->with_links = true; return 0;
    case 'C': o->x->closure_of = arg; return 0;
    case 'D': {
        char *end;
        long n = strtol(arg, &end, 10);
        if (*end || n < 1 || n > 1000000) {
            fprintf(stderr, "buildtrail export: --depth '%s' is not a positive number\n", arg);
            return 2;
        }
        o->x->depth = (int)n;
        return 0;
    }
    case 'c':
        g_ptr_array_add(o->collapse, qdb_absolute_path(arg));
        return 0;
    }
    return 2;
}

static const struct option export_options[] = {
    {"format", required_argument, NULL, 'f'},
    {"output", required_argument, NULL, 'o'},
    {"with-links", no_argument, NULL, 'L'},
    {"closure-of", required_argument, NULL, 'C'},
    {"depth", required_argument, NULL, 'D'},
    {"collapse", required_argument, NULL, 'c'},
    {0}};

static const struct query_command export_command = {
    .name = "export",
    .operands = "",
    .about = "Write the trace in a format other tools read (docs/exports.md has each mapping).\n",
    .more_about = list_formats,
    .options_help = "  -f, --format FORMAT   one of the above (required)\n"
                    "  -o, --output FILE     write to FILE (default: standard output)\n"
                    "      --with-links      compile-commands: add link steps too\n"
                    "      --closure-of PATH dot: only PATH and what it was made from\n"
                    "      --depth N         dot: with --closure-of, at most N steps back\n"
                    "      --collapse DIR    dot: draw files under DIR as one node (repeatable),\n"
                    "                        e.g. --collapse /usr for system headers and toolchain\n"
                    "                        spdx, spdx3, cyclonedx, intoto and slsa refuse an\n"
                    "                        incomplete trace without --allow-incomplete\n",
    .options = export_options,
    .shortopts = "f:o:",
    .flags = QUERY_NO_JSON | QUERY_ALLOW_INCOMPLETE,
    .option = export_option,
};

int query_export_main(int argc, char **argv)
{
    struct query_opts o = {0};
    struct export_ctx x = {0};
    struct export_cli cli = {.collapse = g_ptr_array_new_with_free_func(g_free), .x = &x};
    GPtrArray *collapse = cli.collapse;
    int r = query_parse(&export_command, argc, argv, &o, &cli);
    if (r >= 0) {
        g_ptr_array_free(collapse, TRUE);
        return r;
    }
    const char *db_path = o.db_path, *format = cli.format, *output = cli.output;
    bool allow_incomplete = o.allow_incomplete;
    const struct format *fmt = NULL;
    for (size_t i = 0; format && i < G_N_ELEMENTS(formats); i++)
        if (!strcmp(format, formats[i].name))
            fmt = &formats[i];
    if (!fmt || optind < argc) {
        if (optind < argc)
            fprintf(stderr, "buildtrail export: unexpected argument '%s'; see 'buildtrail export "
                            "--help'\n", argv[optind]);
        else
            fprintf(stderr, "buildtrail export: %s%s%s; choose one with --format (see 'buildtrail "
                            "export --help' for the list)\n",
                    format ? "'" : "no format given", format ? format : "",
                    format ? "' is not a format" : "");
        g_ptr_array_free(collapse, TRUE);
        return 2;
    }
    g_ptr_array_add(collapse, NULL);
    x.collapse = (char **)collapse->pdata;
    x.q = query_open_for("export", db_path, fmt->attestation && !allow_incomplete
                                                ? QUERY_COMPLETE_TRACE
                                                : QUERY_ANY_TRACE);
    if (!x.q) {
        g_ptr_array_free(collapse, TRUE);
        return 1;
    }
    x.p = query_open_prov("export", x.q);
    if (!x.p) {
        qdb_close(x.q);
        g_ptr_array_free(collapse, TRUE);
        return 1;
    }
    load_run(&x);
    x.out = g_string_new(NULL);
    int status = fmt->write(&x);
    if (query_failed(x.q)) {
        status = 1;
    } else if (status == 0) {
        if (output) {
            int e = outfile_write(output, x.out->str, x.out->len);
            if (e < 0) {
                fprintf(stderr, "buildtrail export: cannot write %s: %s; give a writable path "
                                "to -o\n", output, g_strerror(-e));
                status = 1;
            }
        } else if (query_emit(x.q, x.out)) {
            status = 1;
        }
    }
    g_string_free(x.out, TRUE);
    free_run(&x.run);
    prov_free(x.p);
    qdb_close(x.q);
    g_ptr_array_free(collapse, TRUE);
    return status;
}
