/* test-statements — every SQL statement the program holds prepares against a trace of every
 * schema version it is written for: the named ones of tracedb/queries.c (tracedb_sql(TQ_…),
 * their versions from tracedb_sql_schemas) and every TRACEDB_STATEMENT beside its reader
 * (tracedb_statements(): this test links every library whole, and the launcher's files, so
 * that every registration is present; a statement in a file that is not linked in is a
 * failure here, found by scanning the source tree).  A statement naming a column or table its
 * schema does not have fails to prepare: that is what this finds after a schema change. */
#include "queries.h"
#include "stmt.h"
#include "tracedb.h"

#include <glib.h>
#include <sqlite3.h>
#include <string.h>

#ifndef BT_SOURCE_DIR
#error "BT_SOURCE_DIR (the source tree) must be defined"
#endif

/* Prepare every statement of `sql` in turn (a text may hold several: "PRAGMA …; BEGIN"):
 * NULL, or SQLite's message for the first that does not prepare. */
static char *prepare_all(sqlite3 *db, const char *sql)
{
    const char *tail = sql;
    while (tail && *tail) {
        sqlite3_stmt *st = NULL;
        const char *next = NULL;
        if (sqlite3_prepare_v2(db, tail, -1, &st, &next) != SQLITE_OK)
            return g_strdup(sqlite3_errmsg(db));
        sqlite3_finalize(st);
        if (!next || next == tail)
            break;
        tail = next;
    }
    return NULL;
}

/* The reference schema of every version, 1 .. TRACEDB_SCHEMA_VERSION ([0] unused). */
static sqlite3 *schemas[TRACEDB_SCHEMA_VERSION + 1];

static void open_schemas(void)
{
    for (int v = 1; v <= TRACEDB_SCHEMA_VERSION; v++) {
        schemas[v] = tracedb_reference_schema(v);
        g_assert_nonnull(schemas[v]);
    }
}

static void close_schemas(void)
{
    for (int v = 1; v <= TRACEDB_SCHEMA_VERSION; v++)
        sqlite3_close(schemas[v]);
}

/* Prepare `sql` against versions min..max; each failure appended to `bad` as one line. */
static void check(GString *bad, const char *what, const char *sql, int min, int max)
{
    if (min < 1 || min > max || min > TRACEDB_SCHEMA_VERSION) {
        g_string_append_printf(bad, "%s: schema range %d..%d is empty or below 1\n", what, min,
                               max);
        return;
    }
    for (int v = min; v <= MIN(max, TRACEDB_SCHEMA_VERSION); v++) {
        g_autofree char *err = prepare_all(schemas[v], sql);
        if (err)
            g_string_append_printf(bad, "%s (schema %d): %s\n", what, v, err);
    }
}

static void test_named_statements(void)
{
    open_schemas();
    GString *bad = g_string_new(NULL);
    for (int q = 0; q < TQ_COUNT; q++) {
        int min = 0, max = 0;
        g_assert_true(tracedb_sql_schemas(q, &min, &max));
        g_assert_nonnull(tracedb_sql(q));
        g_autofree char *what = g_strdup_printf("tracedb_sql(%d) \"%.50s...\"", q, tracedb_sql(q));
        check(bad, what, tracedb_sql(q), min, max);
    }
    g_assert_false(tracedb_sql_schemas(TQ_COUNT, &(int){0}, &(int){0}));
    if (bad->len)
        g_test_message("%s", bad->str);
    g_assert_cmpstr(bad->str, ==, "");
    g_string_free(bad, TRUE);
    close_schemas();
}

static void test_registered_statements(void)
{
    open_schemas();
    size_t n = 0;
    const struct tracedb_statement *const *all = tracedb_statements(&n);
    g_assert_cmpuint(n, >, 1);
    GString *bad = g_string_new(NULL);
    for (size_t i = 0; i < n; i++) {
        const struct tracedb_statement *s = all[i];
        g_autofree char *base = g_path_get_basename(s->file);
        g_autofree char *what = g_strdup_printf("%s: %s", base, s->name);
        check(bad, what, s->sql, s->min_schema, s->max_schema);
    }
    if (bad->len)
        g_test_message("%s", bad->str);
    g_assert_cmpstr(bad->str, ==, "");
    g_string_free(bad, TRUE);
    close_schemas();
}

/* Add "FILE:NAME" to `found` for every line of the .c files under `dir` (recursively, but not
 * tests/, build trees or hidden directories) that begins with TRACEDB_STATEMENT(NAME. */
static void scan(const char *dir, const char *rel, GHashTable *found)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    if (!d)
        return;
    const char *name;
    while ((name = g_dir_read_name(d))) {
        g_autofree char *path = g_build_filename(dir, name, NULL);
        g_autofree char *sub = *rel ? g_build_filename(rel, name, NULL) : g_strdup(name);
        if (g_file_test(path, G_FILE_TEST_IS_DIR) && !g_file_test(path, G_FILE_TEST_IS_SYMLINK)) {
            g_autofree char *cache = g_build_filename(path, "CMakeCache.txt", NULL);
            if (name[0] != '.' && strcmp(sub, "tests") && !g_str_has_prefix(name, "build") &&
                !g_file_test(cache, G_FILE_TEST_EXISTS))
                scan(path, sub, found);
            continue;
        }
        if (!g_str_has_suffix(name, ".c"))
            continue;
        g_autofree char *text = NULL;
        if (!g_file_get_contents(path, &text, NULL, NULL))
            continue;
        const char *tag = "\nTRACEDB_STATEMENT(";
        for (const char *p = strstr(text, tag); p; p = strstr(p + 1, tag)) {
            const char *s = p + strlen(tag), *e = s;
            while (g_ascii_isalnum(*e) || *e == '_')
                e++;
            g_autofree char *stmt = g_strndup(s, (gsize)(e - s));
            g_hash_table_add(found, g_strdup_printf("%s:%s", name, stmt));
        }
    }
    g_dir_close(d);
}

/* Every TRACEDB_STATEMENT of the source tree is registered in this program: none lies in a
 * file no library linked here holds (it would never be prepared above). */
static void test_every_statement_linked(void)
{
    GHashTable *declared = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    scan(BT_SOURCE_DIR, "", declared);
    g_assert_cmpuint(g_hash_table_size(declared), >, 1);
    GHashTable *registered = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    size_t n = 0;
    const struct tracedb_statement *const *all = tracedb_statements(&n);
    for (size_t i = 0; i < n; i++) {
        g_autofree char *base = g_path_get_basename(all[i]->file);
        g_hash_table_add(registered, g_strdup_printf("%s:%s", base, all[i]->name));
    }
    GString *missing = g_string_new(NULL);
    GHashTableIter it;
    gpointer key;
    g_hash_table_iter_init(&it, declared);
    while (g_hash_table_iter_next(&it, &key, NULL))
        if (!g_hash_table_contains(registered, key))
            g_string_append_printf(missing, "%s is declared but not linked into "
                                            "test-statements: link its library whole "
                                            "(tests/CMakeLists.txt)\n", (const char *)key);
    if (missing->len)
        g_test_message("%s", missing->str);
    g_assert_cmpstr(missing->str, ==, "");
    g_string_free(missing, TRUE);
    g_hash_table_destroy(registered);
    g_hash_table_destroy(declared);
}

/* The check itself: a statement naming a column its schema lacks does not prepare. */
static void test_check_finds_a_missing_column(void)
{
    open_schemas();
    GString *bad = g_string_new(NULL);
    check(bad, "killed", "SELECT killed_at_end FROM exits", 6, 7);
    check(bad, "env", "SELECT env_id FROM processes", 5, TRACEDB_SCHEMA_VERSION);
    g_assert_nonnull(strstr(bad->str, "killed (schema 6): no such column: killed_at_end"));
    g_assert_null(strstr(bad->str, "schema 7"));
    g_assert_null(strstr(bad->str, "env"));
    g_string_free(bad, TRUE);
    close_schemas();
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/statements/named", test_named_statements);
    g_test_add_func("/statements/registered", test_registered_statements);
    g_test_add_func("/statements/every-one-linked", test_every_statement_linked);
    g_test_add_func("/statements/missing-column-fails", test_check_finds_a_missing_column);
    return g_test_run();
}
