/* sql: a PostgreSQL dump of the trace (docs/exports.md). */
#include "export.h"

#include "filekind.h"
#include "progkind.h"
#include "stmt.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The dump's tables, in order: bt_NAME for the trace's table NAME, with the columns the
 * current schema gives it (tracedb_reference_schema: the schema's one description), in its
 * order, each as the trace has it (NULL where the trace is older and lacks it; a table it
 * lacks is left out).  What the schema does not say is the dump's own format: */
static const struct sql_table {
    const char *name;
    /* PRIMARY KEY (trace, FIRST COLUMN) comes after this many columns: where it was when the
     * columns after it were added */
    unsigned key_after;
    /* the columns from this one on were added since the dump began: ALTER TABLE adds them to
     * a database an older buildtrail made (0: none) */
    unsigned added_from;
} sql_tables[] = {
    {"processes", 13, 13},
    /* Each distinct environment, NUL-separated NAME=VALUE as recorded (redacted already). */
    {"environments", 2, 0},
    {"exits", 5, 4},
    {"files", 2, 0},
    {"versions", 11, 0},
    {"accesses", 10, 0},
    {"output", 5, 0},
    /* What run --only-inputs hid from the build (none before trace schema 8). */
    {"denials", 7, 0},
};

/* PostgreSQL types: an INTEGER is bigint and TEXT or BLOB bytea (paths, argv, hashes: raw
 * bytes, never re-encoded), but for these; an access's kind is its name. */
static const struct sql_column {
    const char *table, *column, *type;
    const char *select; /* what to select for it, or NULL: the column */
} sql_columns[] = {
    {"processes", "pid", "integer", NULL},        {"processes", "exec_seq", "integer", NULL},
    {"processes", "orphan", "integer", NULL},     {"exits", "exit_code", "integer", NULL},
    {"exits", "exit_signal", "integer", NULL},    {"exits", "killed_at_end", "smallint", NULL},
    {"versions", "origin", "smallint", NULL},     {"versions", "hash_error", "integer", NULL},
    {"accesses", "kind", "text", "(SELECT name FROM access_kinds WHERE code = kind)"},
    {"accesses", "open_flags", "integer", NULL},  {"accesses", "result", "integer", NULL},
    {"output", "stream", "smallint", NULL},
    {"denials", "how", "text",
     "(CASE how WHEN 1 THEN 'lookup' WHEN 2 THEN 'listing' ELSE CAST(how AS TEXT) END)"},
    {"denials", "reason", "text",
     "(CASE reason WHEN 1 THEN 'undeclared' WHEN 2 THEN 'package-not-allowed' "
     "ELSE CAST(reason AS TEXT) END)"},
    {"denials", "package", "text", NULL},
};

/* (the codes the denials' CASEs name) */
G_STATIC_ASSERT(TRACEDB_DENIED_LOOKUP == 1 && TRACEDB_DENIED_LISTING == 2 &&
                TRACEDB_DENIED_UNDECLARED == 1 && TRACEDB_DENIED_PACKAGE == 2);

/* the columns of table ?1, in order (on the trace, and on the schema's reference) */
TRACEDB_STATEMENT(sql_table_columns, 1, TRACEDB_SCHEMA_VERSION,
                  "SELECT name, upper(type) FROM pragma_table_info(?1) ORDER BY cid");
enum { COLUMN_NAME, COLUMN_TYPE };

/* One column of a dumped table. */
struct dump_column {
    char *name;
    const char *type;   /* PostgreSQL's */
    char kind;          /* how a value is written: i integer, t text, b bytea */
    const char *select; /* an expression instead of the column, or NULL */
};

static void dump_column_clear(gpointer data)
{
    g_free(((struct dump_column *)data)->name);
}

/* The current schema's columns of `table` (GArray of struct dump_column), or NULL when the
 * reference cannot be read. */
static GArray *schema_columns(sqlite3 *ref, const char *table)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(ref, sql_table_columns, -1, &st, NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        return NULL;
    }
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    GArray *cols = g_array_new(FALSE, TRUE, sizeof(struct dump_column));
    g_array_set_clear_func(cols, dump_column_clear);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, COLUMN_NAME);
        const char *type = (const char *)sqlite3_column_text(st, COLUMN_TYPE);
        struct dump_column c = {g_strdup(name), !g_strcmp0(type, "INTEGER") ? "bigint" : "bytea",
                                0, NULL};
        for (size_t k = 0; k < G_N_ELEMENTS(sql_columns); k++)
            if (!strcmp(sql_columns[k].table, table) && !strcmp(sql_columns[k].column, name)) {
                c.type = sql_columns[k].type;
                c.select = sql_columns[k].select;
            }
        c.kind = !strcmp(c.type, "bytea") ? 'b' : !strcmp(c.type, "text") ? 't' : 'i';
        g_array_append_val(cols, c);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        g_array_unref(cols);
        return NULL;
    }
    return cols;
}

/* The SELECT of `table`'s dump from this trace: each column, NULL for those it lacks, by its
 * key; NULL when the trace has no such table (environments before schema 5). */
static char *dump_select(struct export_ctx *x, const char *table, GArray *cols)
{
    GHashTable *has = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    sqlite3_stmt *st = NULL;
    if (qdb_prepare(x->q, sql_table_columns, &st)) {
        sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
        while (qdb_row(x->q, st))
            g_hash_table_add(has, g_strdup((const char *)sqlite3_column_text(st, COLUMN_NAME)));
    }
    sqlite3_finalize(st);
    char *select = NULL;
    if (g_hash_table_size(has)) {
        GString *s = g_string_new("SELECT ");
        for (guint c = 0; c < cols->len; c++) {
            const struct dump_column *col = &g_array_index(cols, struct dump_column, c);
            g_string_append(s, c ? ", " : "");
            if (!g_hash_table_contains(has, col->name))
                g_string_append(s, "NULL");
            else if (col->select)
                g_string_append(s, col->select);
            else
                g_string_append_printf(s, "\"%s\"", col->name);
        }
        g_string_append_printf(s, " FROM \"%s\" ORDER BY 1", table);
        select = g_string_free(s, FALSE);
    }
    g_hash_table_destroy(has);
    return select;
}

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

/* CREATE TABLE bt_NAME (trace ..., its columns, the key where it was). */
static void create_table(GString *o, const struct sql_table *tab, GArray *cols)
{
    g_string_append_printf(o, "CREATE TABLE IF NOT EXISTS bt_%s (trace text NOT NULL REFERENCES "
                              "bt_traces (trace) ON DELETE CASCADE, ", tab->name);
    for (guint c = 0; c < cols->len; c++) {
        const struct dump_column *col = &g_array_index(cols, struct dump_column, c);
        if (c == tab->key_after)
            g_string_append_printf(o, ", PRIMARY KEY (trace, %s)",
                                   g_array_index(cols, struct dump_column, 0).name);
        g_string_append_printf(o, "%s%s %s", c ? ", " : "", col->name, col->type);
    }
    if (tab->key_after >= cols->len)
        g_string_append_printf(o, ", PRIMARY KEY (trace, %s)",
                               g_array_index(cols, struct dump_column, 0).name);
    g_string_append(o, ");\n");
}

/* The rows of one table, in INSERTs of 500 rows: fast to load, and no statement grows
 * unbounded.  False when the trace could not be read (the error is kept in x->q). */
static bool dump_rows(struct export_ctx *x, const char *uid, const struct sql_table *tab,
                      GArray *cols, const char *select)
{
    GString *o = x->out;
    sqlite3_stmt *st = NULL;
    if (!qdb_prepare(x->q, select, &st))
        return false;
    int rows = 0;
    while (qdb_row(x->q, st)) {
        if (rows % 500)
            g_string_append(o, ",\n(");
        else
            g_string_append_printf(o, "%sINSERT INTO bt_%s VALUES\n(", rows ? ";\n" : "",
                                   tab->name);
        sql_text(o, uid);
        for (guint c = 0; c < cols->len; c++) {
            char kind = g_array_index(cols, struct dump_column, c).kind;
            g_string_append_c(o, ',');
            if (sqlite3_column_type(st, (int)c) == SQLITE_NULL) {
                g_string_append(o, "NULL");
            } else if (kind == 'i') {
                g_string_append_printf(o, "%" PRId64, (int64_t)sqlite3_column_int64(st, (int)c));
            } else if (kind == 't') {
                sql_text(o, (const char *)sqlite3_column_text(st, (int)c));
            } else {
                const void *b = sqlite3_column_blob(st, (int)c);
                sql_bytea(o, b ? b : "", sqlite3_column_bytes(st, (int)c));
            }
        }
        g_string_append_c(o, ')');
        rows++;
        ex_flush(x);
    }
    if (rows)
        g_string_append(o, ";\n");
    sqlite3_finalize(st);
    return true;
}

/* The header, the tables and their indexes, and the trace's bt_traces row. */
static void dump_head(struct export_ctx *x, const char *uid, GArray *const *cols)
{
    GString *o = x->out;
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
        create_table(o, &sql_tables[t], cols[t]);
    /* Columns added since: a database an older buildtrail made gets them (its rows NULL). */
    for (size_t t = 0; t < G_N_ELEMENTS(sql_tables); t++)
        for (guint c = sql_tables[t].added_from; c && c < cols[t]->len; c++) {
            const struct dump_column *col = &g_array_index(cols[t], struct dump_column, c);
            g_string_append_printf(o, "ALTER TABLE bt_%s ADD COLUMN IF NOT EXISTS %s %s;\n",
                                   sql_tables[t].name, col->name, col->type);
        }
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
}

int fmt_sql(struct export_ctx *x)
{
    g_autofree char *uid = ex_trace_uid(x);
    sqlite3 *ref = tracedb_reference_schema(TRACEDB_SCHEMA_VERSION);
    GArray *cols[G_N_ELEMENTS(sql_tables)] = {0};
    bool ok = ref != NULL;
    for (size_t t = 0; ok && t < G_N_ELEMENTS(sql_tables); t++)
        ok = (cols[t] = schema_columns(ref, sql_tables[t].name)) && cols[t]->len;
    sqlite3_close(ref);
    if (!ok) {
        fputs("buildtrail export: out of memory reading the trace schema; free some memory and "
              "export again\n", stderr);
        for (size_t t = 0; t < G_N_ELEMENTS(sql_tables); t++)
            if (cols[t])
                g_array_unref(cols[t]);
        return 1;
    }
    dump_head(x, uid, cols);
    for (size_t t = 0; ok && t < G_N_ELEMENTS(sql_tables); t++) {
        g_autofree char *select = dump_select(x, sql_tables[t].name, cols[t]);
        if (select) /* (environments: not recorded before schema 5) */
            ok = dump_rows(x, uid, &sql_tables[t], cols[t], select);
    }
    for (size_t t = 0; t < G_N_ELEMENTS(sql_tables); t++)
        g_array_unref(cols[t]);
    if (!ok)
        return 1; /* the error is kept in x->q: main reports it */
    g_string_append(x->out, "COMMIT;\n");
    return 0;
}
