/* who-wrote / who-read: the processes that wrote or read a file, each with its ancestors. */
#include "driver.h"
#include "jsonw.h"
#include "query.h"
#include "queries.h"
#include "stmt.h"
#include "textout.h"
#include "tracedb.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

/* A writer of a path changed what is at that path (TRACEDB_KINDS_WROTE_PATH); a write open
 * that moved no bytes does not count (the opener is then only a creator or truncator, if it
 * was one: `sh -c 'cmd > f'` lists sh as creator and cmd as writer). */

/* who-read ?1: the columns of TQ_WRITERS_OF_FILE (shared with the driver), for reads. */
TRACEDB_STATEMENT(sql_readers_of_file, 1, TRACEDB_SCHEMA_VERSION,
                  "SELECT process_id, kind, SUM(COALESCE(bytes,0)), COUNT(*), MIN(first_ns) "
                  "AS t FROM accesses WHERE file_id=? AND result=0 AND kind IN "
                  TRACEDB_KINDS_READ " GROUP BY process_id, kind ORDER BY t, process_id, kind");
/* The columns of both: enum tq_writers_of_file's. */
enum {
    WHO_PROCESS = TQ_WRITERS_PROCESS, WHO_KIND = TQ_WRITERS_KIND, WHO_BYTES = TQ_WRITERS_BYTES,
    WHO_COUNT = TQ_WRITERS_COUNT, WHO_FIRST = TQ_WRITERS_FIRST
};

struct who_access {
    int kind;
    int64_t bytes;
    int64_t count;
};

struct who_process {
    int64_t id;
    GArray *accesses; /* struct who_access */
};

static void describe_accesses(GString *out, GArray *acc)
{
    for (guint i = 0; i < acc->len; i++) {
        const struct who_access *a = &g_array_index(acc, struct who_access, i);
        if (i)
            g_string_append(out, ", ");
        query_text_access(out, a->kind, a->bytes);
        if (a->count > 1)
            g_string_append_printf(out, " (%" G_GINT64_FORMAT " times)", a->count);
    }
}

/* The processes that accessed file_id with one of `kinds`, in order of first access. */
static GPtrArray *who_processes(struct qdb *q, int64_t file_id, bool wrote)
{
    GPtrArray *list = g_ptr_array_new();
    sqlite3_stmt *st = NULL;
    if (!qdb_prepare(q, wrote ? tracedb_sql(TQ_WRITERS_OF_FILE) : sql_readers_of_file, &st))
        return list;
    qdb_bind_int64(q, st, 1, file_id);
    GHashTable *seen = g_hash_table_new(g_int64_hash, g_int64_equal);
    while (qdb_row(q, st)) {
        int64_t pid = sqlite3_column_int64(st, WHO_PROCESS);
        struct who_process *wp = g_hash_table_lookup(seen, &pid);
        if (!wp) {
            wp = g_new0(struct who_process, 1);
            wp->id = pid;
            wp->accesses = g_array_new(FALSE, TRUE, sizeof(struct who_access));
            g_hash_table_insert(seen, &wp->id, wp);
            g_ptr_array_add(list, wp);
        }
        struct who_access a = {sqlite3_column_int(st, WHO_KIND),
                               sqlite3_column_int64(st, WHO_BYTES),
                               sqlite3_column_int64(st, WHO_COUNT)};
        g_array_append_val(wp->accesses, a);
    }
    sqlite3_finalize(st);
    g_hash_table_destroy(seen);
    return list;
}

static void free_who(gpointer p)
{
    struct who_process *wp = p;
    g_array_free(wp->accesses, TRUE);
    g_free(wp);
}

static void text_block(struct qdb *q, GString *out, const struct query_path *qp, GPtrArray *list,
                       bool wrote)
{
    query_text_path(out, qp);
    g_string_append_c(out, '\n');
    /* who-wrote through a link: who made the link too (libtool's ln -s) */
    int64_t link_id = wrote && qp->via_link ? qdb_file_id(q, qp->asked) : 0;
    GPtrArray *makers = link_id ? who_processes(q, link_id, true) : NULL;
    for (guint i = 0; makers && i < makers->len; i++) {
        struct who_process *wp = makers->pdata[i];
        const struct qdb_process *p = qdb_process(q, wp->id);
        bool made_link = false;
        for (guint k = 0; k < wp->accesses->len; k++)
            made_link |= g_array_index(wp->accesses, struct who_access, k).kind == TRACEDB_SYMLINK;
        if (!p || !made_link)
            continue;
        g_string_append(out, "  the link made by ");
        query_text_process(out, p);
        g_string_append_c(out, '\n');
    }
    if (makers) {
        g_ptr_array_set_free_func(makers, free_who);
        g_ptr_array_free(makers, TRUE);
    }
    if (!list->len)
        g_string_append_printf(out, "  (no process of the build %s it)\n",
                               wrote ? "wrote" : "read");
    for (guint i = 0; i < list->len; i++) {
        struct who_process *wp = list->pdata[i];
        const struct qdb_process *p = qdb_process(q, wp->id);
        g_string_append_printf(out, "  %s ", wrote ? "written by" : "read by");
        if (!p) {
            g_string_append(out, "an unidentified process\n    did:  ");
            describe_accesses(out, wp->accesses);
            g_string_append_c(out, '\n');
            continue;
        }
        query_text_process(out, p);
        g_string_append_printf(out, "\n    pid:  %d\n    cwd:  ", p->pid);
        if (p->cwd)
            text_escape(out, p->cwd, strlen(p->cwd));
        g_string_append(out, "\n    did:  ");
        describe_accesses(out, wp->accesses);
        g_string_append_c(out, '\n');
        query_text_ancestors(out, q, p, "    from: ", "          ");
    }
}

static void json_block(struct qdb *q, struct jsonw *w, const struct query_path *qp,
                       GPtrArray *list, bool wrote)
{
    jsonw_object_begin(w);
    jsonw_kv_string(w, "path", qp->path);
    query_json_path_state(jsonw_raw_led_members(w), qp);
    jsonw_key(w, wrote ? "writers" : "readers");
    jsonw_array_begin(w);
    for (guint i = 0; i < list->len; i++) {
        struct who_process *wp = list->pdata[i];
        const struct qdb_process *p = qdb_process(q, wp->id);
        jsonw_object_begin(w);
        jsonw_key(w, "process");
        if (p)
            query_json_process(jsonw_raw_value(w), p);
        else
            jsonw_null(w);
        jsonw_key(w, "accesses");
        jsonw_array_begin(w);
        for (guint k = 0; k < wp->accesses->len; k++) {
            const struct who_access *a = &g_array_index(wp->accesses, struct who_access, k);
            jsonw_object_begin(w);
            jsonw_kv_string(w, "kind", tracedb_access_kind_name(a->kind));
            query_json_bytes(jsonw_raw_led_members(w), a->kind, a->bytes);
            jsonw_kv_int(w, "count", a->count);
            jsonw_object_end(w);
        }
        jsonw_array_end(w);
        jsonw_key(w, "ancestors");
        query_json_ancestors(jsonw_raw_value(w), q, p);
        jsonw_object_end(w);
    }
    jsonw_array_end(w);
    jsonw_object_end(w);
}

static const struct query_command who_wrote_command = {
    .name = "who-wrote",
    .flags = QUERY_CUT_ARGV,
    .operands = "PATH...",
    .min_operands = 1,
    .max_operands = -1,
    .about = "Show every process of the build that wrote PATH (created, truncated, wrote\n"
             "bytes to, renamed onto), with its argv, pid, cwd, what it did, and its\n"
             "ancestors up to the build's command.\n",
};

static const struct query_command who_read_command = {
    .name = "who-read",
    .flags = QUERY_CUT_ARGV,
    .operands = "PATH...",
    .min_operands = 1,
    .max_operands = -1,
    .about = "Show every process of the build that read PATH (opened it for reading,\n"
             "executed it), with its argv, pid, cwd, what it did, and its ancestors up to\n"
             "the build's command.\n",
};

static int who_main(int argc, char **argv, bool wrote)
{
    const char *cmd = wrote ? "who-wrote" : "who-read";
    struct query_opts o = {0};
    int r = query_parse(wrote ? &who_wrote_command : &who_read_command, argc, argv, &o, NULL);
    if (r >= 0)
        return r;
    struct qdb *q = query_open(cmd, o.db_path);
    bool json = o.json;
    if (!q)
        return 1;
    int status = 0;
    GString *out = g_string_new(NULL);
    struct jsonw w;
    jsonw_init(&w, out);
    if (json) {
        query_json_begin(out, q, "paths");
        jsonw_array_begin(&w);
    }
    bool first = true;
    for (int i = optind; i < argc; i++) {
        struct query_path qp;
        if (!query_path_lookup(cmd, q, argv[i], &qp)) {
            status = 1;
            continue;
        }
        GPtrArray *list = who_processes(q, qp.file_id, wrote);
        if (json) {
            json_block(q, &w, &qp, list, wrote);
        } else {
            if (!first)
                g_string_append_c(out, '\n');
            text_block(q, out, &qp, list, wrote);
        }
        first = false;
        g_ptr_array_set_free_func(list, free_who);
        g_ptr_array_free(list, TRUE);
        query_path_clear(&qp);
    }
    if (json) {
        jsonw_array_end(&w);
        g_string_append(out, "}\n");
    }
    if (query_emit(q, out))
        status = 1;
    g_string_free(out, TRUE);
    qdb_close(q);
    return status;
}

int query_who_wrote_main(int argc, char **argv)
{
    return who_main(argc, argv, true);
}

int query_who_read_main(int argc, char **argv)
{
    return who_main(argc, argv, false);
}
