/* sql: a PostgreSQL dump of the trace (docs/exports.md). */
#include "export.h"

#include "filekind.h"
#include "progkind.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One table of the dump: the SQLite query (its first column is always the trace key, added
 * here) and the PostgreSQL columns, in the same order.  Column types: b = bytea (paths, argv,
 * hashes: raw bytes, never re-encoded), t = text (our own ASCII words), i = integer/bigint. */
static const struct sql_table {
    const char *name;
    enum tracedb_query select;
    const char *columns, *types;
} sql_tables[] = {
    {"bt_processes",
     TQ_DUMP_PROCESSES,
     "id bigint, pid integer, start_ticks bigint, exec_seq integer, parent_id bigint, "
     "prev_image_id bigint, orphan integer, start_ns bigint, first_seen_ns bigint, comm bytea, "
     "exe bytea, cwd bytea, argv bytea, PRIMARY KEY (trace, id), env_id bigint",
     "iiiiiiiiibbbbi"},
    /* Each distinct environment, NUL-separated NAME=VALUE as recorded (redacted already). */
    {"bt_environments", TQ_DUMP_ENVIRONMENTS, "id bigint, env bytea, PRIMARY KEY (trace, id)",
     "ib"},
    {"bt_exits", TQ_DUMP_EXITS,
     "process_id bigint, end_ns bigint, exit_code integer, exit_signal integer, "
     "killed_at_end smallint, PRIMARY KEY (trace, process_id)", "iiiii"},
    {"bt_files", TQ_DUMP_FILES,
     "id bigint, path bytea, PRIMARY KEY (trace, id)", "ib"},
    {"bt_versions",
     TQ_DUMP_VERSIONS,
     "id bigint, file_id bigint, origin smallint, base_id bigint, begin_ns bigint, "
     "end_ns bigint, size bigint, sha256 bytea, sha1 bytea, git_sha1 bytea, hash_error integer, "
     "PRIMARY KEY (trace, id)", "iiiiiiibbbi"},
    {"bt_accesses",
     TQ_DUMP_ACCESSES,
     "id bigint, process_id bigint, file_id bigint, kind text, open_flags integer, bytes bigint, "
     "first_ns bigint, last_ns bigint, result integer, version_id bigint, "
     "PRIMARY KEY (trace, id)", "iiitiiiiii"},
    {"bt_output", TQ_DUMP_OUTPUT,
     "seq bigint, process_id bigint, stream smallint, time_ns bigint, data bytea, "
     "PRIMARY KEY (trace, seq)", "iiiib"},
};

static void sql_bytea(GString *o, const void *data, int n)
{
    static const char hex[] = "0123456789abcdef";
    g_string_append(o, "'\\x");
    const unsigned char *b = data;
    for (int i = 0; i < n; i++) {
        g_string_append_c(o, hex[b[i] >> 4]);
        g_string_append_c(o, hex[b[i] & 15]);
    }
    g_string_append_c(o, '\'');
}

static void sql_text(GString *o, const char *s)
{
    g_string_append_c(o, '\'');
    for (const char *c = s; *c; c++) {
        if (*c == '\'')
            g_string_append_c(o, '\'');
        g_string_append_c(o, *c);
    }
    g_string_append_c(o, '\'');
}

int fmt_sql(struct export_ctx *x)
{
    GString *o = x->out;
    g_autofree char *uid = ex_trace_uid(x);
    char started[32];
    ex_iso_time(x, x->run.start_ns, started);
    g_string_append_printf(o, "-- buildtrail trace %s (schema %d), for PostgreSQL.\n"
                              "-- Load any number of traces into one database: every row is keyed "
                              "by its trace; loading a trace again replaces it.\n"
                              "BEGIN;\nSET standard_conforming_strings = on;\nSET client_min_messages = warning;\n"
                              "CREATE TABLE IF NOT EXISTS bt_traces (trace text PRIMARY KEY, "
                              "command bytea, cwd bytea, host text, started timestamptz, "
                              "start_ns bigint, end_ns bigint, exit_status integer, state text, "
                              "buildtrail_version text);\n", uid, x->q->schema_version);
    for (size_t t = 0; t < G_N_ELEMENTS(sql_tables); t++)
        g_string_append_printf(o, "CREATE TABLE IF NOT EXISTS %s (trace text NOT NULL REFERENCES "
                                  "bt_traces (trace) ON DELETE CASCADE, %s);\n",
                               sql_tables[t].name, sql_tables[t].columns);
    /* A database made by an older buildtrail has bt_processes without env_id (last column). */
    g_string_append(o, "ALTER TABLE bt_processes ADD COLUMN IF NOT EXISTS env_id bigint;\n");
    /* Columns added since: a database an older buildtrail made gets them (its rows NULL). */
    g_string_append(o, "ALTER TABLE bt_exits ADD COLUMN IF NOT EXISTS killed_at_end smallint;\n");
    g_string_append(o, "CREATE INDEX IF NOT EXISTS bt_versions_sha256 ON bt_versions (sha256);\n"
                       "CREATE INDEX IF NOT EXISTS bt_files_path ON bt_files (path);\n"
                       "CREATE INDEX IF NOT EXISTS bt_accesses_version ON bt_accesses "
                       "(trace, version_id);\n");
    g_string_append(o, "DELETE FROM bt_traces WHERE trace = ");
    sql_text(o, uid);
    g_string_append(o, ";\nINSERT INTO bt_traces VALUES (");
    sql_text(o, uid);
    g_string_append_c(o, ',');
    sql_bytea(o, x->run.argv ? x->run.argv : "", (int)x->run.argv_len);
    g_string_append_c(o, ',');
    sql_bytea(o, x->run.cwd, (int)strlen(x->run.cwd));
    g_string_append_c(o, ',');
    sql_text(o, x->run.hostname ? x->run.hostname : "");
    g_string_append_printf(o, ",'%s',%" PRId64 ",%" PRId64 ",", started, x->run.start_ns,
                           x->run.end_ns);
    if (x->run.exit_status >= 0)
        g_string_append_printf(o, "%d,", x->run.exit_status);
    else
        g_string_append(o, "NULL,");
    sql_text(o, x->run.state ? x->run.state : "");
    g_string_append_c(o, ',');
    sql_text(o, x->run.version ? x->run.version : "");
    g_string_append(o, ");\n");
    for (size_t t = 0; t < G_N_ELEMENTS(sql_tables); t++) {
        const struct sql_table *tab = &sql_tables[t];
        enum tracedb_query select = tab->select;
        if (x->q->schema_version < 5 && select == TQ_DUMP_ENVIRONMENTS)
            continue; /* not recorded before schema 5 */
        if (x->q->schema_version < 5 && select == TQ_DUMP_PROCESSES)
            select = TQ_DUMP_PROCESSES_V4;
        sqlite3_stmt *st = NULL;
        if (select == TQ_DUMP_EXITS && x->q->schema_version < 7)
            select = TQ_DUMP_EXITS_V2; /* killed_at_end: schema 7 */
        if (!qdb_prepare(x->q, tracedb_sql(select), &st)) {
            return 1; /* the error is kept in x->q: main reports it */
        }
        int rows = 0;
        while (qdb_row(x->q, st)) {
            /* Batches of 500 rows per INSERT: fast to load, and no statement grows unbounded. */
            if (rows % 500)
                g_string_append(o, ",\n(");
            else
                g_string_append_printf(o, "%sINSERT INTO %s VALUES\n(", rows ? ";\n" : "",
                                       tab->name);
            sql_text(o, uid);
            for (int c = 0; tab->types[c]; c++) {
                g_string_append_c(o, ',');
                if (sqlite3_column_type(st, c) == SQLITE_NULL) {
                    g_string_append(o, "NULL");
                } else if (tab->types[c] == 'i') {
                    g_string_append_printf(o, "%" PRId64, (int64_t)sqlite3_column_int64(st, c));
                } else if (tab->types[c] == 't') {
                    sql_text(o, (const char *)sqlite3_column_text(st, c));
                } else {
                    const void *b = sqlite3_column_blob(st, c);
                    sql_bytea(o, b ? b : "", sqlite3_column_bytes(st, c));
                }
            }
            g_string_append_c(o, ')');
            rows++;
            ex_flush(x);
        }
        if (rows)
            g_string_append(o, ";\n");
        sqlite3_finalize(st);
    }
    g_string_append(o, "COMMIT;\n");
    return 0;
}
