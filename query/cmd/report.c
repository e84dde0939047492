/* report: the build as one self-contained HTML page (collect → model → render).
 *
 * The page is query/report/report.html.in with report.css, report.js (turned into C at build
 * time: query/report/embed.cmake) and the model as JSON in a <script type="application/json">
 * element (every '<' written \u003c, so nothing in it can end the element).  The summary is
 * HTML written here, readable without JavaScript; the rest is drawn by report.js
 * (docs/report.md).  What cannot be drawn one by one is aggregated here, and the page says
 * so: above REPORT_MAX_BARS processes the timeline draws the longest ones and, per lane, how
 * busy it was; products beyond REPORT_MAX_PRODUCTS, inputs beyond REPORT_MAX_CLOSURES
 * products and log text beyond REPORT_MAX_LOG are cut, with a note. */
#include "buildtime.h"
#include "dpkgdb.h"
#include "driver.h"
#include "jsonw.h"
#include "logorder.h"
#include "outfile.h"
#include "progkind.h"
#include "query.h"
#include "textout.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define REPORT_MAX_BARS 3000
#define REPORT_MAX_LANES 512
#define REPORT_MAX_PRODUCTS 2000
#define REPORT_MAX_CLOSURES 400
#define REPORT_MAX_LOG (3 << 20)
#define REPORT_MAX_ARGV 800
#define REPORT_MAX_WRITTEN 10
#define REPORT_PAR_BUCKETS 400
#define REPORT_MARK "<meta name=\"generator\" content=\"buildtrail report\">"
#define REPORT_DEFAULT "buildtrail-report.html"

/* The template (generated from query/report/ by embed.cmake). */
extern const char report_html[], report_css[], report_js[];

struct report_ctx {
    const char *out_path;
    mode_t mode;
    bool mode_set;
};

static const struct option report_options[] = {
    {"output", required_argument, NULL, 'o'},
    {"output-mode", required_argument, NULL, 'M'},
    {0},
};

static int report_option(void *data, int c, const char *arg)
{
    struct report_ctx *ctx = data;
    if (c == 'o')
        ctx->out_path = arg;
    else if (c == 'M') {
        if (!query_parse_mode("report", arg, &ctx->mode))
            return 2;
        ctx->mode_set = true;
    }
    return 0;
}

static const struct query_command report_command = {
    .name = "report",
    .operands = "",
    .about = "Write the build as one self-contained HTML page (no network: its script and\n"
             "style are inside; it opens from file://): the run's summary and whether the\n"
             "trace is complete, readable without JavaScript; with it, a timeline of every\n"
             "process coloured by kind (zoom with the wheel, drag to pan, click a bar for\n"
             "its command, directory, exit, duration and files) with the critical path\n"
             "drawn over it, the parallelism over time, the slowest programs, the log (failed\n"
             "jobs first), the products with their writers and inputs (search by path), and\n"
             "for --system traces the Debian packages used.  docs/report.md says how to\n"
             "read it.  An existing file is replaced only if an earlier report made it.\n",
    .options_help = "  -o, --output FILE     write it there ('-': standard output; default\n"
                    "                        buildtrail-report.html beside the trace)\n"
                    QUERY_OUTPUT_MODE_HELP,
    .options = report_options,
    .shortopts = "o:",
    .flags = QUERY_NO_JSON,
    .option = report_option,
};

/* ---- collect and model ---- */

enum kind { K_COMPILE, K_LINK, K_GENERATOR, K_TEST, K_TOOL, K_DRIVER, K_N };
static const char *const kind_names[K_N] = {"compile", "link", "generator", "test", "tool",
                                            "driver"};

static bool is_shell(const char *prog)
{
    static const char *const shells[] = {"sh", "bash", "dash", "zsh", "env", "nice", "time",
                                         "dpkg-buildpackage", "rules", "debhelper", "fakeroot",
                                         "libtool", NULL};
    for (int i = 0; shells[i]; i++)
        if (!strcmp(prog, shells[i]))
            return true;
    return !strncmp(prog, "dh_", 3) || !strcmp(prog, "dh");
}

static enum kind task_kind(const struct bt_task *t, bool has_kids, bool writes_for_others,
                           bool runs_built)
{
    const char *prog = qdb_process_program(t->last);
    prog = prog ? prog : "";
    enum progkind_step s = progkind_step(prog);
    if (progkind_is_build_driver(prog) || (is_shell(prog) && has_kids))
        return K_DRIVER;
    if (progkind_is_compiler_driver(prog) || progkind_is_compiler_proper(prog) ||
        s == PROGKIND_COMPILE)
        return K_COMPILE;
    if (s == PROGKIND_LINK || s == PROGKIND_ARCHIVE)
        return K_LINK;
    if (runs_built || strstr(prog, "test") || strstr(prog, "check"))
        return K_TEST;
    if (writes_for_others)
        return K_GENERATOR;
    return has_kids ? K_DRIVER : K_TOOL;
}

struct model {
    struct qdb *q;
    struct prov *p;
    struct buildtime bt;
    guint *lane;       /* [task] */
    guint n_lanes;
    guchar *kind;      /* [task] */
    bool *drawn;       /* [task]: one bar of its own (else counted in its lane's load) */
    guint n_drawn;
    double par[REPORT_PAR_BUCKETS];
    unsigned peak[REPORT_PAR_BUCKETS], par_max;
};

static void assign_lanes(struct model *m)
{
    guint n = m->bt.tasks->len;
    m->lane = g_new0(guint, n ? n : 1);
    int64_t *busy_until = g_new0(int64_t, REPORT_MAX_LANES);
    for (guint i = 0; i < n; i++) {
        const struct cp_task *t = &g_array_index(m->bt.tasks, struct cp_task, i);
        guint best = 0;
        bool found = false;
        for (guint l = 0; l < m->n_lanes && !found; l++)
            if (busy_until[l] <= t->start_ns) {
                best = l;
                found = true;
            }
        if (!found && m->n_lanes < REPORT_MAX_LANES)
            best = m->n_lanes++, found = true;
        if (!found) /* every lane busy: the one free soonest (bars overlap there) */
            for (guint l = 1; l < m->n_lanes; l++)
                if (busy_until[l] < busy_until[best])
                    best = l;
        busy_until[best] = MAX(busy_until[best], MAX(t->end_ns, t->start_ns + 1));
        m->lane[i] = best;
    }
    g_free(busy_until);
}

static gint by_duration_desc(gconstpointer a, gconstpointer b, gpointer data)
{
    const struct cp_task *t = data;
    guint x = *(const guint *)a, y = *(const guint *)b;
    int64_t dx = t[x].end_ns - t[x].start_ns, dy = t[y].end_ns - t[y].start_ns;
    return (dx < dy) - (dx > dy);
}

static void collect(struct qdb *q, struct model *m)
{
    memset(m, 0, sizeof *m);
    m->q = q;
    m->p = q->schema_version >= 3 ? prov_new(q) : NULL;
    buildtime_load(q, &m->bt);
    guint n = m->bt.tasks->len;
    const struct cp_task *tasks = (const struct cp_task *)(void *)m->bt.tasks->data;
    assign_lanes(m);
    critpath_parallelism(tasks, n, m->bt.run_start_ns, m->bt.run_end_ns, REPORT_PAR_BUCKETS,
                         m->par, m->peak, &m->par_max);
    /* Kinds: who has children, who wrote what another read, who ran what the build made. */
    bool *kids = g_new0(bool, n ? n : 1), *feeds = g_new0(bool, n ? n : 1);
    for (guint i = 0; i < n; i++) {
        gssize k = tasks[i].parent ? buildtime_task_index(&m->bt, tasks[i].parent) : -1;
        if (k >= 0)
            kids[k] = true;
    }
    for (guint i = 0; i < m->bt.deps->len; i++) {
        gssize k = buildtime_task_index(&m->bt, g_array_index(m->bt.deps, struct cp_dep, i).writer);
        if (k >= 0)
            feeds[k] = true;
    }
    GHashTable *built = g_hash_table_new(g_str_hash, g_str_equal);
    if (m->p)
        for (guint i = 0; i < m->bt.wfile->len; i++) {
            const char *path = prov_file_path(m->p, g_array_index(m->bt.wfile, int64_t, i));
            if (path)
                g_hash_table_add(built, (gpointer)path);
        }
    m->kind = g_new0(guchar, n ? n : 1);
    for (guint i = 0; i < n; i++) {
        const struct bt_task *t = &g_array_index(m->bt.info, struct bt_task, i);
        bool runs_built = t->last->exe && g_hash_table_contains(built, t->last->exe);
        m->kind[i] = (guchar)task_kind(t, kids[i], feeds[i], runs_built);
    }
    g_hash_table_destroy(built);
    g_free(kids);
    g_free(feeds);
    /* Bars: all of them, or the longest REPORT_MAX_BARS and every step of the path. */
    m->drawn = g_new0(bool, n ? n : 1);
    if (n <= REPORT_MAX_BARS) {
        for (guint i = 0; i < n; i++)
            m->drawn[i] = true;
        m->n_drawn = n;
    } else {
        guint *order = g_new(guint, n);
        for (guint i = 0; i < n; i++)
            order[i] = i;
        g_qsort_with_data(order, (gint)n, sizeof(guint), by_duration_desc, (gpointer)tasks);
        for (guint i = 0; i < REPORT_MAX_BARS; i++)
            m->drawn[order[i]] = true;
        g_free(order);
        m->n_drawn = REPORT_MAX_BARS;
        /* the critical path's steps too, up to as many again (a path of tens of thousands
         * of steps is drawn as its line and its lanes' load) */
        for (guint i = 0; i < m->bt.cp.steps->len && m->n_drawn < 2 * REPORT_MAX_BARS; i++) {
            gssize k = buildtime_task_index(&m->bt, g_array_index(m->bt.cp.steps, struct cp_step, i).task);
            if (k >= 0 && !m->drawn[k]) {
                m->drawn[k] = true;
                m->n_drawn++;
            }
        }
    }
}

static void model_clear(struct model *m)
{
    buildtime_clear(&m->bt);
    g_free(m->lane);
    g_free(m->kind);
    g_free(m->drawn);
    if (m->p)
        prov_free(m->p);
}

/* ---- render: the data ---- */

static int64_t rel_us(const struct model *m, int64_t ns)
{
    return (ns - m->bt.run_start_ns) / 1000;
}

static void json_argv_cut(struct jsonw *w, const struct qdb_process *p)
{
    GString *s = g_string_new(NULL);
    if (p->argv && p->argv_len)
        text_argv(s, p->argv, p->argv_len);
    else
        g_string_append(s, p->comm ? p->comm : "?");
    if (s->len > REPORT_MAX_ARGV) {
        g_string_truncate(s, REPORT_MAX_ARGV);
        g_string_append(s, " …");
    }
    jsonw_string_len(w, s->str, s->len);
    g_string_free(s, TRUE);
}

static void data_processes(struct model *m, struct jsonw *w)
{
    jsonw_key(w, "procs");
    jsonw_array_begin(w);
    for (guint i = 0; i < m->bt.tasks->len; i++) {
        if (!m->drawn[i])
            continue;
        const struct cp_task *t = &g_array_index(m->bt.tasks, struct cp_task, i);
        const struct bt_task *b = &g_array_index(m->bt.info, struct bt_task, i);
        const struct qdb_process *p = b->last;
        /* [id, lane, start µs, end µs, kind, argv, cwd, exit (null: unknown, "SIGn"),
         *  files read, [files written], parent id] */
        jsonw_array_begin(w);
        jsonw_int(w, p->id);
        jsonw_uint(w, m->lane[i]);
        jsonw_int(w, rel_us(m, t->start_ns));
        jsonw_int(w, rel_us(m, t->end_ns));
        jsonw_uint(w, m->kind[i]);
        json_argv_cut(w, p);
        jsonw_string(w, p->cwd);
        if (!p->exited)
            jsonw_null(w);
        else if (p->exit_signal) {
            char sig[16];
            g_snprintf(sig, sizeof sig, "SIG%d", p->exit_signal);
            jsonw_string(w, sig);
        } else
            jsonw_int(w, p->exit_code);
        jsonw_int(w, b->reads);
        jsonw_array_begin(w);
        for (guint k = b->wstart; k < b->wend && k < b->wstart + REPORT_MAX_WRITTEN; k++)
            jsonw_string(w, m->p ? prov_file_path(m->p, g_array_index(m->bt.wfile, int64_t, k))
                                 : NULL);
        if (b->wend - b->wstart > REPORT_MAX_WRITTEN) {
            char more[48];
            g_snprintf(more, sizeof more, "(and %u more)", b->wend - b->wstart - REPORT_MAX_WRITTEN);
            jsonw_string(w, more);
        }
        jsonw_array_end(w);
        gssize pk = t->parent ? buildtime_task_index(&m->bt, t->parent) : -1;
        if (pk >= 0)
            jsonw_int(w, g_array_index(m->bt.info, struct bt_task, pk).last->id);
        else
            jsonw_null(w);
        jsonw_array_end(w);
    }
    jsonw_array_end(w);
    /* The lanes' load where bars were left out: per lane, REPORT_PAR_BUCKETS fractions. */
    jsonw_key(w, "lane_load");
    if (m->n_drawn == m->bt.tasks->len) {
        jsonw_null(w);
        return;
    }
    int64_t wall = MAX(m->bt.run_end_ns - m->bt.run_start_ns, 1);
    double span = (double)wall / REPORT_PAR_BUCKETS;
    double *load = g_new0(double, (gsize)m->n_lanes * REPORT_PAR_BUCKETS);
    for (guint i = 0; i < m->bt.tasks->len; i++) {
        if (m->drawn[i])
            continue;
        const struct cp_task *t = &g_array_index(m->bt.tasks, struct cp_task, i);
        double a = (double)(t->start_ns - m->bt.run_start_ns), z = (double)(t->end_ns - m->bt.run_start_ns);
        for (int b = MAX(0, (int)(a / span)); b < REPORT_PAR_BUCKETS && b * span < z; b++) {
            double o = MIN(z, (b + 1) * span) - MAX(a, b * span);
            if (o > 0)
                load[(gsize)m->lane[i] * REPORT_PAR_BUCKETS + b] += o / span;
        }
    }
    jsonw_array_begin(w);
    char num[24];
    for (guint l = 0; l < m->n_lanes; l++) {
        jsonw_array_begin(w);
        for (int b = 0; b < REPORT_PAR_BUCKETS; b++) {
            g_snprintf(num, sizeof num, "%.2f", MIN(load[(gsize)l * REPORT_PAR_BUCKETS + b], 1.0));
            jsonw_raw(w, num);
        }
        jsonw_array_end(w);
    }
    jsonw_array_end(w);
    g_free(load);
}

static const struct qdb_process *task_last(const struct model *m, int64_t task)
{
    gssize k = buildtime_task_index(&m->bt, task);
    return k >= 0 ? g_array_index(m->bt.info, struct bt_task, k).last : NULL;
}

static void data_critical_path(struct model *m, struct jsonw *w)
{
    jsonw_key(w, "cp");
    jsonw_array_begin(w);
    for (guint i = 0; i < m->bt.cp.steps->len; i++) {
        const struct cp_step *st = &g_array_index(m->bt.cp.steps, struct cp_step, i);
        const struct qdb_process *p = task_last(m, st->task), *after = task_last(m, st->after_task);
        jsonw_object_begin(w);
        jsonw_kv_int(w, "id", p ? p->id : 0);
        jsonw_kv_int(w, "from", rel_us(m, st->from_ns));
        jsonw_kv_int(w, "to", rel_us(m, st->to_ns));
        jsonw_kv_int(w, "wait", st->wait_ns / 1000);
        jsonw_kv_string(w, "why", st->why == CP_WAIT_START ? "start"
                                  : st->why == CP_WAIT_PARENT ? "parent" : "file");
        jsonw_kv_int(w, "after", after ? after->id : 0);
        if (st->why == CP_WAIT_FILE)
            jsonw_kv_string(w, "file", m->p ? prov_file_path(m->p, st->file_id) : NULL);
        jsonw_object_end(w);
    }
    jsonw_array_end(w);
    jsonw_key(w, "par");
    jsonw_object_begin(w);
    char num[24];
    jsonw_key(w, "avg");
    jsonw_array_begin(w);
    for (int b = 0; b < REPORT_PAR_BUCKETS; b++) {
        g_snprintf(num, sizeof num, "%.2f", m->par[b]);
        jsonw_raw(w, num);
    }
    jsonw_array_end(w);
    jsonw_key(w, "peak");
    jsonw_array_begin(w);
    for (int b = 0; b < REPORT_PAR_BUCKETS; b++)
        jsonw_uint(w, m->peak[b]);
    jsonw_array_end(w);
    jsonw_kv_int(w, "max", m->par_max);
    jsonw_key(w, "allowed");
    if (m->bt.jobs_allowed)
        jsonw_int(w, m->bt.jobs_allowed);
    else
        jsonw_null(w);
    jsonw_object_end(w);
}

struct prog_stat {
    const char *prog;
    int64_t total_ns, count, max_ns;
};

static gint by_total(gconstpointer a, gconstpointer b)
{
    const struct prog_stat *x = *(struct prog_stat *const *)a, *y = *(struct prog_stat *const *)b;
    if (x->total_ns != y->total_ns)
        return (x->total_ns < y->total_ns) - (x->total_ns > y->total_ns);
    return strcmp(x->prog, y->prog); /* (a tie in the table's hash order was no order) */
}

static void data_programs(struct model *m, struct jsonw *w)
{
    GHashTable *by = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, g_free);
    for (guint i = 0; i < m->bt.tasks->len; i++) {
        if (m->kind[i] == K_DRIVER)
            continue; /* its time is its jobs' */
        const struct cp_task *t = &g_array_index(m->bt.tasks, struct cp_task, i);
        const char *prog = qdb_process_program(g_array_index(m->bt.info, struct bt_task, i).last);
        prog = prog ? prog : "?";
        struct prog_stat *s = g_hash_table_lookup(by, prog);
        if (!s) {
            s = g_new0(struct prog_stat, 1);
            s->prog = prog;
            g_hash_table_insert(by, (gpointer)prog, s);
        }
        s->total_ns += t->end_ns - t->start_ns;
        s->max_ns = MAX(s->max_ns, t->end_ns - t->start_ns);
        s->count++;
    }
    GPtrArray *all = g_ptr_array_new();
    GHashTableIter it;
    gpointer v;
    g_hash_table_iter_init(&it, by);
    while (g_hash_table_iter_next(&it, NULL, &v))
        g_ptr_array_add(all, v);
    g_ptr_array_sort(all, by_total);
    jsonw_key(w, "progs");
    jsonw_array_begin(w);
    for (guint i = 0; i < all->len && i < 200; i++) {
        const struct prog_stat *s = all->pdata[i];
        jsonw_array_begin(w);
        jsonw_string(w, s->prog);
        jsonw_int(w, s->total_ns / 1000);
        jsonw_int(w, s->count);
        jsonw_int(w, s->max_ns / 1000);
        jsonw_array_end(w);
    }
    jsonw_array_end(w);
    g_ptr_array_free(all, TRUE);
    g_hash_table_destroy(by);
}

/* The log as `log` groups it (logorder.h): runs of chunks filed under one job, then the
 * failed jobs' groups first. */
static void data_log(struct model *m, struct jsonw *w)
{
    struct qdb *q = m->q;
    GArray *chunks = qdb_output_chunks(q, 0);
    GHashTable *procs = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, g_free);
    GPtrArray *commands = g_ptr_array_new_with_free_func(g_free);
    GHashTableIter it;
    gpointer v;
    g_hash_table_iter_init(&it, q->processes);
    while (g_hash_table_iter_next(&it, NULL, &v)) {
        const struct qdb_process *p = v;
        gssize k = buildtime_task_index(&m->bt, p->id);
        const struct qdb_process *runs =
            k >= 0 && g_array_index(m->bt.info, struct bt_task, k).first == p
                ? g_array_index(m->bt.info, struct bt_task, k).last : p;
        char *command = runs->argv ? log_job_command(runs->argv, runs->argv_len) : NULL;
        if (command)
            g_ptr_array_add(commands, command);
        struct log_proc *lp = g_new(struct log_proc, 1);
        *lp = (struct log_proc){p->id, p->prev_image_id ? p->prev_image_id : p->parent_id,
                                p->start_ns, runs == p && log_is_driver(qdb_process_program(p)),
                                command};
        g_hash_table_insert(procs, &lp->id, lp);
    }
    long hz = sysconf(_SC_CLK_TCK);
    struct log_chunk *cv = (struct log_chunk *)(void *)chunks->data;
    log_sort(cv, chunks->len, procs, hz > 0 ? 1000000000 / hz : 10000000);
    /* groups: [process id, failed, text] */
    GPtrArray *groups = g_ptr_array_new(); /* GString*, with the id and failed flag first */
    GArray *gid = g_array_new(FALSE, FALSE, sizeof(int64_t));
    GArray *gfail = g_array_new(FALSE, FALSE, sizeof(bool));
    size_t total = 0;
    bool cut = false;
    for (guint i = 0; i < chunks->len; i++) {
        gssize k = buildtime_task_index(&m->bt, cv[i].filed_under);
        const struct qdb_process *job = k >= 0 ? g_array_index(m->bt.info, struct bt_task, k).last
                                               : NULL;
        int64_t id = job ? job->id : cv[i].filed_under;
        if (total + cv[i].len > REPORT_MAX_LOG) {
            cut = true;
            break;
        }
        total += cv[i].len;
        if (!groups->len || g_array_index(gid, int64_t, gid->len - 1) != id) {
            g_ptr_array_add(groups, g_string_new(NULL));
            g_array_append_val(gid, id);
            bool failed = job && job->exited && (job->exit_signal || job->exit_code != 0);
            g_array_append_val(gfail, failed);
        }
        g_string_append_len(groups->pdata[groups->len - 1], cv[i].data, (gssize)cv[i].len);
    }
    jsonw_key(w, "log");
    jsonw_array_begin(w);
    for (int pass = 0; pass < 2; pass++)
        for (guint i = 0; i < groups->len; i++) {
            bool failed = g_array_index(gfail, bool, i);
            if (failed != (pass == 0))
                continue;
            jsonw_array_begin(w);
            jsonw_int(w, g_array_index(gid, int64_t, i));
            jsonw_bool(w, failed);
            GString *s = groups->pdata[i];
            jsonw_string_len(w, s->str, s->len);
            jsonw_array_end(w);
        }
    jsonw_array_end(w);
    jsonw_kv_bool(w, "log_cut", cut);
    for (guint i = 0; i < groups->len; i++)
        g_string_free(groups->pdata[i], TRUE);
    g_ptr_array_free(groups, TRUE);
    g_array_free(gid, TRUE);
    g_array_free(gfail, TRUE);
    for (guint i = 0; i < chunks->len; i++)
        g_free((char *)cv[i].data);
    g_array_free(chunks, TRUE);
    g_hash_table_destroy(procs);
    g_ptr_array_free(commands, TRUE);
}

static void data_products(struct model *m, struct jsonw *w)
{
    jsonw_key(w, "products");
    jsonw_array_begin(w);
    GPtrArray *prods = m->p ? prov_products(m->p) : g_ptr_array_new();
    if (prods->len)
        prov_load(m->p);
    struct prov_walk_opts wo = {.stop_at_shlibs = true};
    gint64 deadline = g_get_monotonic_time() + 3 * G_USEC_PER_SEC;
    guint closures = 0;
    GArray *makers = g_array_new(FALSE, FALSE, sizeof(int64_t));
    for (guint i = 0; i < prods->len && i < REPORT_MAX_PRODUCTS; i++) {
        const struct prov_version *v = prods->pdata[i];
        g_array_set_size(makers, 0);
        prov_makers(m->p, v->id, makers);
        /* [path, writer id, size, {role: count} | null, [sources...]] */
        jsonw_array_begin(w);
        jsonw_string(w, v->path);
        if (makers->len)
            jsonw_int(w, g_array_index(makers, int64_t, makers->len - 1));
        else
            jsonw_null(w);
        jsonw_int(w, v->size);
        if (closures < REPORT_MAX_CLOSURES && g_get_monotonic_time() < deadline) {
            closures++;
            GArray *in = prov_inputs(m->p, v->id, &wo);
            unsigned count[PROV_ROLE_COUNT] = {0};
            jsonw_object_begin(w);
            for (guint k = 0; k < in->len; k++)
                count[g_array_index(in, struct prov_node, k).role]++;
            for (int r = 0; r < PROV_ROLE_COUNT; r++)
                if (count[r])
                    jsonw_kv_int(w, prov_role_name((enum prov_role)r), count[r]);
            jsonw_object_end(w);
            jsonw_array_begin(w);
            guint listed = 0;
            for (guint k = 0; k < in->len && listed < 10; k++) {
                const struct prov_node *nd = &g_array_index(in, struct prov_node, k);
                if (nd->role == PROV_ROLE_SOURCE) {
                    jsonw_string(w, nd->v->path);
                    listed++;
                }
            }
            jsonw_array_end(w);
            g_array_unref(in);
        } else {
            jsonw_null(w);
            jsonw_null(w);
        }
        jsonw_array_end(w);
    }
    jsonw_array_end(w);
    jsonw_kv_int(w, "products_total", prods->len);
    jsonw_kv_int(w, "products_closures", closures);
    g_array_free(makers, TRUE);
    g_ptr_array_free(prods, TRUE);
}

/* The Debian packages whose files the build read (traces with the system trees). */
static void data_packages(struct model *m, struct jsonw *w, bool system)
{
    jsonw_key(w, "packages");
    struct dpkgdb *db = NULL;
    if (!system || !m->p || dpkgdb_load("/var/lib/dpkg", &db) < 0) {
        jsonw_null(w);
        return;
    }
    GArray *used = prov_versions_used_as(m->p, PROV_USE_READ, true);
    GHashTable *count = g_hash_table_new(g_str_hash, g_str_equal);
    for (guint i = 0; i < used->len; i++) {
        const struct prov_version *v = prov_version(m->p, g_array_index(used, int64_t, i));
        const struct dpkg_pkg *pk = v && v->path ? dpkgdb_owner(db, v->path) : NULL;
        if (pk)
            g_hash_table_insert(count, pk->name,
                                GINT_TO_POINTER(GPOINTER_TO_INT(g_hash_table_lookup(count, pk->name)) + 1));
    }
    GList *names = g_list_sort(g_hash_table_get_keys(count), (GCompareFunc)strcmp);
    jsonw_array_begin(w);
    for (GList *l = names; l; l = l->next) {
        const struct dpkg_pkg *pk = dpkgdb_package(db, l->data);
        jsonw_array_begin(w);
        jsonw_string(w, l->data);
        jsonw_string(w, pk ? pk->version : NULL);
        jsonw_int(w, GPOINTER_TO_INT(g_hash_table_lookup(count, l->data)));
        jsonw_array_end(w);
    }
    jsonw_array_end(w);
    g_list_free(names);
    g_hash_table_destroy(count);
    g_array_unref(used);
    dpkgdb_free(db);
}

/* ---- render: the page ---- */

static void html_text(GString *out, const char *s, size_t len)
{
    g_autofree char *valid = g_utf8_make_valid(s, (gssize)len);
    g_autofree char *esc = g_markup_escape_text(valid, -1);
    g_string_append(out, esc);
}

static void html_summary(struct model *m, GString *out, bool *system)
{
    struct qdb *q = m->q;
    const struct qdb_run *run = qdb_run(q);
    struct qdb_run_info row;
    qdb_load_run_info(q, &row);
    struct tracedb_counts c;
    qdb_counts(q, &c);
    if (!run->complete || run->state != QDB_RUN_FINISHED) {
        g_string_append(out, "<div id=\"incomplete\" class=\"incomplete\"><b>This trace is "
                             "INCOMPLETE</b> (the run ");
        html_text(out, qdb_run_state_name(run->state), strlen(qdb_run_state_name(run->state)));
        g_string_append(out, ")");
        if (run->incomplete) {
            g_string_append(out, ": ");
            html_text(out, run->incomplete, strlen(run->incomplete));
        }
        g_string_append(out, ". What follows is what it recorded; the build did more.</div>\n");
    } else
        g_string_append(out, "<div id=\"complete\" class=\"complete\">This trace is complete: "
                             "the run finished and every process was recorded.</div>\n");
    g_string_append(out, "<table class=\"summary\">\n<tr><th>command</th><td><code>");
    if (row.argv) {
        GString *a = g_string_new(NULL);
        text_argv(a, row.argv, row.argv_len);
        html_text(out, a->str, a->len);
        g_string_free(a, TRUE);
    }
    g_string_append(out, "</code></td></tr>\n<tr><th>directory</th><td><code>");
    if (row.cwd)
        html_text(out, row.cwd, strlen(row.cwd));
    char when[32];
    g_string_append(out, "</code></td></tr>\n<tr><th>started</th><td>");
    g_string_append(out, text_iso_utc(run->start_realtime_ns, when) ? when : "?");
    g_string_append(out, "</td></tr>\n<tr><th>finished</th><td>");
    if (run->end_realtime_ns && text_iso_utc(run->end_realtime_ns, when))
        g_string_append_printf(out, "%s (after %.1f s)", when,
                               (double)(run->end_realtime_ns - run->start_realtime_ns) / 1e9);
    else
        g_string_append(out, "(no end recorded)");
    g_string_append(out, "</td></tr>\n<tr><th>exit</th><td>");
    if (run->exit_status >= 0)
        g_string_append_printf(out, "%d", run->exit_status);
    else
        g_string_append(out, "(none recorded)");
    g_string_append_printf(out, "</td></tr>\n<tr><th>state</th><td>%s, %s",
                           qdb_run_state_name(run->state), run->complete ? "complete" : "INCOMPLETE");
    g_string_append_printf(out, "</td></tr>\n<tr><th>holds</th><td>%" G_GINT64_FORMAT
                                " processes (%" G_GINT64_FORMAT " programs run), %" G_GINT64_FORMAT
                                " files read, %" G_GINT64_FORMAT " written, ",
                           c.processes, c.images, c.files_read, c.files_written);
    text_size(out, c.output_bytes);
    g_string_append(out, " of output</td></tr>\n<tr><th>critical path</th><td>");
    const struct critpath *cp = &m->bt.cp;
    g_string_append_printf(out, "%u steps, %.1f s running and %.1f s waiting of %.1f s; "
                                "%u processes at most at once",
                           cp->steps->len, (double)cp->busy_ns / 1e9,
                           (double)(cp->end_ns - cp->start_ns - cp->busy_ns) / 1e9,
                           (double)(cp->end_ns - cp->start_ns) / 1e9, m->par_max);
    if (m->bt.jobs_allowed > 0)
        g_string_append_printf(out, " (-j%d allowed)", m->bt.jobs_allowed);
    g_string_append(out, "</td></tr>\n<tr><th>traced</th><td>");
    GPtrArray *watched = qdb_watched_trees(q);
    *system = watched->len > 0;
    sqlite3_stmt *st = NULL;
    bool first = true;
    if (qdb_prepare(q, tracedb_sql(TQ_TREES), &st))
        while (qdb_row(q, st)) {
            const char *path = (const char *)sqlite3_column_text(st, TQ_TREES_PATH);
            if (!path)
                continue;
            *system |= !strcmp(path, "/usr") || !strcmp(path, "/");
            g_string_append(out, first ? "" : ", ");
            first = false;
            html_text(out, path, strlen(path));
        }
    sqlite3_finalize(st);
    g_ptr_array_free(watched, TRUE);
    g_string_append(out, "</td></tr>\n<tr><th>recorded</th><td>by buildtrail ");
    html_text(out, row.version ? row.version : "?", strlen(row.version ? row.version : "?"));
    g_string_append(out, " on ");
    html_text(out, row.hostname ? row.hostname : "?", strlen(row.hostname ? row.hostname : "?"));
    g_string_append(out, "</td></tr>\n</table>\n");
    qdb_run_info_clear(&row);
}

/* The model as JSON that can sit in a <script> element: no '<' at all. */
static void append_script_json(GString *out, const GString *json)
{
    for (gsize i = 0; i < json->len; i++) {
        if (json->str[i] == '<')
            g_string_append(out, "\\u003c");
        else
            g_string_append_c(out, json->str[i]);
    }
}

static void render(struct model *m, GString *page)
{
    GString *summary = g_string_new(NULL), *json = g_string_new(NULL);
    bool system = false;
    html_summary(m, summary, &system);
    struct jsonw w;
    jsonw_init(&w, json);
    jsonw_object_begin(&w);
    jsonw_kv_int(&w, "version", 1);
    jsonw_kv_int(&w, "wall", (m->bt.run_end_ns - m->bt.run_start_ns) / 1000);
    jsonw_kv_int(&w, "lanes", m->n_lanes);
    jsonw_kv_int(&w, "processes", m->bt.tasks->len);
    jsonw_kv_int(&w, "drawn", m->n_drawn);
    jsonw_key(&w, "kinds");
    jsonw_array_begin(&w);
    for (int k = 0; k < K_N; k++)
        jsonw_string(&w, kind_names[k]);
    jsonw_array_end(&w);
    data_processes(m, &w);
    data_critical_path(m, &w);
    data_programs(m, &w);
    data_log(m, &w);
    data_products(m, &w);
    data_packages(m, &w, system);
    jsonw_object_end(&w);
    /* the template's @NAME@ places */
    const char *t = report_html;
    while (*t) {
        const char *at = strchr(t, '@');
        if (!at) {
            g_string_append(page, t);
            break;
        }
        g_string_append_len(page, t, at - t);
        const char *names[] = {"@MARK@", "@TITLE@", "@SUMMARY@", "@STYLE@", "@SCRIPT@", "@DATA@"};
        int which = -1;
        for (int k = 0; k < 6 && which < 0; k++)
            if (!strncmp(at, names[k], strlen(names[k])))
                which = k;
        if (which < 0) {
            g_string_append_c(page, '@');
            t = at + 1;
            continue;
        }
        switch (which) {
        case 0: g_string_append(page, REPORT_MARK); break;
        case 1: html_text(page, m->q->path, strlen(m->q->path)); break;
        case 2: g_string_append_len(page, summary->str, (gssize)summary->len); break;
        case 3: g_string_append(page, report_css); break;
        case 4: g_string_append(page, report_js); break;
        default: append_script_json(page, json); break;
        }
        t = at + strlen(names[which]);
    }
    g_string_free(summary, TRUE);
    g_string_free(json, TRUE);
}

/* ---- where it goes ---- */

/* Whether `path` may be written: "-", a new name, or a regular file an earlier report made
 * (or an empty one).  Otherwise one line saying why (naming it as `shown`), false. */
static bool may_write(const char *path, const char *shown)
{
    if (!strcmp(path, "-"))
        return true;
    struct stat sb;
    if (stat(path, &sb) != 0) {
        if (errno == ENOENT)
            return true; /* a new name, or a dangling link: outfile decides */
        fprintf(stderr, "buildtrail report: %s: %s; choose another -o\n", shown, g_strerror(errno));
        return false;
    }
    if (S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "buildtrail report: %s is a directory; give a file name, e.g. -o %s/"
                REPORT_DEFAULT "\n", shown, shown);
        return false;
    }
    if (!S_ISREG(sb.st_mode)) {
        fprintf(stderr, "buildtrail report: %s is not a regular file (a FIFO, a device or a "
                "socket); give a file name, or '-' for standard output\n", shown);
        return false;
    }
    if (sb.st_size == 0)
        return true;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    char head[4096];
    ssize_t got = fd >= 0 ? read(fd, head, sizeof head - 1) : -1;
    if (fd >= 0)
        close(fd);
    if (got < 0) {
        fprintf(stderr, "buildtrail report: %s cannot be read (%s) to see whether a report made "
                "it; remove it or choose another -o\n", shown, g_strerror(errno));
        return false;
    }
    head[got] = '\0';
    if (!strstr(head, REPORT_MARK)) {
        fprintf(stderr, "buildtrail report: %s exists and is not a buildtrail report; remove "
                "it or choose another -o\n", shown);
        return false;
    }
    return true;
}

int query_report_main(int argc, char **argv)
{
    struct query_opts o = {0};
    struct report_ctx ctx = {0};
    int r = query_parse(&report_command, argc, argv, &o, &ctx);
    if (r >= 0)
        return r;
    struct qdb *q = query_open_for("report", o.db_path, QUERY_ANY_TRACE);
    if (!q)
        return 1;
    g_autofree char *dir = g_path_get_dirname(q->path);
    g_autofree char *path = ctx.out_path ? g_strdup(ctx.out_path)
                                         : g_build_filename(dir, REPORT_DEFAULT, NULL);
    g_autofree char *shown = text_escaped(path); /* a line break never printed raw */
    if (!may_write(path, shown)) {
        qdb_close(q);
        return 1;
    }
    struct model m;
    collect(q, &m);
    GString *page = g_string_new(NULL);
    if (!qdb_failed(q))
        render(&m, page);
    int status = 1;
    if (!query_failed(q)) {
        int err = outfile_write(path, ctx.mode_set ? ctx.mode : query_trace_mode(q), page->str,
                                page->len);
        if (err < 0)
            fprintf(stderr, "buildtrail report: cannot write %s: %s; choose another -o\n", shown,
                    outfile_strerror(err));
        else {
            status = 0;
            if (strcmp(path, "-")) {
                GString *said = g_string_new(NULL);
                text_size(said, (gint64)page->len);
                fprintf(stderr, "buildtrail report: wrote %s (%s)\n", shown, said->str);
                g_string_free(said, TRUE);
            }
        }
    }
    g_string_free(page, TRUE);
    model_clear(&m);
    qdb_close(q);
    return status;
}
