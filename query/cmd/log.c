/* log: the build's output, one job's output together (logorder.h), or --raw. */
#include "driver.h"
#include "logorder.h"
#include "queries.h"
#include "tracedb.h"
#include "query.h"
#include "textout.h"

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

struct log_cli {
    bool raw;
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
    {"process", required_argument, NULL, 'p'},
    {"stream", required_argument, NULL, 's'},
    {0},
};

static const struct query_command log_command = {
    .name = "log",
    .operands = "",
    .about = "Print the build's output (stdout and stderr together), each job's output kept\n"
             "together, jobs in the order they started.  A job is one command started by a build\n"
             "driver (make, ninja, ...); a recursive make's jobs are grouped inside its own.\n"
             "--json prints one object per chunk, in the chosen order.\n",
    .options_help = "      --raw             the exact order the bytes were written, each line\n"
                    "                        prefixed with [ID] of the process that wrote it\n"
                    "      --process ID      only what process ID wrote (IDs as 'buildtrail tree')\n"
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

    GArray *chunks = g_array_new(FALSE, FALSE, sizeof(struct log_chunk));
    sqlite3_stmt *st = NULL;
    qdb_prepare(q, tracedb_sql(TQ_OUTPUT_CHUNKS), &st);
    qdb_bind_int64(q, st, 1, only_process);
    qdb_bind_int64(q, st, 2, only_stream);
    while (st && qdb_row(q, st)) {
        struct log_chunk ch = {
            .seq = sqlite3_column_int64(st, 0),
            .process_id = sqlite3_column_int64(st, 1),
            .stream = sqlite3_column_int(st, 2),
            .time_ns = sqlite3_column_int64(st, 3),
        };
        ch.len = (size_t)sqlite3_column_bytes(st, 4);
        ch.data = g_memdup2(sqlite3_column_blob(st, 4), ch.len);
        g_array_append_val(chunks, ch);
    }
    sqlite3_finalize(st);

    struct log_chunk *cv = (struct log_chunk *)(void *)chunks->data;
    if (!raw) {
        qdb_load_all(q);
        GHashTable *procs = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, g_free);
        GHashTableIter it;
        gpointer v;
        g_hash_table_iter_init(&it, q->processes);
        while (g_hash_table_iter_next(&it, NULL, &v)) {
            const struct qdb_process *p = v;
            struct log_proc *lp = g_new(struct log_proc, 1);
            *lp = (struct log_proc){p->id, p->parent_id, p->start_ns,
                                    log_is_driver(qdb_process_program(p))};
            g_hash_table_insert(procs, &lp->id, lp);
        }
        long hz = sysconf(_SC_CLK_TCK);
        log_sort(cv, chunks->len, procs, hz > 0 ? 1000000000 / hz : 10000000);
        g_hash_table_destroy(procs);
    }

    GString *out = g_string_new(NULL);
    if (json) {
        query_json_begin(out, q, "chunks");
        g_string_append_c(out, '[');
        for (guint i = 0; i < chunks->len; i++) {
            g_string_append_printf(out,
                                   "%s{\"seq\":%" G_GINT64_FORMAT ",\"process\":%" G_GINT64_FORMAT
                                   ",\"stream\":\"%s\",\"time_ns\":%" G_GINT64_FORMAT ",\"data\":",
                                   i ? "," : "", cv[i].seq, cv[i].process_id,
                                   cv[i].stream == 2 ? "stderr" : "stdout", cv[i].time_ns);
            json_string(out, cv[i].data, cv[i].len);
            g_string_append_c(out, '}');
        }
        g_string_append(out, "]}\n");
    } else if (raw) {
        emit_raw(out, cv, chunks->len);
    } else {
        for (guint i = 0; i < chunks->len; i++)
            g_string_append_len(out, cv[i].data, (gssize)cv[i].len);
    }
    int status = query_emit(q, out);
    g_string_free(out, TRUE);
    for (guint i = 0; i < chunks->len; i++)
        g_free((char *)cv[i].data);
    g_array_free(chunks, TRUE);
    qdb_close(q);
    return status;
}
