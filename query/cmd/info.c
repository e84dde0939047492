/* info: what a trace is — the run that recorded it, how it ended, what it holds. */
#include "driver.h"
#include "jsonw.h"
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
             "output), the trees traced, the options of 'buildtrail run', the variations\n"
             "it made (run --vary, --vary-control: each one's value, or why it was not\n"
             "varied) and the version that recorded it.\n",
};

static void text_field(GString *out, const char *name)
{
    g_string_append_printf(out, "%-11s ", name);
}

/* What `info` answers, read from the trace. */
struct info_answer {
    struct qdb_run_info row;
    struct tracedb_counts c;
    char *options;    /* the run's options, or NULL (an older trace) */
    GPtrArray *trees; /* "path", "role" pairs */
    int64_t size;     /* the trace file's, or -1 */
    GArray *killed;   /* the processes killed at the end */
    char *blocked;    /* the directory the build could not remove because the trace lay in
                       * it, or NULL */
    GPtrArray *vary;  /* struct info_variation*, or NULL: not recorded (before schema 9) */
};

struct info_variation {
    char *name, *side, *value, *why_not;
    bool applied;
};

static void variation_free(gpointer p)
{
    struct info_variation *v = p;
    g_free(v->name);
    g_free(v->side);
    g_free(v->value);
    g_free(v->why_not);
    g_free(v);
}

static char *column_dup(sqlite3_stmt *st, int col)
{
    const char *t = (const char *)sqlite3_column_text(st, col);
    return t ? g_strdup(t) : NULL;
}

/* The variations the run made (schema 9 on). */
static GPtrArray *collect_variations(struct qdb *q)
{
    if (q->schema_version < 9)
        return NULL;
    GPtrArray *out = g_ptr_array_new_with_free_func(variation_free);
    sqlite3_stmt *st = NULL;
    if (qdb_prepare(q, tracedb_sql(TQ_VARIATIONS), &st))
        while (qdb_row(q, st)) {
            struct info_variation *v = g_new0(struct info_variation, 1);
            v->name = column_dup(st, TQ_VARIATIONS_NAME);
            v->side = column_dup(st, TQ_VARIATIONS_SIDE);
            v->value = column_dup(st, TQ_VARIATIONS_VALUE);
            v->applied = sqlite3_column_int64(st, TQ_VARIATIONS_APPLIED) != 0;
            v->why_not = column_dup(st, TQ_VARIATIONS_WHY_NOT);
            g_ptr_array_add(out, v);
        }
    sqlite3_finalize(st);
    return out;
}

static void info_collect(struct qdb *q, struct info_answer *a)
{
    qdb_load_run_info(q, &a->row);
    qdb_counts(q, &a->c);
    a->options = qdb_run_options(q);
    a->trees = g_ptr_array_new_with_free_func(g_free);
    sqlite3_stmt *st = NULL;
    if (qdb_prepare(q, tracedb_sql(TQ_TREES), &st))
        while (qdb_row(q, st)) {
            const char *path = (const char *)sqlite3_column_text(st, TQ_TREES_PATH);
            const char *role = (const char *)sqlite3_column_text(st, TQ_TREES_ROLE);
            g_ptr_array_add(a->trees, g_strdup(path ? path : ""));
            g_ptr_array_add(a->trees, g_strdup(role ? role : ""));
        }
    sqlite3_finalize(st);
    struct stat sb;
    a->size = stat(q->path, &sb) == 0 ? (int64_t)sb.st_size : -1;
    a->killed = qdb_killed_at_end(q);
    a->vary = collect_variations(q);
    /* A directory the build could not remove because this trace lay in it (run's summary
     * says the same): the highest ancestor of the trace whose rmdir failed as not empty. */
    g_autofree char *real = realpath(q->path, NULL);
    if (real && qdb_prepare(q, tracedb_sql(TQ_FAILED_RMDIRS), &st)) {
        while (!a->blocked && qdb_row(q, st)) {
            const char *d = (const char *)sqlite3_column_text(st, 0);
            if (tracedb_path_below(d, real))
                a->blocked = g_strdup(d);
        }
        sqlite3_finalize(st);
    }
}

static void info_clear(struct info_answer *a)
{
    g_ptr_array_free(a->trees, TRUE);
    g_array_free(a->killed, TRUE);
    g_free(a->options);
    g_free(a->blocked);
    if (a->vary)
        g_ptr_array_free(a->vary, TRUE);
    qdb_run_info_clear(&a->row);
}

static void json_counts(struct jsonw *w, struct qdb *q, const struct tracedb_counts *c)
{
    jsonw_key(w, "counts");
    jsonw_object_begin(w);
    jsonw_kv_int(w, "processes", c->processes);
    jsonw_kv_int(w, "programs_run", c->images);
    jsonw_kv_int(w, "files_read", c->files_read);
    jsonw_kv_int(w, "files_written", c->files_written);
    jsonw_key(w, "versions_written");
    if (q->schema_version >= 3)
        jsonw_int(w, c->versions_written);
    else
        jsonw_null(w); /* a trace before schema 3 has no versions: not none, unknown */
    jsonw_kv_int(w, "output_bytes", c->output_bytes);
    jsonw_object_end(w);
}

/* "variations": one object per variation, or null before schema 9. */
static void json_variations(struct jsonw *w, const GPtrArray *vary)
{
    jsonw_key(w, "variations");
    if (!vary) {
        jsonw_null(w);
        return;
    }
    jsonw_array_begin(w);
    for (guint i = 0; i < vary->len; i++) {
        const struct info_variation *v = vary->pdata[i];
        jsonw_object_begin(w);
        jsonw_kv_string(w, "name", v->name);
        jsonw_kv_string(w, "side", v->side);
        jsonw_kv_string(w, "value", v->value);
        jsonw_kv_bool(w, "applied", v->applied);
        jsonw_kv_string(w, "why_not", v->why_not);
        jsonw_object_end(w);
    }
    jsonw_array_end(w);
}

static void render_json(GString *out, struct qdb *q, const struct info_answer *a)
{
    struct jsonw w;
    query_jsonw_begin(&w, out, q);
    jsonw_key(&w, "command");
    if (a->row.argv)
        jsonw_argv(&w, a->row.argv, a->row.argv_len);
    else
        jsonw_null(&w);
    jsonw_kv_string(&w, "directory", a->row.cwd);
    jsonw_kv_string(&w, "hostname", a->row.hostname);
    jsonw_kv_string(&w, "recorded_by", a->row.version);
    jsonw_kv_string(&w, "options", a->options);
    jsonw_kv_int(&w, "size", a->size);
    jsonw_kv_int(&w, "schema_version", q->schema_version);
    json_counts(&w, q, &a->c);
    jsonw_key(&w, "trees");
    jsonw_array_begin(&w);
    for (guint i = 0; i + 1 < a->trees->len; i += 2) {
        jsonw_object_begin(&w);
        jsonw_kv_string(&w, "path", a->trees->pdata[i]);
        jsonw_kv_string(&w, "role", a->trees->pdata[i + 1]);
        jsonw_object_end(&w);
    }
    jsonw_array_end(&w);
    json_variations(&w, a->vary);
    jsonw_kv_string(&w, "removal_blocked_by_trace", a->blocked);
    jsonw_key(&w, "killed_at_end");
    jsonw_array_begin(&w);
    for (guint i = 0; i < a->killed->len; i++) {
        const struct qdb_process *p = qdb_process(q, g_array_index(a->killed, int64_t, i));
        if (!p)
            continue;
        g_autoptr(GString) proc = g_string_new(NULL);
        query_json_process(proc, p);
        jsonw_raw(&w, proc->str);
    }
    jsonw_array_end(&w);
    jsonw_object_end(&w);
    g_string_append_c(out, '\n');
}

/* trace, command, directory, started, finished, exit, state, and the note on a directory
 * the trace kept from being removed. */
static void text_run(GString *out, struct qdb *q, const struct info_answer *a)
{
    const struct qdb_run *run = qdb_run(q);
    text_field(out, "trace:");
    text_escape(out, q->path, strlen(q->path));
    if (a->size >= 0) {
        g_string_append(out, " (");
        text_size(out, a->size);
        g_string_append_printf(out, ", schema %d)", q->schema_version);
    }
    g_string_append_c(out, '\n');
    text_field(out, "command:");
    if (a->row.argv)
        text_argv(out, a->row.argv, a->row.argv_len);
    g_string_append_c(out, '\n');
    text_field(out, "directory:");
    if (a->row.cwd)
        text_escape(out, a->row.cwd, strlen(a->row.cwd));
    g_string_append_c(out, '\n');
    char when[32];
    text_field(out, "started:");
    g_string_append_printf(out, "%s\n", text_iso_utc(run->start_realtime_ns, when) ? when : "?");
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
                           run->complete ? "complete" : "INCOMPLETE", run->incomplete ? ": " : "",
                           run->incomplete ? run->incomplete : "");
    if (a->blocked) {
        text_field(out, "note:");
        g_string_append(out, "the build could not remove ");
        text_escape(out, a->blocked, strlen(a->blocked));
        g_string_append(out, " (Directory not empty) because this trace lay in it; "
                             "record it outside the directories the build deletes\n");
    }
}

/* holds: the counts; killed: the processes killed at the end (the first 10). */
static void text_holds(GString *out, struct qdb *q, const struct info_answer *a)
{
    const struct tracedb_counts *c = &a->c;
    text_field(out, "holds:");
    g_string_append_printf(out, "%" G_GINT64_FORMAT " processes (%" G_GINT64_FORMAT
                                " programs run), %" G_GINT64_FORMAT " file%s read, %"
                                G_GINT64_FORMAT " written ",
                           c->processes, c->images, c->files_read,
                           c->files_read == 1 ? "" : "s", c->files_written);
    if (q->schema_version >= 3)
        g_string_append_printf(out, "(%" G_GINT64_FORMAT " version%s), ", c->versions_written,
                               c->versions_written == 1 ? "" : "s");
    else
        g_string_append(out, "(versions not recorded: an older trace), ");
    text_size(out, c->output_bytes);
    g_string_append(out, " of output\n");
    GArray *killed = a->killed;
    if (!killed->len)
        return;
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

/* varied: the side, then one line per variation: its value, or why it was not varied. */
static void text_variations(GString *out, const GPtrArray *vary)
{
    if (!vary || !vary->len)
        return;
    const struct info_variation *first = vary->pdata[0];
    bool mixed = false; /* run --vary-control with --vary: a bisection step */
    for (guint i = 1; i < vary->len; i++)
        mixed |= g_strcmp0(((const struct info_variation *)vary->pdata[i])->side, first->side);
    text_field(out, "varied:");
    if (mixed)
        g_string_append(out, "the control's values, the experiment's where said (run "
                             "--vary-control with --vary)\n");
    else
        g_string_append_printf(out, "the %s's values (run --vary%s)\n",
                               first->side ? first->side : "?",
                               g_strcmp0(first->side, "control") ? "" : "-control");
    for (guint i = 0; i < vary->len; i++) {
        const struct info_variation *v = vary->pdata[i];
        g_string_append_printf(out, "  %-13s ", v->name ? v->name : "?");
        if (mixed && g_strcmp0(v->side, "control"))
            g_string_append_printf(out, "%s: ", v->side ? v->side : "?");
        if (!v->applied)
            g_string_append(out, "NOT VARIED: ");
        if (v->value)
            text_escape(out, v->value, strlen(v->value));
        if (v->why_not) {
            g_string_append(out, v->applied ? " (partly: " : " (");
            text_escape(out, v->why_not, strlen(v->why_not));
            g_string_append_c(out, ')');
        }
        g_string_append_c(out, '\n');
    }
}

static void render_text(GString *out, struct qdb *q, const struct info_answer *a)
{
    text_run(out, q, a);
    text_holds(out, q, a);
    text_field(out, "traced:");
    bool system = false;
    for (guint i = 0; i + 1 < a->trees->len; i += 2) {
        const char *path = a->trees->pdata[i], *role = a->trees->pdata[i + 1];
        system |= !strcmp(path, "/usr") || !strcmp(path, "/");
        g_string_append(out, i ? ", " : "");
        text_escape(out, path, strlen(path));
        if (strcmp(role, "trace"))
            g_string_append_printf(out, " (%s)", role);
    }
    g_string_append_printf(out, "%s\n", system ? "" : "; not the system trees (--system)");
    text_field(out, "options:");
    g_string_append_printf(out, "%s\n", a->options ? (*a->options ? a->options : "(none)")
                                                   : "(not recorded: an older trace)");
    text_variations(out, a->vary);
    text_field(out, "recorded:");
    g_string_append_printf(out, "by buildtrail %s on %s\n",
                           a->row.version ? a->row.version : "?",
                           a->row.hostname ? a->row.hostname : "?");
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
    struct info_answer a = {0};
    info_collect(q, &a);
    GString *out = g_string_new(NULL);
    if (o.json)
        render_json(out, q, &a);
    else
        render_text(out, q, &a);
    int status = query_emit(q, out);
    g_string_free(out, TRUE);
    info_clear(&a);
    qdb_close(q);
    return status;
}
