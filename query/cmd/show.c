/* show: everything the trace knows about one process image. */
#include "denials.h"
#include "driver.h"
#include "jsonw.h"
#include "terminal.h"
#include "query.h"
#include "stmt.h"
#include "textout.h"
#include "tracedb.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct file_use {
    char *path;
    int kind;
    int64_t bytes, count;
    int result;
    int64_t version_id;
};

static void free_use(gpointer p)
{
    struct file_use *u = p;
    g_free(u->path);
    g_free(u);
}

/* What image ?1 did to each file, with versions: one row per file, kind and version. */
TRACEDB_STATEMENT(sql_file_uses, 3, TRACEDB_SCHEMA_VERSION,
                  "SELECT f.path, a.kind, SUM(COALESCE(a.bytes, 0)), COUNT(*), MIN(a.result), "
                  "MAX(a.version_id), MIN(a.first_ns) AS t FROM accesses a JOIN files f ON "
                  "f.id = a.file_id WHERE a.process_id = ? GROUP BY a.file_id, a.kind, "
                  "a.version_id ORDER BY t, a.kind");
/* The same before schema 3 (no versions: NULL). */
TRACEDB_STATEMENT(sql_file_uses_v1, 1, 2,
                  "SELECT f.path, a.kind, SUM(COALESCE(a.bytes, 0)), COUNT(*), MIN(a.result), "
                  "MAX(NULL), MIN(a.first_ns) AS t FROM accesses a JOIN files f ON f.id = "
                  "a.file_id WHERE a.process_id = ? GROUP BY a.file_id, a.kind ORDER BY t, "
                  "a.kind");
enum { USE_PATH, USE_KIND, USE_BYTES, USE_COUNT, USE_RESULT, USE_VERSION, USE_FIRST };
/* Image ?1's children (forks, not the exec chain). */
TRACEDB_STATEMENT(sql_child_images, 1, TRACEDB_SCHEMA_VERSION,
                  "SELECT id FROM processes WHERE parent_id = ?1 AND (prev_image_id IS NULL OR "
                  "prev_image_id NOT IN (SELECT id FROM processes WHERE parent_id = ?1)) "
                  "ORDER BY id");
enum { CHILD_ID };
/* The image that replaced ?1 by exec. */
TRACEDB_STATEMENT(sql_next_image, 1, TRACEDB_SCHEMA_VERSION,
                  "SELECT id FROM processes WHERE prev_image_id = ?1 LIMIT 1");
enum { NEXT_ID };
/* (both read with qdb_ids, which gives the first column of each row) */
G_STATIC_ASSERT(CHILD_ID == 0 && NEXT_ID == 0);
/* What image ?1 wrote to stdout and stderr, in order. */
TRACEDB_STATEMENT(sql_output_of_process, 1, TRACEDB_SCHEMA_VERSION,
                  "SELECT stream, data FROM output WHERE process_id = ? ORDER BY seq");
enum { OUTPUT_STREAM, OUTPUT_DATA };

static GPtrArray *file_uses(struct qdb *q, int64_t id)
{
    GPtrArray *uses = g_ptr_array_new_with_free_func(free_use);
    sqlite3_stmt *st = NULL;
    /* Versions came with schema 3. */
    if (qdb_prepare(q, q->schema_version >= 3 ? sql_file_uses : sql_file_uses_v1, &st)) {
        qdb_bind_int64(q, st, 1, id);
        while (qdb_row(q, st)) {
            struct file_use *u = g_new0(struct file_use, 1);
            u->path = g_strdup((const char *)sqlite3_column_text(st, USE_PATH));
            u->kind = sqlite3_column_int(st, USE_KIND);
            u->bytes = sqlite3_column_int64(st, USE_BYTES);
            u->count = sqlite3_column_int64(st, USE_COUNT);
            u->result = sqlite3_column_int(st, USE_RESULT);
            u->version_id = sqlite3_column_int64(st, USE_VERSION);
            g_ptr_array_add(uses, u);
        }
    }
    sqlite3_finalize(st);
    return uses;
}

static GArray *children_of(struct qdb *q, int64_t id)
{
    /* Forked children: images whose parent is `id`, not counting exec successors of those.
     * Each is loaded, which checks its links (a "child" older than its parent is damage). */
    GArray *kids = qdb_ids(q, sql_child_images, id);
    for (guint i = 0; i < kids->len; i++)
        qdb_process(q, g_array_index(kids, int64_t, i));
    return kids;
}

static int64_t exec_successor(struct qdb *q, int64_t id)
{
    GArray *next = qdb_ids(q, sql_next_image, id);
    int64_t n = next->len ? g_array_index(next, int64_t, 0) : 0;
    g_array_unref(next);
    if (n)
        qdb_process(q, n); /* checks its links: an exec successor older than `id` is damage */
    return n;
}

static bool is_read(int k)
{
    return k == TRACEDB_READ || k == TRACEDB_EXEC;
}

static bool is_write(int k)
{
    return k == TRACEDB_WRITE || k == TRACEDB_CREATE || k == TRACEDB_TRUNCATE ||
           k == TRACEDB_RENAME_TO || k == TRACEDB_LINK || k == TRACEDB_SYMLINK ||
           k == TRACEDB_MKDIR;
}

static void text_use(GString *out, struct prov *p, const struct file_use *u)
{
    g_string_append_printf(out, "    %-11s ", tracedb_access_kind_name(u->kind));
    text_escape(out, u->path, strlen(u->path));
    /* (the kind is the first column; a read's count is a floor: see query_text_access) */
    if (u->kind == TRACEDB_READ && u->bytes > 0)
        g_string_append_printf(out, "  at least %" G_GINT64_FORMAT " bytes", u->bytes);
    else if (u->kind == TRACEDB_WRITE && u->bytes >= 0)
        g_string_append_printf(out, "  %" G_GINT64_FORMAT " bytes", u->bytes);
    if (u->count > 1)
        g_string_append_printf(out, "  (%" G_GINT64_FORMAT " times)", u->count);
    if (u->result)
        g_string_append_printf(out, "  [%s]", g_strerror(u->result));
    const struct prov_version *v = p && u->version_id ? prov_version(p, u->version_id) : NULL;
    if (v && v->sha256[0])
        g_string_append_printf(out, "  v%" G_GINT64_FORMAT " sha256 %.16s", v->id, v->sha256);
    g_string_append_c(out, '\n');
}

static void json_use(struct jsonw *w, struct prov *p, const struct file_use *u)
{
    jsonw_object_begin(w);
    jsonw_kv_string(w, "path", u->path);
    jsonw_kv_string(w, "kind", tracedb_access_kind_name(u->kind));
    query_json_bytes(jsonw_raw_led_members(w), u->kind, u->bytes);
    jsonw_kv_int(w, "count", u->count);
    jsonw_kv_int(w, "result", u->result);
    const struct prov_version *v = p && u->version_id ? prov_version(p, u->version_id) : NULL;
    if (v) {
        jsonw_kv_int(w, "version", v->id);
        if (v->sha256[0])
            jsonw_kv_string(w, "sha256", v->sha256);
    }
    jsonw_object_end(w);
}

static void output_of(struct qdb *q, int64_t id, GString *out, struct jsonw *w)
{
    sqlite3_stmt *st = NULL;
    if (!qdb_prepare(q, sql_output_of_process, &st))
        return;
    qdb_bind_int64(q, st, 1, id);
    GString *line = g_string_new(NULL);
    int stream = 0;
    while (qdb_row(q, st)) {
        int s = sqlite3_column_int(st, OUTPUT_STREAM);
        const char *data = sqlite3_column_blob(st, OUTPUT_DATA);
        int n = sqlite3_column_bytes(st, OUTPUT_DATA);
        if (w) {
            jsonw_object_begin(w);
            jsonw_kv_string(w, "stream", s == TRACEDB_STDERR ? "stderr" : "stdout");
            jsonw_key(w, "data");
            jsonw_string_len(w, data ? data : "", (size_t)n);
            jsonw_object_end(w);
            continue;
        }
        for (int i = 0; i < n; i++) {
            if (line->len && s != stream) {
                g_string_append_printf(out, "    %s| ", stream == TRACEDB_STDERR ? "2" : "1");
                text_escape(out, line->str, line->len);
                g_string_append_c(out, '\n');
                g_string_truncate(line, 0);
            }
            stream = s;
            if (data[i] == '\n') {
                g_string_append_printf(out, "    %s| ", s == TRACEDB_STDERR ? "2" : "1");
                text_escape(out, line->str, line->len);
                g_string_append_c(out, '\n');
                g_string_truncate(line, 0);
            } else {
                g_string_append_c(line, data[i]);
            }
        }
    }
    if (line->len) {
        g_string_append_printf(out, "    %s| ", stream == TRACEDB_STDERR ? "2" : "1");
        text_escape(out, line->str, line->len);
        g_string_append(out, "  (no newline)\n");
    }
    g_string_free(line, TRUE);
    sqlite3_finalize(st);
}

static void env_text_entry(const char *name, const char *value, void *data)
{
    GString *out = data;
    g_string_append(out, "    ");
    text_escape(out, name, strlen(name));
    if (value) {
        g_string_append_c(out, '=');
        text_escape(out, value, strlen(value));
    } else {
        g_string_append(out, "  (value not recorded: redacted)");
    }
    g_string_append_c(out, '\n');
}

/* What was hidden from process `id` (run --only-inputs): text lines, or a JSON array in w. */
static void denied_to(struct qdb *q, int64_t id, GString *out, struct jsonw *w)
{
    bool recorded;
    GArray *d = denials_load(q, id, &recorded);
    if (!d)
        return; /* the error is q's: query_emit says it */
    if (w)
        jsonw_array_begin(w);
    for (guint i = 0; i < d->len; i++) {
        const struct denial *e = &g_array_index(d, struct denial, i);
        if (w) {
            jsonw_object_begin(w);
            jsonw_kv_string(w, "path", e->path);
            jsonw_kv_string(w, "reason", denial_reason_name(e->reason));
            jsonw_key(w, "package");
            e->package ? jsonw_string(w, e->package) : jsonw_null(w);
            jsonw_kv_string(w, "how", denial_how_name(e->how));
            jsonw_kv_int(w, "times", e->count);
            jsonw_object_end(w);
            continue;
        }
        if (!i)
            g_string_append(out, "  hidden from it:\n");
        g_string_append(out, "    ");
        text_escape(out, e->path, strlen(e->path));
        g_autofree char *why = denial_why(e);
        g_string_append(out, " (");
        text_escape(out, why, strlen(why));
        g_string_append_printf(out, "; %s)\n",
                               e->how == TRACEDB_DENIED_LOOKUP ? "looked up" : "in a listing");
    }
    if (w)
        jsonw_array_end(w);
    denials_free(d);
}

static void show_text(struct qdb *q, struct prov *p, const struct qdb_process *pr, GString *out)
{
    /* Its own command line whole, never cut (its parents' and children's are, on a terminal):
     * the cut marks taken off. */
    GString *own = g_string_new(NULL);
    query_text_process(own, pr);
    term_cut(out, own->str, own->len, 0);
    g_string_free(own, TRUE);
    g_string_append_printf(out, "\n  pid:       %d", pr->pid);
    if (pr->prev_image_id)
        g_string_append_printf(out, " (exec'd from [%" G_GINT64_FORMAT "])", pr->prev_image_id);
    int64_t next = exec_successor(q, pr->id);
    if (next)
        g_string_append_printf(out, " (then exec'd [%" G_GINT64_FORMAT "])", next);
    g_string_append(out, "\n  program:   ");
    if (pr->exe)
        text_escape(out, pr->exe, strlen(pr->exe));
    g_string_append(out, "\n  cwd:       ");
    if (pr->cwd)
        text_escape(out, pr->cwd, strlen(pr->cwd));
    g_string_append(out, "\n  ended:     ");
    if (!pr->exited)
        g_string_append(out, next ? "by exec" : "(not recorded)");
    else if (pr->killed_at_end)
        g_string_append_printf(out, "killed by signal %d (%s) at the end of the build: still "
                               "running when the build's command ended, it went with the "
                               "build's pid namespace (natively it would have gone on)",
                               pr->exit_signal, g_strsignal(pr->exit_signal));
    else if (pr->exit_signal)
        g_string_append_printf(out, "killed by signal %d (%s)", pr->exit_signal,
                               g_strsignal(pr->exit_signal));
    else
        g_string_append_printf(out, "exit %d", pr->exit_code);
    if (pr->exited && pr->end_ns > pr->start_ns)
        g_string_append_printf(out, " after %.3f s", (double)(pr->end_ns - pr->start_ns) / 1e9);
    g_string_append_c(out, '\n');
    query_text_ancestors(out, q, pr, "  parents:   ", "             ");
    GArray *kids = children_of(q, pr->id);
    for (guint i = 0; i < kids->len; i++) {
        const struct qdb_process *k = qdb_process(q, g_array_index(kids, int64_t, i));
        if (!k)
            continue;
        g_string_append(out, i ? "             " : "  children:  ");
        query_text_process(out, k);
        g_string_append_c(out, '\n');
    }
    g_array_unref(kids);

    GPtrArray *uses = file_uses(q, pr->id);
    static const char *const titles[] = {"read:", "wrote:", "other:"};
    for (int group = 0; group < 3; group++) {
        bool any = false;
        for (guint i = 0; i < uses->len; i++) {
            const struct file_use *u = uses->pdata[i];
            int g = is_read(u->kind) ? 0 : is_write(u->kind) ? 1 : 2;
            if (g != group)
                continue;
            if (!any)
                g_string_append_printf(out, "  %s\n", titles[group]);
            any = true;
            text_use(out, p, u);
        }
    }
    g_ptr_array_free(uses, TRUE);
    denied_to(q, pr->id, out, NULL);
    GString *o = g_string_new(NULL);
    output_of(q, pr->id, o, NULL);
    if (o->len) {
        g_string_append(out, "  output:\n");
        g_string_append_len(out, o->str, o->len);
    }
    g_string_free(o, TRUE);
    size_t mark = out->len;
    g_string_append(out, "  environment:\n");
    if (!query_each_env(q, pr->id, env_text_entry, out))
        g_string_truncate(out, mark);
}

static void show_json(struct qdb *q, struct prov *p, const struct qdb_process *pr,
                      struct jsonw *w)
{
    jsonw_object_begin(w);
    jsonw_key(w, "process");
    query_json_process(jsonw_raw_value(w), pr);
    jsonw_key(w, "ancestors");
    query_json_ancestors(jsonw_raw_value(w), q, pr);
    jsonw_key(w, "children");
    jsonw_array_begin(w);
    GArray *kids = children_of(q, pr->id);
    for (guint i = 0; i < kids->len; i++)
        jsonw_int(w, g_array_index(kids, int64_t, i));
    g_array_unref(kids);
    jsonw_array_end(w);
    int64_t next = exec_successor(q, pr->id);
    jsonw_key(w, "exec");
    if (next)
        jsonw_int(w, next);
    else
        jsonw_null(w);
    jsonw_key(w, "files");
    jsonw_array_begin(w);
    GPtrArray *uses = file_uses(q, pr->id);
    for (guint i = 0; i < uses->len; i++)
        json_use(w, p, uses->pdata[i]);
    g_ptr_array_free(uses, TRUE);
    jsonw_array_end(w);
    jsonw_key(w, "denied");
    denied_to(q, pr->id, NULL, w);
    jsonw_key(w, "output");
    jsonw_array_begin(w);
    output_of(q, pr->id, w->out, w);
    jsonw_array_end(w);
    jsonw_key(w, "environment");
    query_json_env(jsonw_raw_value(w), q, pr->id);
    jsonw_object_end(w);
}

static const struct query_command show_command = {
    .name = "show",
    .flags = QUERY_CUT_ARGV,
    .operands = "ID...",
    .min_operands = 1,
    .max_operands = -1,
    .about = "Everything about process image ID (the number in brackets in 'buildtrail\n"
             "tree', 'who-wrote', 'log --raw'): argv, pid, program, cwd, how it ended, its\n"
             "parents and children, the files it read and wrote (with the version and hash\n"
             "of each), everything else it did to files, what it printed, and the\n"
             "environment it was started with (redacted values shown as such: run --help).\n"
             "Its command line is printed whole, as a shell reads it; on a terminal, its\n"
             "parents' and children's are cut to the width (--full prints them whole).\n",
};

int query_show_main(int argc, char **argv)
{
    struct query_opts o = {0};
    int r = query_parse(&show_command, argc, argv, &o, NULL);
    if (r >= 0)
        return r;
    for (int i = optind; i < argc; i++) {
        int64_t id;
        if (!query_parse_id("show", NULL, argv[i], &id))
            return 2;
    }
    struct qdb *q = query_open("show", o.db_path);
    if (!q)
        return 1;
    struct prov *p = prov_new(q); /* NULL for old traces: versions are then not shown */
    int status = 0;
    GString *out = g_string_new(NULL);
    struct jsonw w;
    jsonw_init(&w, out);
    if (o.json) {
        query_json_begin(out, q, "processes");
        jsonw_array_begin(&w);
    }
    bool first = true;
    for (int i = optind; i < argc; i++) {
        int64_t id = strtoll(argv[i], NULL, 10);
        const struct qdb_process *pr = qdb_process(q, id);
        if (!pr && query_failed(q)) {
            status = 1;
            break;
        }
        if (!pr) {
            fprintf(stderr, "buildtrail show: no process %" G_GINT64_FORMAT " in this trace; see "
                            "'buildtrail tree' for the ids\n", id);
            status = 1;
            continue;
        }
        if (o.json) {
            show_json(q, p, pr, &w);
        } else {
            if (!first)
                g_string_append_c(out, '\n');
            show_text(q, p, pr, out);
        }
        first = false;
    }
    if (o.json) {
        jsonw_array_end(&w);
        g_string_append(out, "}\n");
    }
    if (query_emit(q, out))
        status = 1;
    g_string_free(out, TRUE);
    prov_free(p);
    qdb_close(q);
    return status;
}
