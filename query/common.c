/* common — see common.h. */
#include "common.h"

#include "textout.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
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

struct qdb *query_open(const char *cmd, const char *db_path)
{
    const char *path = db_path ? db_path : QUERY_DEFAULT_DB;
    struct qdb *q = NULL;
    g_autofree char *err = NULL;
    int r = qdb_open(path, &q, &err);
    if (r == 0)
        return q;
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

int query_emit(GString *out)
{
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
    if (sqlite3_prepare_v2(q->db, "SELECT cwd FROM runs ORDER BY id LIMIT 1", -1, &st, NULL) ==
            SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
        cwd = g_strdup((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return cwd ? cwd : g_get_current_dir();
}
