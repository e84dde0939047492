/* Unit tests of the store's server-free half (store/collect.c, store/schema.c): the COPY text
 * format (any byte of a path survives), a trace read into rows (its identity is the file's
 * SHA-256; a product's closure with roles; the chain's edges), the refusal of an incomplete
 * trace, and the migrations' array. */
#include "collect.h"
#include "pgstore.h"
#include "schema.h"
#include "tracedb.h"
#include "unit-trace.h"

#include <errno.h>
#include <glib.h>
#include <string.h>

static void test_copy_format(void)
{
    GString *o = g_string_new(NULL);
    store_copy_text(o, "a\tb\nc\\d\re");
    g_assert_cmpstr(o->str, ==, "a\\tb\\nc\\\\d\\re");
    g_string_truncate(o, 0);
    store_copy_text(o, NULL);
    g_assert_cmpstr(o->str, ==, "\\N");
    g_string_truncate(o, 0);
    /* a path with a tab, a newline, a quote and a byte that is not UTF-8: hex, nothing raw */
    static const char odd[] = "/w/it's\t\n\xff.c";
    store_copy_bytea(o, odd, sizeof odd - 1);
    g_assert_cmpstr(o->str, ==, "\\\\x2f772f6974277309" "0aff2e63");
    g_string_truncate(o, 0);
    store_copy_hex_bytea(o, "");
    g_assert_cmpstr(o->str, ==, "\\N");
    g_string_free(o, TRUE);
}

/* cc [2] reads a.c (v1) and writes a.o (v2); ld [3] reads a.o and writes app (v3). */
static char *make_trace(const char *name, const char *state)
{
    char *p = NULL;
    sqlite3 *db = unit_trace_begin(name, "/w", &p);
    g_assert_cmpint(
        tracedb_exec(db,
                     "INSERT INTO processes (id, pid, start_ticks, exec_seq, parent_id, start_ns,"
                     " first_seen_ns, comm, exe, cwd, argv) VALUES"
                     " (1, 10, 1, 0, NULL, 100, 100, 'make', '/usr/bin/make', '/w', X'6D616B6500'),"
                     " (2, 11, 2, 0, 1, 110, 110, 'cc', '/usr/bin/cc', '/w', X'636300612E6300'),"
                     " (3, 12, 3, 0, 1, 200, 200, 'ld', '/usr/bin/ld', '/w', X'6C6400');"
                     "INSERT INTO files (id, path) VALUES (1, '/w/a.c'), (2, '/w/a.o'),"
                     " (3, '/w/app');"
                     "INSERT INTO versions (id, file_id, origin, begin_ns, end_ns, sha256) VALUES"
                     " (1, 1, 1, 111, 111, '" "aa" "'), (2, 2, 2, 150, 150, NULL),"
                     " (3, 3, 2, 250, 250, NULL);"
                     "INSERT INTO accesses (process_id, file_id, kind, first_ns, last_ns,"
                     " version_id, open_flags) VALUES"
                     " (2, 1, 1, 111, 111, 1, 0), (2, 2, 3, 140, 150, 2, 1),"
                     " (3, 2, 1, 201, 201, 2, 0), (3, 3, 3, 240, 250, 3, 1);",
                     NULL),
        ==, 0);
    unit_trace_end(db, 400, state);
    return p;
}

static void test_collect(void)
{
    g_autofree char *p = make_trace("c.db", TRACEDB_RUN_FINISHED);
    struct store_trace *t = NULL;
    char *err = NULL;
    int r = store_collect(p, false, NULL, -1, &t, &err);
    if (r < 0)
        g_error("store_collect: %s", err);
    gsize len = 0;
    g_autofree char *data = NULL;
    g_assert_true(g_file_get_contents(p, &data, &len, NULL));
    g_autofree char *sum = g_compute_checksum_for_data(G_CHECKSUM_SHA256, (guchar *)data, len);
    g_assert_cmpstr(t->identity, ==, sum);
    g_autofree char *again = NULL;
    g_assert_cmpint(store_identity(p, &again), ==, 0);
    g_assert_cmpstr(again, ==, sum);
    g_assert_true(t->complete);
    g_assert_cmpint(t->nrows[ST_PROCESS], ==, 3);
    /* a.o and app are products; app's closure has a.c, compiled */
    g_assert_cmpint(t->nrows[ST_PRODUCT], ==, 2);
    g_assert_nonnull(strstr(t->rows[ST_CLOSURE]->str, "3\t1\tsource\tf\t\\N\n"));
    /* the chain's edges: app <- a.o <- a.c */
    g_assert_nonnull(strstr(t->rows[ST_EDGE]->str, "3\t2\tobject\n"));
    g_assert_nonnull(strstr(t->rows[ST_EDGE]->str, "2\t1\tsource\n"));
    store_trace_free(t);
}

static void test_incomplete_refused(void)
{
    g_autofree char *p = make_trace("i.db", TRACEDB_RUN_INTERRUPTED);
    struct store_trace *t = NULL;
    char *err = NULL;
    g_assert_cmpint(store_collect(p, false, NULL, -1, &t, &err), ==, -EAGAIN);
    g_assert_null(t);
    g_assert_nonnull(err);
    g_free(err);
    g_assert_cmpint(store_collect(p, true, NULL, -1, &t, &err), ==, 0);
    g_assert_false(t->complete);
    store_trace_free(t);
    g_autofree char *missing = unit_path("none.db");
    g_assert_cmpint(store_collect(missing, false, NULL, -1, &t, &err), <, 0);
    g_free(err);
}

static void test_parse_known(void)
{
    GPtrArray *hashes = g_ptr_array_new_with_free_func(g_free);
    GHashTable *names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    static const char idx[] =
        "0000000000000000000000000000000000000000000000000000000000000000  up/a.c\n"
        "~ up/a.c 1 2 3\n"
        "ABCDEF0000000000000000000000000000000000000000000000000000000000  upper.c\n"
        "1111111111111111111111111111111111111111111111111111111111111111 *bin.c\0tail\n"
        "22222222222222222222222222222222222222222222222222222222222222  short.c\n"
        "3333333333333333333333333333333333333333333333333333333333333333";
    store_parse_known(idx, sizeof idx - 1, hashes, names);
    g_assert_cmpuint(hashes->len, ==, 2);
    g_assert_cmpstr(g_hash_table_lookup(names, hashes->pdata[0]), ==, "up/a.c");
    /* a NUL inside a name ends it as a C string (its bytes are kept up to it) */
    g_assert_cmpstr(g_hash_table_lookup(names, hashes->pdata[1]), ==, "bin.c");
    g_ptr_array_free(hashes, TRUE);
    g_hash_table_destroy(names);
}

static void test_migrations(void)
{
    g_assert_null(store_migration(0));
    for (int v = 1; v <= STORE_SCHEMA_VERSION; v++)
        g_assert_nonnull(store_migration(v));
    g_assert_null(store_migration(STORE_SCHEMA_VERSION + 1));
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/store/copy-format", test_copy_format);
    g_test_add_func("/store/collect", test_collect);
    g_test_add_func("/store/incomplete-refused", test_incomplete_refused);
    g_test_add_func("/store/parse-known", test_parse_known);
    g_test_add_func("/store/migrations", test_migrations);
    return unit_run();
}
