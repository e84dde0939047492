/* buildtime: the trace as the build's timeline (buildtime.h). */
#include "buildtime.h"

#include "progkind.h"
#include "stmt.h"

#include <stdlib.h>
#include <string.h>

/* What each task read that another had finished writing: a read (or exec) bound to a
 * version, joined with the writes that made the version (accesses_version index). */
TRACEDB_STATEMENT(sql_file_deps, 3, TRACEDB_SCHEMA_VERSION,
                  "SELECT r.process_id, r.file_id, w.process_id, MAX(w.last_ns)"
                  " FROM accesses r JOIN accesses w"
                  " ON w.version_id = r.version_id AND w.kind IN " TRACEDB_KINDS_MADE
                  " WHERE r.version_id IS NOT NULL AND r.kind IN " TRACEDB_KINDS_READ
                  " AND r.result = 0 AND w.result = 0 AND r.process_id IS NOT NULL"
                  " AND w.process_id IS NOT NULL AND w.process_id <> r.process_id"
                  " GROUP BY r.process_id, r.file_id, w.process_id");
enum { DEPS_READER, DEPS_FILE, DEPS_WRITER, DEPS_READY };


static gint by_start(gconstpointer a, gconstpointer b)
{
    const struct bt_task *x = a, *y = b;
    if (x->first->start_ns != y->first->start_ns)
        return (x->first->start_ns > y->first->start_ns) - (x->first->start_ns < y->first->start_ns);
    return (x->first->id > y->first->id) - (x->first->id < y->first->id);
}

bool buildtime_wrote_path(int kind, int64_t bytes)
{
    switch (kind) {
    case TRACEDB_WRITE:
        return bytes > 0;
    case TRACEDB_CREATE: case TRACEDB_TRUNCATE: case TRACEDB_RENAME_TO:
        return true;
    default:
        return false;
    }
}

gssize buildtime_task_index(const struct buildtime *bt, int64_t image_id)
{
    gpointer v = g_hash_table_lookup(bt->task_of, &image_id);
    return v ? (gssize)GPOINTER_TO_SIZE(v) - 1 : -1;
}

/* The 'j' of a cluster of short options ("-kj4"), or NULL: the cluster ends at an option that
 * takes an argument, the rest being that (the 'j' of "-Cjson-c" is the directory's). */
static const char *short_option_j(const char *a)
{
    for (const char *c = a + 1; *c; c++) {
        if (*c == 'j')
            return c;
        if (strchr("CfIoWlOE", *c))
            return NULL;
    }
    return NULL;
}

int buildtime_jobs_in_argv(const char *argv, size_t len)
{
    int jobs = 0;
    const char *end = argv + len;
    for (const char *a = argv; a < end; a += strlen(a) + 1) {
        const char *n = NULL;
        const char *mf = strncmp(a, "MAKEFLAGS=", 10) ? NULL : a + 10;
        if (!strncmp(a, "--jobs=", 7))
            n = a + 7;
        else if (!strcmp(a, "-j") || !strcmp(a, "--jobs")) {
            const char *next = a + strlen(a) + 1;
            n = next < end && *next >= '0' && *next <= '9' ? next : "";
        } else if (a[0] == '-' && a[1] != '-' && short_option_j(a))
            n = short_option_j(a) + 1; /* -j4, -kj4 */
        else if (mf && strstr(mf, "-j"))
            n = strstr(mf, "-j") + 2;
        if (!n)
            continue;
        if (*n < '0' || *n > '9')
            return -1;
        long v = strtol(n, NULL, 10);
        jobs = MAX(jobs, (int)MIN(v, 1 << 20));
    }
    return jobs;
}

/* Tasks: images that are not an exec of another, followed along their exec chain, by start;
 * task_of maps every image of a task to its index + 1. */
static void load_tasks(struct qdb *q, struct buildtime *bt)
{
    GHashTable *next_image = g_hash_table_new(g_int64_hash, g_int64_equal);
    GHashTableIter it;
    gpointer v;
    g_hash_table_iter_init(&it, q->processes);
    while (g_hash_table_iter_next(&it, NULL, &v)) {
        const struct qdb_process *p = v;
        if (p->prev_image_id && qdb_process(q, p->prev_image_id))
            g_hash_table_insert(next_image, (gpointer)&p->prev_image_id, v);
    }
    g_hash_table_iter_init(&it, q->processes);
    while (g_hash_table_iter_next(&it, NULL, &v)) {
        const struct qdb_process *p = v;
        if (p->prev_image_id && qdb_process(q, p->prev_image_id))
            continue;
        struct bt_task t = {.first = p, .last = p};
        const struct qdb_process *n;
        /* qdb clears links that go forward in time, so the chain ends */
        while ((n = g_hash_table_lookup(next_image, &t.last->id)) && n->id > t.last->id)
            t.last = n;
        g_array_append_val(bt->info, t);
    }
    g_hash_table_destroy(next_image);
    g_array_sort(bt->info, by_start);
    for (guint i = 0; i < bt->info->len; i++) {
        const struct bt_task *t = &g_array_index(bt->info, struct bt_task, i);
        for (const struct qdb_process *img = t->last; img;
             img = img != t->first && img->prev_image_id ? qdb_process(q, img->prev_image_id)
                                                         : NULL)
            g_hash_table_insert(bt->task_of, (gpointer)&img->id, GSIZE_TO_POINTER(i + 1));
    }
}

/* When each task was last seen doing something (seen[k]), how many files it read, and the
 * files it wrote as {task, file} pairs. */
static GArray *load_activity(struct qdb *q, struct buildtime *bt, int64_t *seen)
{
    GArray *writes = g_array_new(FALSE, FALSE, sizeof(int64_t) * 2); /* {task, file} */
    sqlite3_stmt *st = NULL;
    if (qdb_prepare(q, tracedb_sql(TQ_ACTIVITY), &st))
        while (qdb_row(q, st)) {
            gssize k = buildtime_task_index(bt, sqlite3_column_int64(st, TQ_ACTIVITY_PROCESS));
            if (k < 0)
                continue;
            seen[k] = MAX(seen[k], sqlite3_column_int64(st, TQ_ACTIVITY_LAST));
            if (sqlite3_column_int64(st, TQ_ACTIVITY_RESULT) != 0)
                continue;
            int kind = sqlite3_column_int(st, TQ_ACTIVITY_KIND);
            struct bt_task *t = &g_array_index(bt->info, struct bt_task, k);
            if (kind == TRACEDB_READ || kind == TRACEDB_EXEC)
                t->reads++;
            if (buildtime_wrote_path(kind, sqlite3_column_int64(st, TQ_ACTIVITY_BYTES))) {
                int64_t pair[2] = {k, sqlite3_column_int64(st, TQ_ACTIVITY_FILE)};
                g_array_append_val(writes, pair);
            }
        }
    sqlite3_finalize(st);
    st = NULL;
    if (qdb_prepare(q, tracedb_sql(TQ_LAST_OUTPUT), &st))
        while (qdb_row(q, st)) {
            gssize k = buildtime_task_index(bt, sqlite3_column_int64(st, TQ_LAST_OUTPUT_PROCESS));
            if (k >= 0)
                seen[k] = MAX(seen[k], sqlite3_column_int64(st, TQ_LAST_OUTPUT_TIME));
        }
    sqlite3_finalize(st);
    return writes;
}

/* The written files, each once per task, grouped by task (a counting sort): bt->wfile and
 * each task's [wstart, wend); `writes` is freed. */
static void group_writes(struct buildtime *bt, GArray *writes)
{
    guint n = bt->info->len;
    guint *count = g_new0(guint, n + 1);
    GHashTable *once = g_hash_table_new_full(g_bytes_hash, g_bytes_equal,
                                             (GDestroyNotify)g_bytes_unref, NULL);
    GArray *uniq = g_array_new(FALSE, FALSE, sizeof(int64_t) * 2);
    for (guint i = 0; i < writes->len; i++) {
        const int64_t *pair = (const int64_t *)(void *)(writes->data + (gsize)i * 2 * sizeof(int64_t));
        GBytes *key = g_bytes_new(pair, 2 * sizeof(int64_t));
        if (!g_hash_table_contains(once, key)) {
            g_hash_table_add(once, key);
            g_array_append_vals(uniq, pair, 1);
            count[pair[0] + 1]++;
        } else
            g_bytes_unref(key);
    }
    g_hash_table_destroy(once);
    for (guint i = 0; i < n; i++)
        count[i + 1] += count[i];
    g_array_set_size(bt->wfile, uniq->len);
    guint *fill = g_memdup2(count, sizeof(guint) * (n + 1));
    for (guint i = 0; i < uniq->len; i++) {
        const int64_t *pair = (const int64_t *)(void *)(uniq->data + (gsize)i * 2 * sizeof(int64_t));
        g_array_index(bt->wfile, int64_t, fill[pair[0]]++) = pair[1];
    }
    for (guint i = 0; i < n; i++) {
        struct bt_task *t = &g_array_index(bt->info, struct bt_task, i);
        t->wstart = count[i];
        t->wend = count[i + 1];
    }
    g_free(fill);
    g_free(count);
    g_array_free(uniq, TRUE);
    g_array_free(writes, TRUE);
}

/* The tasks for critpath: ends from exits, else what was seen, children after; the -j the
 * build's drivers allowed. */
static void make_cp_tasks(struct qdb *q, struct buildtime *bt, const int64_t *seen)
{
    guint n = bt->info->len;
    bt->jobs_allowed = 0;
    for (guint i = 0; i < n; i++) {
        struct bt_task *t = &g_array_index(bt->info, struct bt_task, i);
        const struct qdb_process *par = t->first->parent_id ? qdb_process(q, t->first->parent_id)
                                                            : NULL;
        gssize pk = par ? buildtime_task_index(bt, par->id) : -1;
        struct cp_task c = {.id = t->first->id,
                            .parent = pk >= 0 ? g_array_index(bt->info, struct bt_task, pk).first->id : 0,
                            .start_ns = t->first->start_ns};
        t->end_known = t->last->exited && t->last->end_ns >= c.start_ns;
        c.end_ns = t->end_known ? t->last->end_ns : MAX(seen[i], c.start_ns);
        g_array_append_val(bt->tasks, c);
        for (const struct qdb_process *img = t->last; img;
             img = img != t->first && img->prev_image_id ? qdb_process(q, img->prev_image_id)
                                                         : NULL) {
            const char *prog = qdb_process_program(img);
            if (prog && progkind_is_build_driver(prog) && img->argv) {
                int j = buildtime_jobs_in_argv(img->argv, img->argv_len);
                if (j < 0 || bt->jobs_allowed < 0)
                    bt->jobs_allowed = -1;
                else
                    bt->jobs_allowed = MAX(bt->jobs_allowed, j);
            }
        }
    }
    /* A task whose end is unknown ends no earlier than its children (latest start first:
     * children start after their parent, so one pass from the end covers grandchildren). */
    for (guint i = n; i > 0; i--) {
        const struct cp_task *c = &g_array_index(bt->tasks, struct cp_task, i - 1);
        if (!c->parent)
            continue;
        gssize pk = buildtime_task_index(bt, c->parent);
        if (pk < 0 || pk >= (gssize)i - 1)
            continue;
        struct cp_task *p = &g_array_index(bt->tasks, struct cp_task, pk);
        if (!g_array_index(bt->info, struct bt_task, pk).end_known)
            p->end_ns = MAX(p->end_ns, c->end_ns);
    }
}

/* Which task read a file another wrote, and when it was ready (schema 3 on). */
static void load_file_deps(struct qdb *q, struct buildtime *bt)
{
    sqlite3_stmt *st = NULL;
    if (q->schema_version >= 3 && qdb_prepare(q, sql_file_deps, &st)) {
        while (qdb_row(q, st)) {
            gssize r = buildtime_task_index(bt, sqlite3_column_int64(st, DEPS_READER));
            gssize w = buildtime_task_index(bt, sqlite3_column_int64(st, DEPS_WRITER));
            if (r < 0 || w < 0 || r == w)
                continue;
            struct cp_dep d = {g_array_index(bt->tasks, struct cp_task, r).id,
                               g_array_index(bt->tasks, struct cp_task, w).id,
                               sqlite3_column_int64(st, DEPS_FILE),
                               sqlite3_column_int64(st, DEPS_READY)};
            g_array_append_val(bt->deps, d);
        }
        sqlite3_finalize(st);
    }
}

void buildtime_load(struct qdb *q, struct buildtime *bt)
{
    memset(bt, 0, sizeof *bt);
    bt->tasks = g_array_new(FALSE, FALSE, sizeof(struct cp_task));
    bt->info = g_array_new(FALSE, FALSE, sizeof(struct bt_task));
    bt->deps = g_array_new(FALSE, FALSE, sizeof(struct cp_dep));
    bt->wfile = g_array_new(FALSE, FALSE, sizeof(int64_t));
    bt->task_of = g_hash_table_new(g_int64_hash, g_int64_equal);
    qdb_load_all(q);
    load_tasks(q, bt);
    guint n = bt->info->len;
    int64_t *seen = g_new0(int64_t, n ? n : 1);
    GArray *writes = load_activity(q, bt, seen);
    group_writes(bt, writes);
    make_cp_tasks(q, bt, seen);
    g_free(seen);
    load_file_deps(q, bt);
    /* from the build's command, not an orphan that outlived it */
    gssize root = buildtime_task_index(bt, qdb_run(q)->root_id);
    critpath_compute_from((const struct cp_task *)(void *)bt->tasks->data, bt->tasks->len,
                          (const struct cp_dep *)(void *)bt->deps->data, bt->deps->len,
                          root >= 0 ? g_array_index(bt->tasks, struct cp_task, root).id : 0,
                          &bt->cp);
    bt->run_start_ns = bt->cp.start_ns;
    bt->run_end_ns = bt->cp.end_ns;
}

void buildtime_clear(struct buildtime *bt)
{
    if (bt->tasks)
        g_array_free(bt->tasks, TRUE);
    if (bt->info)
        g_array_free(bt->info, TRUE);
    if (bt->deps)
        g_array_free(bt->deps, TRUE);
    if (bt->wfile)
        g_array_free(bt->wfile, TRUE);
    if (bt->task_of)
        g_hash_table_destroy(bt->task_of);
    critpath_clear(&bt->cp);
    memset(bt, 0, sizeof *bt);
}
