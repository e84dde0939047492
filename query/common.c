/* common — see common.h. */
#include "common.h"

#include "textout.h"
#include "tracedb.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

bool query_common_option(int c, const char *arg, struct query_opts *o)
{
    if (c == 'd')
        o->db_path = arg;
    else if (c == 'j')
        o->json = true;
    else
        return false;
    return true;
}

int query_no_operands(const char *cmd, int argc, char **argv)
{
    if (optind >= argc)
        return 0;
    fprintf(stderr, "buildtrail %s: unexpected argument '%s'; see 'buildtrail %s --help'\n", cmd,
            argv[optind], cmd);
    return 2;
}

/* One line on stderr when the answer stands on a run that did not end cleanly. */
static void note_run_state(const char *cmd, const char *path, struct qdb *q, bool recording)
{
    sqlite3_stmt *st = NULL;
    g_autofree char *state = NULL, *failure = NULL;
    bool has_failure = q->schema_version >= 4;
    if (qdb_prepare(q, has_failure ? "SELECT state, failure FROM runs WHERE id = 1"
                                   : "SELECT state, NULL FROM runs WHERE id = 1", &st) &&
        qdb_row(q, st)) {
        const unsigned char *s0 = sqlite3_column_text(st, 0), *s1 = sqlite3_column_text(st, 1);
        state = s0 ? g_strdup((const char *)s0) : NULL;
        failure = s1 ? g_strdup((const char *)s1) : NULL;
    }
    sqlite3_finalize(st);
    if (!state)
        return;
    if (!strcmp(state, TRACEDB_RUN_RUNNING) && recording)
        fprintf(stderr, "buildtrail %s: note: the run recording %s is still going; this answer "
                        "covers what it has recorded so far\n", cmd, path);
    else if (!strcmp(state, TRACEDB_RUN_RUNNING))
        fprintf(stderr, "buildtrail %s: warning: the run that recorded %s was killed before it "
                        "finished; this answer may be incomplete\n", cmd, path);
    else if (!strcmp(state, TRACEDB_RUN_FAILED))
        fprintf(stderr, "buildtrail %s: warning: the run that recorded %s failed%s%s; this "
                        "answer may be incomplete\n", cmd, path, failure ? ": " : "",
                failure ? failure : "");
    else if (!strcmp(state, TRACEDB_RUN_INTERRUPTED))
        fprintf(stderr, "buildtrail %s: note: the run that recorded %s was interrupted; this "
                        "answer covers the build up to then\n", cmd, path);
}

/* The command being run, for query_emit's and query_failed's messages. */
static const char *current_cmd = "query";

bool query_failed(struct qdb *q)
{
    static bool said;
    if (!qdb_failed(q))
        return false;
    if (!said)
        fprintf(stderr, "buildtrail %s: %s\n", current_cmd, qdb_error(q));
    said = true;
    return true;
}

struct qdb *query_open(const char *cmd, const char *db_path)
{
    current_cmd = cmd;
    const char *path = db_path ? db_path : QUERY_DEFAULT_DB;
    struct qdb *q = NULL;
    g_autofree char *err = NULL;
    bool recording = tracedb_is_recording(path) == 1; /* before SQLite has it open */
    int r = qdb_open(path, &q, &err);
    if (r == 0) {
        if (!qdb_failed(q))
            note_run_state(cmd, path, q, recording);
        if (query_failed(q)) {
            qdb_close(q);
            return NULL;
        }
        return q;
    }
    if (r == -EBADMSG) {
        fprintf(stderr, "buildtrail %s: the trace %s is damaged: %s; record the build again\n",
                cmd, path, err ? err : g_strerror(-r));
        return NULL;
    }
    const char *fix = r == -ENOENT ? "record one with 'buildtrail run -- COMMAND' or name one with -d FILE"
                      : r == -EPROTO ? "use a newer buildtrail to read it"
                                     : "name a trace written by 'buildtrail run' with -d FILE";
    fprintf(stderr, "buildtrail %s: %s: %s; %s\n", cmd, path, err ? err : g_strerror(-r), fix);
    return NULL;
}

void query_text_process(GString *out, const struct qdb_process *p)
{
    g_string_append_printf(out, "[%" G_GINT64_FORMAT "] ", p->id);
    if (p->argv && p->argv_len)
        text_argv(out, p->argv, p->argv_len);
    else if (p->exe)
        text_escape(out, p->exe, strlen(p->exe));
    else
        g_string_append(out, "(unknown)");
}

static void json_opt_string(GString *out, const char *key, const char *s)
{
    g_string_append_printf(out, ",\"%s\":", key);
    if (s)
        json_string(out, s, strlen(s));
    else
        g_string_append(out, "null");
}

void query_text_exit(GString *out, const struct qdb_process *p)
{
    if (!p->exited)
        return;
    if (p->exit_signal)
        g_string_append_printf(out, "  [killed by signal %d]", p->exit_signal);
    else if (p->exit_code)
        g_string_append_printf(out, "  [exit %d]", p->exit_code);
}

void query_json_process(GString *out, const struct qdb_process *p)
{
    g_string_append_printf(out, "{\"id\":%" G_GINT64_FORMAT ",\"pid\":%d", p->id, p->pid);
    json_opt_string(out, "exe", p->exe);
    g_string_append(out, ",\"argv\":");
    if (p->argv)
        json_argv(out, p->argv, p->argv_len);
    else
        g_string_append(out, "null");
    json_opt_string(out, "cwd", p->cwd);
    if (p->parent_id)
        g_string_append_printf(out, ",\"parent\":%" G_GINT64_FORMAT, p->parent_id);
    else
        g_string_append(out, ",\"parent\":null");
    if (p->prev_image_id)
        g_string_append_printf(out, ",\"exec_of\":%" G_GINT64_FORMAT, p->prev_image_id);
    if (p->orphan)
        g_string_append(out, ",\"orphan\":true");
    if (p->exited) {
        g_string_append(out, ",\"exit\":{");
        if (p->exit_signal)
            g_string_append_printf(out, "\"signal\":%d", p->exit_signal);
        else
            g_string_append_printf(out, "\"code\":%d", p->exit_code);
        g_string_append_printf(out, ",\"end_ns\":%" G_GINT64_FORMAT "}", p->end_ns);
    }
    g_string_append_c(out, '}');
}

void query_text_ancestors(GString *out, struct qdb *q, const struct qdb_process *p,
                          const char *first, const char *rest)
{
    bool at_first = true;
    for (const struct qdb_process *a = p && p->parent_id ? qdb_process(q, p->parent_id) : NULL; a;
         a = a->parent_id ? qdb_process(q, a->parent_id) : NULL) {
        g_string_append(out, at_first ? first : rest);
        query_text_process(out, a);
        g_string_append_c(out, '\n');
        at_first = false;
    }
}

void query_json_ancestors(GString *out, struct qdb *q, const struct qdb_process *p)
{
    g_string_append_c(out, '[');
    bool at_first = true;
    for (const struct qdb_process *a = p && p->parent_id ? qdb_process(q, p->parent_id) : NULL; a;
         a = a->parent_id ? qdb_process(q, a->parent_id) : NULL) {
        if (!at_first)
            g_string_append_c(out, ',');
        query_json_process(out, a);
        at_first = false;
    }
    g_string_append_c(out, ']');
}

int query_emit(struct qdb *q, GString *out)
{
    if (q && query_failed(q))
        return 1;
    size_t done = 0;
    while (done < out->len) {
        ssize_t n = write(STDOUT_FILENO, out->str + done, out->len - done);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return 1;
        }
        done += (size_t)n;
    }
    return 0;
}

char *query_run_cwd(struct qdb *q)
{
    sqlite3_stmt *st = NULL;
    char *cwd = NULL;
    if (qdb_prepare(q, "SELECT cwd FROM runs ORDER BY id LIMIT 1", &st) && qdb_row(q, st) &&
        sqlite3_column_text(st, 0))
        cwd = g_strdup((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return cwd ? cwd : g_get_current_dir();
}
