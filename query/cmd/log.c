/* log: the build's output, one job's output together (logorder.h), or --raw. */
#include "driver.h"
#include "jsonw.h"
#include "logorder.h"
#include "query.h"
#include "stmt.h"
#include "textout.h"
#include "tracedb.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>


/* --raw: prefix each line with its writer; a line left open by one writer and continued by
 * another is closed first, so every output line has exactly one writer. */
static void emit_raw(GString *out, const struct log_chunk *c, size_t n)
{
    int64_t open_writer = -1; /* writer of the unterminated line at the end of out, or -1 */
    for (size_t i = 0; i < n; i++) {
        if (open_writer >= 0 && open_writer != c[i].process_id) {
            g_string_append_c(out, '\n');
            open_writer = -1;
        }
        for (size_t k = 0; k < c[i].len; k++) {
            if (open_writer < 0) {
                g_string_append_printf(out, "[%" G_GINT64_FORMAT "] ", c[i].process_id);
                open_writer = c[i].process_id;
            }
            g_string_append_c(out, c[i].data[k]);
            if (c[i].data[k] == '\n')
                open_writer = -1;
        }
    }
    if (open_writer >= 0)
        g_string_append_c(out, '\n');
}

/* The last image of the process whose first image is `p` (what its exit is recorded on). */
static const struct qdb_process *last_image(GHashTable *next_image, const struct qdb_process *p)
{
    for (int guard = 0; guard < 10000; guard++) {
        const struct qdb_process *n = g_hash_table_lookup(next_image, &p->id);
        if (!n)
            break;
        p = n;
    }
    return p;
}

static bool failed_exit(const struct qdb_process *p)
{
    return p->exited && (p->exit_signal || p->exit_code != 0);
}

/* --failed: the jobs that failed with no failed job inside them, each with its command, its
 * exit and its output (its echo included), in log order. */
static void emit_failed(GString *out, struct qdb *q, GHashTable *procs, GHashTable *next_image,
                        const struct log_chunk *cv, size_t n, bool json, int64_t only_process)
{
    bool any_driver = false;
    GHashTableIter it;
    gpointer v;
    g_hash_table_iter_init(&it, procs);
    while (g_hash_table_iter_next(&it, NULL, &v))
        any_driver |= ((const struct log_proc *)v)->driver;
    int64_t root = qdb_run(q)->root_id;
    GPtrArray *failed = g_ptr_array_new();
    g_hash_table_iter_init(&it, procs);
    while (g_hash_table_iter_next(&it, NULL, &v)) {
        const struct log_proc *lp = v;
        const struct log_proc *parent =
            lp->parent_id ? g_hash_table_lookup(procs, &lp->parent_id) : NULL;
        bool job = any_driver ? parent && parent->driver : parent && parent->id == root;
        const struct qdb_process *p = qdb_process(q, lp->id);
        /* with --process ID: the jobs inside ID, or the one ID is part of */
        bool wanted = !only_process || log_in_job(procs, lp->id, only_process) ||
                      log_in_job(procs, only_process, lp->id);
        if (job && wanted && p && p->exec_seq == 0 && failed_exit(last_image(next_image, p)))
            g_ptr_array_add(failed, (gpointer)lp);
    }
    /* innermost: a failed job inside another failed job explains it */
    GPtrArray *leaves = g_ptr_array_new();
    for (guint i = 0; i < failed->len; i++) {
        const struct log_proc *j = failed->pdata[i];
        bool inner = false;
        for (guint k = 0; k < failed->len && !inner; k++)
            inner = k != i && log_in_job(procs, ((const struct log_proc *)failed->pdata[k])->id,
                                         j->id);
        if (!inner)
            g_ptr_array_add(leaves, (gpointer)j);
    }
    g_ptr_array_sort(leaves, log_proc_by_start);
    struct jsonw w;
    jsonw_init(&w, out);
    if (json) {
        query_json_begin(out, q, "failed_jobs");
        jsonw_array_begin(&w);
    }
    for (guint i = 0; i < leaves->len; i++) {
        const struct log_proc *j = leaves->pdata[i];
        const struct qdb_process *last = last_image(next_image, qdb_process(q, j->id));
        GString *text = g_string_new(NULL);
        for (size_t c = 0; c < n; c++)
            if (log_in_job(procs, cv[c].filed_under, j->id))
                g_string_append_len(text, cv[c].data, (gssize)cv[c].len);
        if (json) {
            jsonw_object_begin(&w);
            jsonw_key(&w, "process");
            query_json_process(jsonw_raw_value(&w), last);
            jsonw_kv_int(&w, "job", j->id);
            jsonw_key(&w, "exit_code");
            if (last->exit_signal)
                jsonw_null(&w);
            else
                jsonw_int(&w, last->exit_code);
            jsonw_key(&w, "exit_signal");
            if (last->exit_signal)
                jsonw_int(&w, last->exit_signal);
            else
                jsonw_null(&w);
            jsonw_key(&w, "output");
            jsonw_string_len(&w, text->str, text->len);
            jsonw_object_end(&w);
        } else {
            g_string_append(out, "== ");
            query_text_process(out, last);
            query_text_exit(out, last);
            g_string_append_c(out, '\n');
            g_string_append_len(out, text->str, (gssize)text->len);
            if (text->len && text->str[text->len - 1] != '\n')
                g_string_append_c(out, '\n');
        }
        g_string_free(text, TRUE);
    }
    if (json) {
        jsonw_array_end(&w);
        g_string_append(out, "}\n");
    } else if (!leaves->len && !qdb_failed(q))
        fputs("buildtrail log: no job failed\n", stderr);
    g_ptr_array_free(leaves, TRUE);
    g_ptr_array_free(failed, TRUE);
}

/* --json: one object per chunk. */
static void emit_json(GString *out, struct qdb *q, const struct log_chunk *cv, size_t n)
{
    struct jsonw w;
    jsonw_init(&w, out);
    query_json_begin(jsonw_raw_object_begin(&w), q, NULL);
    jsonw_key(&w, "chunks");
    jsonw_array_begin(&w);
    for (size_t i = 0; i < n; i++) {
        jsonw_object_begin(&w);
        jsonw_kv_int(&w, "seq", cv[i].seq);
        jsonw_kv_int(&w, "process", cv[i].process_id);
        jsonw_kv_string(&w, "stream", cv[i].stream == 2 ? "stderr" : "stdout");
        query_json_time(jsonw_raw_led_members(&w), "time", cv[i].time_ns);
        jsonw_kv_int(&w, "time_ns", cv[i].time_ns);
        jsonw_key(&w, "data");
        jsonw_string_len(&w, cv[i].data, cv[i].len);
        jsonw_object_end(&w);
    }
    jsonw_array_end(&w);
    jsonw_object_end(&w);
    g_string_append_c(out, '\n');
}

struct log_cli {
    bool raw, failed;
    int64_t only_process;
    int only_stream; /* 0 both, else TRACEDB_STDOUT / TRACEDB_STDERR */
};

static int log_option(void *ctx, int c, const char *arg)
{
    struct log_cli *o = ctx;
    switch (c) {
    case 'r':
        o->raw = true;
        return 0;
    case 'f':
        o->failed = true;
        return 0;
    case 'p':
        return query_parse_id("log", "--process", arg, &o->only_process) ? 0 : 2;
    case 's':
        o->only_stream = !strcmp(arg, "out") || !strcmp(arg, "stdout")   ? TRACEDB_STDOUT
                         : !strcmp(arg, "err") || !strcmp(arg, "stderr") ? TRACEDB_STDERR
                                                                         : -1;
        if (o->only_stream < 0) {
            fprintf(stderr, "buildtrail log: --stream %s: say 'out' or 'err'\n", arg);
            return 2;
        }
        return 0;
    }
    return 2;
}

static const struct option log_options[] = {
    {"raw", no_argument, NULL, 'r'},
    {"failed", no_argument, NULL, 'f'},
    {"process", required_argument, NULL, 'p'},
    {"stream", required_argument, NULL, 's'},
    {0},
};

static const struct query_command log_command = {
    .name = "log",
    .operands = "",
    .about = "Print the build's output (stdout and stderr together), each job's output\n"
             "kept together, jobs in the order they started.  A job is one command started\n"
             "by a build driver (make, ninja, ...); a recursive make's jobs are grouped\n"
             "inside its own; the driver's echo of a recipe is printed with the job it\n"
             "starts, as make -O does.  --json prints one object per chunk, in the chosen\n"
             "order.\n",
    .options_help = "      --raw             the exact order the bytes were written, each line\n"
                    "                        prefixed with [ID] of the process that wrote it\n"
                    "      --failed          only the jobs that failed (exit status not 0, or\n"
                    "                        killed), innermost: each with its command and exit,\n"
                    "                        then its output (without a driver, the build\n"
                    "                        command's children are the jobs)\n"
                    "      --process ID      only what process ID (before and after an exec)\n"
                    "                        and the processes it started wrote, grouped as\n"
                    "                        jobs are (IDs as 'buildtrail tree')\n"
                    "      --stream S        only stdout (out) or stderr (err)\n",
    .options = log_options,
    .option = log_option,
};

int query_log_main(int argc, char **argv)
{
    struct query_opts o = {0};
    struct log_cli l = {0};
    int r = query_parse(&log_command, argc, argv, &o, &l);
    if (r >= 0)
        return r;
    if (l.raw && l.failed) {
        fputs("buildtrail log: --raw and --failed do not go together; give one of them\n", stderr);
        return 2;
    }
    bool raw = l.raw;
    int64_t only_process = l.only_process;
    int only_stream = l.only_stream;
    bool json = o.json;
    struct qdb *q = query_open("log", o.db_path);
    if (!q)
        return 1;
    if (only_process && !qdb_process(q, only_process)) {
        if (!query_failed(q))
            fprintf(stderr, "buildtrail log: --process %" G_GINT64_FORMAT ": no such process in the "
                        "trace; take an ID from 'buildtrail tree'\n", only_process);
        qdb_close(q);
        return 1;
    }

    GArray *chunks = qdb_output_chunks(q, only_stream); /* --process: descendants too, below */

    struct log_chunk *cv = (struct log_chunk *)(void *)chunks->data;
    GHashTable *procs = NULL, *next_image = NULL;
    GPtrArray *commands = g_ptr_array_new_with_free_func(g_free);
    if (!raw || only_process) {
        qdb_load_all(q);
        procs = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, g_free);
        next_image = g_hash_table_new(g_int64_hash, g_int64_equal);
        GHashTableIter it;
        gpointer v;
        g_hash_table_iter_init(&it, q->processes);
        while (g_hash_table_iter_next(&it, NULL, &v)) {
            const struct qdb_process *p = v;
            if (p->prev_image_id)
                g_hash_table_insert(next_image, (gpointer)&p->prev_image_id, (gpointer)p);
        }
        g_hash_table_iter_init(&it, q->processes);
        while (g_hash_table_iter_next(&it, NULL, &v)) {
            const struct qdb_process *p = v;
            /* what it runs: the image it exec'd into (a driver forks, then execs the job) */
            const struct qdb_process *runs = g_hash_table_lookup(next_image, &p->id);
            if (!runs)
                runs = p;
            char *command = runs->argv ? log_job_command(runs->argv, runs->argv_len) : NULL;
            if (command)
                g_ptr_array_add(commands, command);
            /* A process is one job whatever it execs: an image's parent here is the image
             * it replaced, and a driver's forked copy that exec'd is not a driver. */
            struct log_proc *lp = g_new(struct log_proc, 1);
            *lp = (struct log_proc){p->id, p->prev_image_id ? p->prev_image_id : p->parent_id,
                                    p->start_ns,
                                    runs == p && log_is_driver(qdb_process_program(p)),
                                    command};
            g_hash_table_insert(procs, &lp->id, lp);
        }
        long hz = sysconf(_SC_CLK_TCK);
        if (!raw)
            log_sort(cv, chunks->len, procs, hz > 0 ? 1000000000 / hz : 10000000);
    }
    if (only_process) {
        /* What the process ID is an image of wrote, from its first image (a driver's forked
         * child, before it exec'd the job) on, and every process it started, as a job's output
         * is grouped: a driver's echo of its command with it (in --raw, lines are filed under
         * their writers, so without the echo). */
        const struct qdb_process *first = qdb_process(q, only_process);
        for (guint guard = 0; first && first->prev_image_id && guard < 100000; guard++) {
            const struct qdb_process *before = qdb_process(q, first->prev_image_id);
            if (!before)
                break;
            first = before;
        }
        if (first)
            only_process = first->id;
        guint kept = 0;
        for (guint i = 0; i < chunks->len; i++) {
            int64_t who = raw ? cv[i].process_id : cv[i].filed_under;
            if (log_in_job(procs, who, only_process))
                cv[kept++] = cv[i];
            else
                g_free((char *)cv[i].data);
        }
        g_array_set_size(chunks, kept);
        cv = (struct log_chunk *)(void *)chunks->data;
    }

    GString *out = g_string_new(NULL);
    if (l.failed) {
        emit_failed(out, q, procs, next_image, cv, chunks->len, json, only_process);
    } else if (json) {
        emit_json(out, q, cv, chunks->len);
    } else if (raw) {
        emit_raw(out, cv, chunks->len);
    } else {
        for (guint i = 0; i < chunks->len; i++)
            g_string_append_len(out, cv[i].data, (gssize)cv[i].len);
    }
    int status = query_emit(q, out);
    g_string_free(out, TRUE);
    if (procs)
        g_hash_table_destroy(procs);
    if (next_image)
        g_hash_table_destroy(next_image);
    g_ptr_array_free(commands, TRUE);
    for (guint i = 0; i < chunks->len; i++)
        g_free((char *)cv[i].data);
    g_array_free(chunks, TRUE);
    qdb_close(q);
    return status;
}
