/* info: what a trace is — the run that recorded it, how it ended, what it holds. */
#include "driver.h"
#include "query.h"
#include "queries.h"
#include "textout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const struct query_command info_command = {
    .name = "info",
    .operands = "",
    .about = "Describe the trace: the build command, its directory, when it started and\n"
             "ended (UTC), its exit status, the run's state and whether the trace is\n"
             "complete, what it holds (processes, programs run, files read and written,\n"
             "output), the trees traced, the options of 'buildtrail run' and the version\n"
             "that recorded it.\n",
};

static void text_field(GString *out, const char *name)
{
    g_string_append_printf(out, "%-11s ", name);
}

int query_info_main(int argc, char **argv)
{
    struct query_opts o = {0};
    int r = query_parse(&info_command, argc, argv, &o, NULL);
    if (r >= 0)
        return r;
    struct qdb *q = query_open_for("info", o.db_path, QUERY_ANY_TRACE);
    if (!q)
        return 1;
    struct qdb_run_info row;
    qdb_load_run_info(q, &row);
    struct tracedb_counts c;
    qdb_counts(q, &c);
    g_autofree char *options = qdb_run_options(q);
    GPtrArray *trees = g_ptr_array_new_with_free_func(g_free); /* "path\0role" pairs */
    sqlite3_stmt *st = NULL;
    if (qdb_prepare(q, tracedb_sql(TQ_TREES), &st))
        while (qdb_row(q, st)) {
            const char *path = (const char *)sqlite3_column_text(st, 0);
            const char *role = (const char *)sqlite3_column_text(st, 1);
            g_ptr_array_add(trees, g_strdup(path ? path : ""));
            g_ptr_array_add(trees, g_strdup(role ? role : ""));
        }
    sqlite3_finalize(st);
    struct stat sb;
    int64_t size = stat(q->path, &sb) == 0 ? (int64_t)sb.st_size : -1;
    const struct qdb_run *run = qdb_run(q);
    GArray *killed = qdb_killed_at_end(q);
    /* A directory the build could not remove because this trace lay in it (run's summary
     * says the same): the highest ancestor of the trace whose rmdir failed as not empty. */
    g_autofree char *real = realpath(q->path, NULL);
    g_autofree char *blocked = NULL;
    if (real && qdb_prepare(q, tracedb_sql(TQ_FAILED_RMDIRS), &st)) {
        while (!blocked && qdb_row(q, st)) {
            const char *d = (const char *)sqlite3_column_text(st, 0);
            if (tracedb_path_below(d, real))
                blocked = g_strdup(d);
        }
        sqlite3_finalize(st);
    }

    GString *out = g_string_new(NULL);
    if (o.json) {
        query_json_begin(out, q, "command");
        if (row.argv)
            json_argv(out, row.argv, row.argv_len);
        else
            g_string_append(out, "null");
        const char *keys[] = {"directory", "hostname", "recorded_by"};
        const char *vals[] = {row.cwd, row.hostname, row.version};
        for (int i = 0; i < 3; i++) {
            g_string_append_printf(out, ",\"%s\":", keys[i]);
            if (vals[i])
                json_string(out, vals[i], strlen(vals[i]));
            else
                g_string_append(out, "null");
        }
        g_string_append(out, ",\"options\":");
        if (options)
            json_string(out, options, strlen(options));
        else
            g_string_append(out, "null");
        g_string_append_printf(out, ",\"size\":%" G_GINT64_FORMAT ",\"schema_version\":%d,"
                                    "\"counts\":{\"processes\":%" G_GINT64_FORMAT
                                    ",\"programs_run\":%" G_GINT64_FORMAT
                                    ",\"files_read\":%" G_GINT64_FORMAT
                                    ",\"files_written\":%" G_GINT64_FORMAT
                                    ",\"versions_written\":",
                               size, q->schema_version, c.processes, c.images, c.files_read,
                               c.files_written);
        /* A trace before schema 3 has no versions: not none, unknown. */
        if (q->schema_version >= 3)
            g_string_append_printf(out, "%" G_GINT64_FORMAT, c.versions_written);
        else
            g_string_append(out, "null");
        g_string_append_printf(out, ",\"output_bytes\":%" G_GINT64_FORMAT "},\"trees\":[",
                               c.output_bytes);
        for (guint i = 0; i + 1 < trees->len; i += 2) {
            g_string_append(out, i ? ",{\"path\":" : "{\"path\":");
            json_string(out, trees->pdata[i], strlen(trees->pdata[i]));
            g_string_append(out, ",\"role\":");
            json_string(out, trees->pdata[i + 1], strlen(trees->pdata[i + 1]));
            g_string_append_c(out, '}');
        }
        g_string_append(out, "],\"removal_blocked_by_trace\":");
        if (blocked)
            json_string(out, blocked, strlen(blocked));
        else
            g_string_append(out, "null");
        g_string_append(out, ",\"killed_at_end\":[");
        for (guint i = 0, listed = 0; i < killed->len; i++) {
            const struct qdb_process *p = qdb_process(q, g_array_index(killed, int64_t, i));
            if (!p)
                continue;
            g_string_append(out, listed++ ? "," : ""); /* a skipped first one leaves no comma */
            query_json_process(out, p);
        }
        g_string_append(out, "]}\n");
    } else {
        text_field(out, "trace:");
        text_escape(out, q->path, strlen(q->path));
        if (size >= 0) {
            g_string_append(out, " (");
            text_size(out, size);
            g_string_append_printf(out, ", schema %d)", q->schema_version);
        }
        g_string_append_c(out, '\n');
        text_field(out, "command:");
        if (row.argv)
            text_argv(out, row.argv, row.argv_len);
        g_string_append_c(out, '\n');
        text_field(out, "directory:");
        if (row.cwd)
            text_escape(out, row.cwd, strlen(row.cwd));
        g_string_append_c(out, '\n');
        char when[32];
        text_field(out, "started:");
        g_string_append_printf(out, "%s\n", text_iso_utc(run->start_realtime_ns, when) ? when
                                                                                       : "?");
        text_field(out, "finished:");
        if (run->end_realtime_ns && text_iso_utc(run->end_realtime_ns, when))
            g_string_append_printf(out, "%s (after %.1f s)\n", when,
                                   (double)(run->end_realtime_ns - run->start_realtime_ns) / 1e9);
        else
            g_string_append(out, "(no end recorded)\n");
        text_field(out, "exit:");
        if (run->exit_status >= 0)
            g_string_append_printf(out, "%d\n", run->exit_status);
        else
            g_string_append(out, "(none recorded)\n");
        text_field(out, "state:");
        g_string_append_printf(out, "%s, %s%s%s\n", qdb_run_state_name(run->state),
                               run->complete ? "complete" : "INCOMPLETE",
                               run->incomplete ? ": " : "",
                               run->incomplete ? run->incomplete : "");
        if (blocked) {
            text_field(out, "note:");
            g_string_append(out, "the build could not remove ");
            text_escape(out, blocked, strlen(blocked));
            g_string_append(out, " (Directory not empty) because this trace lay in it; "
                                 "record it outside the directories the build deletes\n");
        }
        text_field(out, "holds:");
        g_string_append_printf(out, "%" G_GINT64_FORMAT " processes (%" G_GINT64_FORMAT
                                    " programs run), %" G_GINT64_FORMAT " file%s read, %"
                                    G_GINT64_FORMAT " written ",
                               c.processes, c.images, c.files_read,
                               c.files_read == 1 ? "" : "s", c.files_written);
        if (q->schema_version >= 3)
            g_string_append_printf(out, "(%" G_GINT64_FORMAT " version%s), ", c.versions_written,
                                   c.versions_written == 1 ? "" : "s");
        else
            g_string_append(out, "(versions not recorded: an older trace), ");
        text_size(out, c.output_bytes);
        g_string_append(out, " of output\n");
        if (killed->len) {
            text_field(out, "killed:");
            g_string_append_printf(out, "%u process%s left running by the build, killed at its "
                                   "end (natively %s would have gone on):", killed->len,
                                   killed->len == 1 ? "" : "es", killed->len == 1 ? "it" : "they");
            for (guint i = 0; i < killed->len && i < 10; i++) {
                const struct qdb_process *p = qdb_process(q, g_array_index(killed, int64_t, i));
                if (!p)
                    continue;
                g_string_append(out, i ? ", " : " ");
                query_text_process(out, p);
            }
            /* (all of them in --json, and in 'tree') */
            g_string_append(out, killed->len > 10 ? ", ...\n" : "\n");
        }
        text_field(out, "traced:");
        bool system = false;
        for (guint i = 0; i + 1 < trees->len; i += 2) {
            const char *path = trees->pdata[i], *role = trees->pdata[i + 1];
            system |= !strcmp(path, "/usr") || !strcmp(path, "/");
            g_string_append(out, i ? ", " : "");
            text_escape(out, path, strlen(path));
            if (strcmp(role, "trace"))
                g_string_append_printf(out, " (%s)", role);
        }
        g_string_append_printf(out, "%s\n", system ? "" : "; not the system trees (--system)");
        text_field(out, "options:");
        g_string_append_printf(out, "%s\n", options ? (*options ? options : "(none)")
                                                    : "(not recorded: an older trace)");
        text_field(out, "recorded:");
        g_string_append_printf(out, "by buildtrail %s on %s\n", row.version ? row.version : "?",
                               row.hostname ? row.hostname : "?");
    }
    int status = query_emit(q, out);
    g_string_free(out, TRUE);
    g_ptr_array_free(trees, TRUE);
    g_array_free(killed, TRUE);
    qdb_run_info_clear(&row);
    qdb_close(q);
    return status;
}
