/* chrome-trace: the build timeline as Trace Event JSON (docs/exports.md). */
#include "export.h"
#include "jsonw.h"

#include "buildtime.h"
#include "filekind.h"
#include "progkind.h"
#include "stmt.h"

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

/* What each process did, from one scan of the accesses and one of the output (a query per
 * process is ~30 us, seconds for a 100 000-process build). */
struct activity {
    int64_t max_process;
    int64_t *last_ns;  /* [process]: the last time the trace saw it do anything; 0 never */
    int64_t *reads;    /* [process]: its successful reads and execs */
    uint32_t *wstart;  /* [process]: its written files are wfile[wstart[p] .. wstart[p + 1]) */
    int64_t *wfile;    /* file ids, each process's in trace order */
};

/* A binary min-heap of lanes in a GArray, by key then lane number. */
struct lane {
    int64_t key;
    guint lane;
};

static bool lane_less(const struct lane *a, const struct lane *b)
{
    return a->key < b->key || (a->key == b->key && a->lane < b->lane);
}

static void heap_push(GArray *h, struct lane v)
{
    g_array_append_val(h, v);
    struct lane *a = (struct lane *)(void *)h->data;
    for (guint i = h->len - 1; i > 0 && lane_less(&a[i], &a[(i - 1) / 2]); i = (i - 1) / 2) {
        struct lane t = a[i];
        a[i] = a[(i - 1) / 2];
        a[(i - 1) / 2] = t;
    }
}

static struct lane heap_pop(GArray *h)
{
    struct lane *a = (struct lane *)(void *)h->data, top = a[0];
    a[0] = a[h->len - 1];
    g_array_set_size(h, h->len - 1);
    for (guint i = 0;;) {
        guint m = i, l = 2 * i + 1, r = l + 1;
        if (l < h->len && lane_less(&a[l], &a[m]))
            m = l;
        if (r < h->len && lane_less(&a[r], &a[m]))
            m = r;
        if (m == i)
            break;
        struct lane t = a[i];
        a[i] = a[m];
        a[m] = t;
        i = m;
    }
    return top;
}

static void activity_load(struct export_ctx *x, struct activity *a)
{
    int64_t max = 0;
    GHashTableIter it;
    gpointer v;
    g_hash_table_iter_init(&it, x->q->processes);
    while (g_hash_table_iter_next(&it, NULL, &v))
        max = MAX(max, ((const struct qdb_process *)v)->id);
    a->max_process = max;
    a->last_ns = g_new0(int64_t, (size_t)max + 1);
    a->reads = g_new0(int64_t, (size_t)max + 1);
    a->wstart = g_new0(uint32_t, (size_t)max + 2);
    GArray *w = g_array_new(FALSE, FALSE, sizeof(int64_t) * 2); /* {process, file} */
    sqlite3_stmt *st = NULL;
    if (qdb_prepare(x->q, tracedb_sql(TQ_ACTIVITY), &st)) {
        while (qdb_row(x->q, st)) {
            int64_t pid = sqlite3_column_int64(st, TQ_ACTIVITY_PROCESS);
            if (pid < 1 || pid > max)
                continue;
            int kind = sqlite3_column_int(st, TQ_ACTIVITY_KIND);
            int64_t last = sqlite3_column_int64(st, TQ_ACTIVITY_LAST);
            a->last_ns[pid] = MAX(a->last_ns[pid], last);
            if (sqlite3_column_int64(st, TQ_ACTIVITY_RESULT) != 0)
                continue; /* failed: not a read or a write */
            if (kind == TRACEDB_READ || kind == TRACEDB_EXEC)
                a->reads[pid]++;
            if (buildtime_wrote_path(kind, sqlite3_column_int64(st, TQ_ACTIVITY_BYTES))) {
                int64_t pair[2] = {pid, sqlite3_column_int64(st, TQ_ACTIVITY_FILE)};
                g_array_append_val(w, pair);
                a->wstart[pid + 1]++;
            }
        }
    }
    sqlite3_finalize(st);
    if (qdb_prepare(x->q, tracedb_sql(TQ_LAST_OUTPUT), &st)) {
        while (qdb_row(x->q, st)) {
            int64_t pid = sqlite3_column_int64(st, TQ_LAST_OUTPUT_PROCESS);
            if (pid >= 1 && pid <= max)
                a->last_ns[pid] = MAX(a->last_ns[pid],
                                      sqlite3_column_int64(st, TQ_LAST_OUTPUT_TIME));
        }
    }
    sqlite3_finalize(st);
    for (int64_t k = 1; k <= max + 1; k++)
        a->wstart[k] += a->wstart[k - 1];
    a->wfile = g_new(int64_t, w->len ? w->len : 1);
    uint32_t *fill = g_memdup2(a->wstart, sizeof(uint32_t) * ((size_t)max + 2));
    for (guint i = 0; i < w->len; i++) { /* stable: each process's in trace order */
        const int64_t *pair = (const int64_t *)(void *)(w->data + (gsize)i * 2 * sizeof(int64_t));
        a->wfile[fill[pair[0]]++] = pair[1];
    }
    g_free(fill);
    g_array_free(w, TRUE);
}

static void activity_free(struct activity *a)
{
    g_free(a->last_ns);
    g_free(a->reads);
    g_free(a->wstart);
    g_free(a->wfile);
}

static int64_t last_activity(const struct activity *a, int64_t id)
{
    return id >= 1 && id <= a->max_process ? a->last_ns[id] : 0;
}

/* The critical path (critpath.h, as `buildtrail critical-path` finds it): a track of its
 * own ("critical path", one slice per step, named as the process) and a flow arrow from each
 * step to the next on the process lanes, so Perfetto and chrome://tracing draw the chain. */
static void critical_path_events(struct export_ctx *x, const GArray *tasks, guint n_lanes)
{
    struct buildtime bt;
    buildtime_load(x->q, &bt);
    GHashTable *lane = g_hash_table_new(g_int64_hash, g_int64_equal);
    for (guint i = 0; i < tasks->len; i++) {
        const struct task *t = &g_array_index(tasks, struct task, i);
        g_hash_table_insert(lane, (gpointer)&t->first->id, GINT_TO_POINTER(t->lane));
    }
    GString *o = x->out;
    guint track = n_lanes + 1;
    g_string_append_printf(o, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":%u,"
                              "\"args\":{\"name\":\"critical path\"}}", track);
    const struct cp_step *prev = NULL;
    for (guint i = 0; i < bt.cp.steps->len; i++) {
        const struct cp_step *st = &g_array_index(bt.cp.steps, struct cp_step, i);
        gssize k = buildtime_task_index(&bt, st->task);
        if (k < 0)
            continue;
        const struct qdb_process *p = g_array_index(bt.info, struct bt_task, k).last;
        /* named by step and program: the process slice on its lane has the argv */
        const char *prog = qdb_process_program(p);
        g_autofree char *name = g_strdup_printf("%u. [%" PRId64 "] %s", i + 1, p->id, prog ? prog : "?");
        g_string_append(o, ",\n{\"name\":");
        json_string(o, name, strlen(name));
        g_string_append_printf(o, ",\"cat\":\"critical_path\",\"ph\":\"X\",\"ts\":%.3f,"
                                  "\"dur\":%.3f,\"pid\":1,\"tid\":%u,\"args\":{\"id\":%" PRId64
                                  ",\"step\":%u,\"wait_us\":%.3f,\"waited_for\":\"%s\"}}",
                               (double)(st->from_ns - x->run.start_ns) / 1e3,
                               (double)(st->to_ns - st->from_ns) / 1e3, track, p->id, i + 1,
                               (double)st->wait_ns / 1e3,
                               st->why == CP_WAIT_START ? "start"
                               : st->why == CP_WAIT_PARENT ? "parent" : "file");
        int to = GPOINTER_TO_INT(g_hash_table_lookup(lane, &st->task));
        int from = prev ? GPOINTER_TO_INT(g_hash_table_lookup(lane, &prev->task)) : 0;
        if (prev && from && to) {
            /* flow: out of the previous step's slice at its end, into this one at its start */
            g_string_append_printf(o, ",\n{\"name\":\"critical path\",\"cat\":\"critical_path\","
                                      "\"ph\":\"s\",\"id\":%u,\"ts\":%.3f,\"pid\":1,\"tid\":%d}",
                                   i, (double)(MAX(prev->to_ns - 1000, prev->from_ns) - x->run.start_ns) / 1e3, from);
            g_string_append_printf(o, ",\n{\"name\":\"critical path\",\"cat\":\"critical_path\","
                                      "\"ph\":\"f\",\"bp\":\"e\",\"id\":%u,\"ts\":%.3f,\"pid\":1,"
                                      "\"tid\":%d}",
                                   i, (double)(st->from_ns - x->run.start_ns) / 1e3, to);
        }
        prev = st;
        ex_flush(x);
    }
    g_hash_table_destroy(lane);
    buildtime_clear(&bt);
}

int fmt_chrome_trace(struct export_ctx *x)
{
    qdb_load_all(x->q);
    prov_load_versions(x->p); /* every path, for the files written */
    struct activity act = {0};
    activity_load(x, &act);
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
            end = last_activity(&act, i->id);
        t.end_ns = end > t.start_ns ? end : t.start_ns + 1000;
        g_array_append_val(tasks, t);
    }
    g_hash_table_destroy(next_image);
    g_array_sort(tasks, task_start_cmp);
    /* Lanes: the first lane free at a task's start, so slices on one lane never overlap.  The
     * tasks come by start, so a lane once free stays free until given out: the busy lanes in
     * a heap by end, the free ones in a heap by number (n log n: ten thousand processes alive
     * at once, or a chain of them, made a scan of every lane per task minutes). */
    GArray *busy = g_array_new(FALSE, FALSE, sizeof(struct lane)), *free_lanes =
        g_array_new(FALSE, FALSE, sizeof(struct lane));
    guint n_lanes = 0;
    for (guint i = 0; i < tasks->len; i++) {
        struct task *t = &g_array_index(tasks, struct task, i);
        while (busy->len && g_array_index(busy, struct lane, 0).key <= t->start_ns) {
            struct lane done = heap_pop(busy);
            heap_push(free_lanes, (struct lane){done.lane, done.lane});
        }
        guint l = free_lanes->len ? heap_pop(free_lanes).lane : n_lanes++;
        heap_push(busy, (struct lane){t->end_ns, l});
        t->lane = (int)l + 1;
    }
    g_array_free(busy, TRUE);
    g_array_free(free_lanes, TRUE);
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
    for (guint l = 0; l < n_lanes; l++)
        g_string_append_printf(o, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":%u,"
                                  "\"args\":{\"name\":\"lane %u\"}}", l + 1, l + 1);
    GHashTable *seen = g_hash_table_new(g_int64_hash, g_int64_equal);
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
        /* Files it touched: how many reads its last image made, and the paths each of its
         * images wrote (the last image's first; each path once per image). */
        g_string_append_printf(o, ",\"files_read\":%" PRId64,
                               p->id >= 1 && p->id <= act.max_process ? act.reads[p->id] : 0);
        g_string_append(o, ",\"files_written\":");
        struct jsonw w;
        jsonw_init(&w, o);
        jsonw_array_begin(&w);
        for (const struct qdb_process *img = t->last; img;
             img = img != t->first && img->prev_image_id ? qdb_process(x->q, img->prev_image_id)
                                                         : NULL) {
            if (img->id < 1 || img->id > act.max_process)
                continue;
            g_hash_table_remove_all(seen);
            for (uint32_t k = act.wstart[img->id]; k < act.wstart[img->id + 1]; k++) {
                const char *path = prov_file_path(x->p, act.wfile[k]);
                if (!path || !g_hash_table_add(seen, &act.wfile[k]))
                    continue;
                jsonw_string(&w, path);
            }
        }
        jsonw_array_end(&w);
        g_string_append(o, "}}");
        ex_flush(x);
    }
    g_hash_table_destroy(seen);
    activity_free(&act);
    critical_path_events(x, tasks, n_lanes);
    g_string_append(o, "\n]}\n");
    g_array_free(tasks, TRUE);
    return 0;
}
