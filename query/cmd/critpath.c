/* critical-path: the chain of processes that set the build's wall time, and how parallel the
 * build was (collect → model → render_text / render_json; the engine is lib/critpath.c,
 * the trace read as tasks lib/buildtime.c). */
#include "buildtime.h"
#include "driver.h"
#include "jsonw.h"
#include "query.h"
#include "textout.h"

#include <string.h>

#define PAR_BUCKETS 60      /* the parallelism line: one character per bucket */
#define SERIAL_MAX 5        /* the longest stretches of one job at a time listed */

static const struct query_command critpath_command = {
    .name = "critical-path",
    .operands = "",
    .flags = QUERY_CUT_ARGV,
    .about = "The chain of processes that set the build's wall time: walking back from the\n"
             "build's end, each step is the process that ended last before the next one\n"
             "could go on, with when it ran, how long, the wait before it and what it\n"
             "waited for (its parent starting it, or a file an earlier process wrote).\n"
             "Then the build's parallelism: how many processes were working at once (a\n"
             "make waiting for its jobs is not), over time, and the longest stretches\n"
             "when one job ran while -j allowed more.  docs/report.md says how to read it.\n",
};

/* The model: what both renderings show. */
struct model {
    struct qdb *q;
    struct buildtime bt;
    double avg[PAR_BUCKETS];
    unsigned peak[PAR_BUCKETS], max;
    double mean;
    GArray *serial; /* int64_t {from, to, task} */
};

static void collect(struct qdb *q, struct model *m)
{
    memset(m, 0, sizeof *m);
    m->q = q;
    buildtime_load(q, &m->bt);
    const struct cp_task *t = (const struct cp_task *)(void *)m->bt.tasks->data;
    size_t n = m->bt.tasks->len;
    critpath_parallelism(t, n, m->bt.run_start_ns, m->bt.run_end_ns, PAR_BUCKETS, m->avg,
                         m->peak, &m->max);
    for (int i = 0; i < PAR_BUCKETS; i++)
        m->mean += m->avg[i] / PAR_BUCKETS;
    int64_t wall = m->bt.run_end_ns - m->bt.run_start_ns;
    /* one job at a time matters when more were allowed, for at least 2 % of the build */
    m->serial = m->bt.jobs_allowed == 1 ? g_array_new(FALSE, FALSE, sizeof(int64_t) * 3)
                                        : critpath_serial_stretches(t, n, MAX(wall / 50, 1),
                                                                    SERIAL_MAX);
}

static void model_clear(struct model *m)
{
    buildtime_clear(&m->bt);
    if (m->serial)
        g_array_free(m->serial, TRUE);
}

static const struct qdb_process *task_process(const struct model *m, int64_t task_id)
{
    gssize k = buildtime_task_index(&m->bt, task_id);
    return k >= 0 ? g_array_index(m->bt.info, struct bt_task, k).last : NULL;
}

static int64_t task_process_id(const struct model *m, int64_t task_id)
{
    const struct qdb_process *p = task_process(m, task_id);
    return p ? p->id : 0;
}

static void text_secs(GString *out, int64_t ns)
{
    g_string_append_printf(out, "%.3f s", (double)ns / 1e9);
}

static void render_text(const struct model *m, GString *out)
{
    const struct critpath *cp = &m->bt.cp;
    struct prov *p = m->q->schema_version >= 3 ? prov_new(m->q) : NULL;
    int64_t wall = cp->end_ns - cp->start_ns;
    g_string_append(out, "critical path: ");
    text_secs(out, cp->busy_ns);
    g_string_append(out, " running and ");
    text_secs(out, wall - cp->busy_ns);
    g_string_append_printf(out, " waiting of the build's ");
    text_secs(out, wall);
    g_string_append_printf(out, ", %u step%s\n", cp->steps->len, cp->steps->len == 1 ? "" : "s");
    g_string_append(out, "   at        ran       waited    process\n");
    for (guint i = 0; i < cp->steps->len; i++) {
        const struct cp_step *st = &g_array_index(cp->steps, struct cp_step, i);
        const struct qdb_process *pr = task_process(m, st->task);
        g_string_append_printf(out, "%8.3f  %8.3f  %8.3f  ", (double)(st->from_ns - cp->start_ns) / 1e9,
                               (double)(st->to_ns - st->from_ns) / 1e9, (double)st->wait_ns / 1e9);
        if (pr)
            query_text_process(out, pr);
        g_string_append(out, "\n                              ");
        if (st->why == CP_WAIT_START)
            g_string_append(out, "(the build's start)\n");
        else if (st->why == CP_WAIT_PARENT)
            g_string_append_printf(out, "(started by its parent after [%" G_GINT64_FORMAT "] ended)\n",
                                   task_process_id(m, st->after_task));
        else {
            const char *path = p ? prov_file_path(p, st->file_id) : NULL;
            g_string_append(out, "(read ");
            if (path)
                text_escape(out, path, strlen(path));
            else
                g_string_append_printf(out, "file %" G_GINT64_FORMAT, st->file_id);
            g_string_append_printf(out, ", written by [%" G_GINT64_FORMAT "])\n",
                                   task_process_id(m, st->after_task));
        }
    }
    g_string_append_printf(out, "parallelism: %.1f working on average, %u at most", m->mean, m->max);
    if (m->bt.jobs_allowed > 0)
        g_string_append_printf(out, "; -j%d allowed\n", m->bt.jobs_allowed);
    else
        g_string_append(out, m->bt.jobs_allowed < 0 ? "; -j without a limit\n"
                                                    : "; no -j given to a build driver\n");
    static const char *const bars[] = {" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
    g_string_append(out, "  |");
    for (int i = 0; i < PAR_BUCKETS; i++) {
        double f = m->max ? m->avg[i] / m->max : 0;
        g_string_append(out, bars[(int)(f * 8 + 0.5) > 8 ? 8 : (int)(f * 8 + 0.5)]);
    }
    g_string_append(out, "|\n");
    if (m->serial->len && m->bt.jobs_allowed != 1) {
        g_string_append(out, "one job at a time");
        if (m->bt.jobs_allowed > 1)
            g_string_append_printf(out, " while -j%d allowed more", m->bt.jobs_allowed);
        g_string_append(out, " (the longest stretches):\n");
        for (guint i = 0; i < m->serial->len; i++) {
            const int64_t *v = (const int64_t *)(void *)(m->serial->data + (gsize)i * 3 * sizeof(int64_t));
            g_string_append_printf(out, "  %.3f s to %.3f s (%.3f s): ", (double)(v[0] - cp->start_ns) / 1e9,
                                   (double)(v[1] - cp->start_ns) / 1e9, (double)(v[1] - v[0]) / 1e9);
            const struct qdb_process *pr = v[2] ? task_process(m, v[2]) : NULL;
            if (pr)
                query_text_process(out, pr);
            else
                g_string_append(out, "(nothing working)");
            g_string_append_c(out, '\n');
        }
    }
    if (p)
        prov_free(p);
}

/* The "trace" member as jsonw wants it: the key, then the raw object. */
static void json_trace(struct jsonw *w, struct qdb *q)
{
    GString *t = g_string_new(NULL);
    query_json_trace(t, q);
    jsonw_key(w, "trace");
    jsonw_raw(w, t->str + strlen("\"trace\":"));
    g_string_free(t, TRUE);
}

static void json_process(struct jsonw *w, const char *key, const struct qdb_process *p)
{
    jsonw_key(w, key);
    if (!p) {
        jsonw_null(w);
        return;
    }
    GString *t = g_string_new(NULL);
    query_json_process(t, p);
    jsonw_raw(w, t->str);
    g_string_free(t, TRUE);
}

static void render_json(const struct model *m, GString *out)
{
    const struct critpath *cp = &m->bt.cp;
    struct prov *p = m->q->schema_version >= 3 ? prov_new(m->q) : NULL;
    struct jsonw w;
    jsonw_init(&w, out);
    jsonw_object_begin(&w);
    jsonw_kv_int(&w, "json_version", QUERY_JSON_VERSION);
    json_trace(&w, m->q);
    jsonw_kv_int(&w, "start_ns", cp->start_ns);
    jsonw_kv_int(&w, "wall_ns", cp->end_ns - cp->start_ns);
    jsonw_kv_int(&w, "running_ns", cp->busy_ns);
    jsonw_kv_int(&w, "processes", (int64_t)m->bt.tasks->len);
    jsonw_key(&w, "steps");
    jsonw_array_begin(&w);
    for (guint i = 0; i < cp->steps->len; i++) {
        const struct cp_step *st = &g_array_index(cp->steps, struct cp_step, i);
        gssize k = buildtime_task_index(&m->bt, st->task);
        const struct cp_task *t = k >= 0 ? &g_array_index(m->bt.tasks, struct cp_task, k) : NULL;
        jsonw_object_begin(&w);
        json_process(&w, "process", task_process(m, st->task));
        jsonw_kv_int(&w, "task", st->task);
        if (t) {
            jsonw_kv_int(&w, "started_ns", t->start_ns - cp->start_ns);
            jsonw_kv_int(&w, "ended_ns", t->end_ns - cp->start_ns);
            jsonw_kv_int(&w, "duration_ns", t->end_ns - t->start_ns);
        }
        jsonw_kv_int(&w, "path_from_ns", st->from_ns - cp->start_ns);
        jsonw_kv_int(&w, "path_to_ns", st->to_ns - cp->start_ns);
        jsonw_kv_int(&w, "wait_ns", st->wait_ns);
        jsonw_key(&w, "waited_for");
        jsonw_object_begin(&w);
        jsonw_kv_string(&w, "kind", st->why == CP_WAIT_START ? "start"
                                    : st->why == CP_WAIT_PARENT ? "parent" : "file");
        const struct qdb_process *after = st->after_task ? task_process(m, st->after_task) : NULL;
        jsonw_key(&w, "after");
        if (after)
            jsonw_int(&w, after->id);
        else
            jsonw_null(&w);
        if (st->why == CP_WAIT_FILE)
            jsonw_kv_string(&w, "path", p ? prov_file_path(p, st->file_id) : NULL);
        jsonw_object_end(&w);
        jsonw_object_end(&w);
    }
    jsonw_array_end(&w);
    jsonw_key(&w, "parallelism");
    jsonw_object_begin(&w);
    jsonw_key(&w, "jobs_allowed");
    if (m->bt.jobs_allowed > 0)
        jsonw_int(&w, m->bt.jobs_allowed);
    else if (m->bt.jobs_allowed < 0)
        jsonw_string(&w, "unlimited");
    else
        jsonw_null(&w);
    jsonw_kv_int(&w, "max", m->max);
    char num[32];
    g_ascii_formatd(num, sizeof num, "%.3f", m->mean);
    jsonw_key(&w, "average");
    jsonw_raw(&w, num);
    jsonw_kv_int(&w, "bucket_ns", (cp->end_ns - cp->start_ns) / PAR_BUCKETS);
    jsonw_key(&w, "buckets");
    jsonw_array_begin(&w);
    for (int i = 0; i < PAR_BUCKETS; i++) {
        g_ascii_formatd(num, sizeof num, "%.3f", m->avg[i]);
        jsonw_raw(&w, num);
    }
    jsonw_array_end(&w);
    jsonw_key(&w, "serial");
    jsonw_array_begin(&w);
    for (guint i = 0; i < m->serial->len; i++) {
        const int64_t *v = (const int64_t *)(void *)(m->serial->data + (gsize)i * 3 * sizeof(int64_t));
        jsonw_object_begin(&w);
        jsonw_kv_int(&w, "from_ns", v[0] - cp->start_ns);
        jsonw_kv_int(&w, "to_ns", v[1] - cp->start_ns);
        const struct qdb_process *pr = v[2] ? task_process(m, v[2]) : NULL;
        jsonw_key(&w, "process");
        if (pr)
            jsonw_int(&w, pr->id);
        else
            jsonw_null(&w);
        jsonw_object_end(&w);
    }
    jsonw_array_end(&w);
    jsonw_object_end(&w);
    jsonw_object_end(&w);
    g_string_append_c(out, '\n');
    if (p)
        prov_free(p);
}

int query_critpath_main(int argc, char **argv)
{
    struct query_opts o = {0};
    int r = query_parse(&critpath_command, argc, argv, &o, NULL);
    if (r >= 0)
        return r;
    struct qdb *q = query_open_for("critical-path", o.db_path, QUERY_ANY_TRACE);
    if (!q)
        return 1;
    struct model m;
    collect(q, &m);
    GString *out = g_string_new(NULL);
    if (!qdb_failed(q)) {
        if (o.json)
            render_json(&m, out);
        else
            render_text(&m, out);
    }
    int status = query_emit(q, out);
    g_string_free(out, TRUE);
    model_clear(&m);
    qdb_close(q);
    return status;
}
