/* chrome-trace: the build timeline as Trace Event JSON (docs/exports.md). */
#include "export.h"

#include "filekind.h"
#include "progkind.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
    if (qdb_prepare(x->q, tracedb_sql(TQ_LAST_ACTIVITY), &st)) {
        qdb_bind_int64(x->q, st, 1, id);
        if (qdb_row(x->q, st))
            t = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    return t;
}

int fmt_chrome_trace(struct export_ctx *x)
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
    ex_json_key_string(o, "tool", "buildtrail");
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
    sqlite3_stmt *st = NULL; /* the paths each task wrote: prepared once */
    qdb_prepare(x->q, tracedb_sql(TQ_PATHS_WRITTEN_BY_PROCESS), &st);
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
            ex_json_key_string(o, "cwd", p->cwd);
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
        GArray *ids = qdb_ids(x->q, tracedb_sql(TQ_READ_COUNT_OF_PROCESS), p->id);
        g_string_append_printf(o, ",\"files_read\":%" PRId64,
                               ids->len ? g_array_index(ids, int64_t, 0) : 0);
        g_array_unref(ids);
        g_string_append(o, ",\"files_written\":[");
        if (st) {
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
        g_string_append(o, "]}}");
        ex_flush(x);
    }
    sqlite3_finalize(st);
    g_string_append(o, "\n]}\n");
    g_array_free(lane_end, TRUE);
    g_array_free(tasks, TRUE);
    return 0;
}
