/* Unit tests of the exporters (query/export), through `export`'s entry point on a crafted
 * trace: what they write comes in an order of the trace's own (ids, paths), never in a hash
 * table's, which follows the hashes and the table's history and no order a reader can name.
 *
 * The trace: make [1] reads /w/Makefile and writes /w/stamp, and starts forty steps [2..41],
 * step K writing /w/outK.  Forty ids in a hash table do not come out in increasing order. */
#include "query.h"
#include "tracedb.h"
#include "unit-trace.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STEPS 40

static char *forty_steps(void)
{
    GString *sql = g_string_new(
        "INSERT INTO processes (id, pid, start_ticks, exec_seq, parent_id, start_ns, "
        "first_seen_ns, comm, exe, cwd) VALUES (1, 10, 1, 0, NULL, 100, 100, 'make', "
        "'/usr/bin/make', '/w');"
        "INSERT INTO files (id, path) VALUES (1, '/w/Makefile'), (2, '/w/stamp');"
        "INSERT INTO versions (id, file_id, origin, begin_ns, end_ns) VALUES "
        "(1, 1, 1, 101, 101), (2, 2, 2, 102, 103);"
        "INSERT INTO accesses (process_id, file_id, kind, first_ns, last_ns, version_id, "
        "open_flags) VALUES (1, 1, 1, 101, 101, 1, 0), (1, 2, 3, 102, 103, 2, 1);");
    for (int k = 2; k <= STEPS + 1; k++) {
        int t = 110 + 10 * k;
        g_string_append_printf(
            sql,
            "INSERT INTO processes (id, pid, start_ticks, exec_seq, parent_id, start_ns, "
            "first_seen_ns, comm, exe, cwd) VALUES (%d, %d, %d, 0, 1, %d, %d, 'cp', "
            "'/usr/bin/cp', '/w');"
            "INSERT INTO files (id, path) VALUES (%d, '/w/out%d');"
            "INSERT INTO versions (id, file_id, origin, begin_ns, end_ns) VALUES "
            "(%d, %d, 2, %d, %d);"
            "INSERT INTO accesses (process_id, file_id, kind, first_ns, last_ns, version_id, "
            "open_flags) VALUES (%d, %d, 3, %d, %d, %d, 1);",
            k, 20 + k, k, t, t, k + 1, k, k + 1, k + 1, t + 1, t + 2, k, k + 1, t + 1, t + 2,
            k + 1);
    }
    g_autofree char *text = g_string_free(sql, FALSE);
    g_autofree char *name = g_strdup_printf("steps-%d.db", g_test_rand_int());
    return unit_crafted_trace(name, text, 1000);
}

/* `export --format FORMAT` of the trace at `db`: the text written. */
static char *export_of(const char *db, const char *format)
{
    g_autofree char *out = unit_path(format);
    const char *words[] = {"export", "--format", format, "-d", db, "-o", out, NULL};
    g_auto(GStrv) argv = g_strdupv((char **)words);
    g_assert_cmpint(query_export_main((int)g_strv_length(argv), argv), ==, 0);
    char *text = NULL;
    g_assert_true(g_file_get_contents(out, &text, NULL, NULL));
    g_assert_cmpint(unlink(out), ==, 0);
    return text;
}

/* The numbers that follow each `mark` in `text`, in order. */
static GArray *numbers_after(const char *text, const char *mark)
{
    GArray *n = g_array_new(FALSE, FALSE, sizeof(int64_t));
    for (const char *p = strstr(text, mark); p; p = strstr(p, mark)) {
        p += strlen(mark);
        int64_t v = g_ascii_strtoll(p, NULL, 10);
        g_array_append_val(n, v);
    }
    return n;
}

static void assert_steps_in_order(GArray *ids)
{
    g_assert_cmpuint(ids->len, ==, STEPS);
    for (guint i = 0; i < ids->len; i++)
        g_assert_cmpint(g_array_index(ids, int64_t, i), ==, i + 2);
    g_array_unref(ids);
}

/* dot: the spawned edges, by the child's id. */
static void test_dot_spawned_in_id_order(void)
{
    g_autofree char *db = forty_steps();
    g_autofree char *text = export_of(db, "dot");
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    g_autoptr(GString) spawned = g_string_new(NULL);
    for (char **l = lines; *l; l++)
        if (strstr(*l, "label=spawned")) {
            g_string_append(spawned, *l);
            g_string_append_c(spawned, '\n');
        }
    assert_steps_in_order(numbers_after(spawned->str, "\"p1\" -> \"p"));
    g_assert_cmpint(unlink(db), ==, 0);
}

/* prov (PROV-JSON): wasInformedBy's entries, numbered in the activities' order. */
static void test_prov_informed_in_order(void)
{
    g_autofree char *db = forty_steps();
    g_autofree char *text = export_of(db, "prov");
    const char *informed = strstr(text, "\"wasInformedBy\"");
    g_assert_nonnull(informed);
    assert_steps_in_order(numbers_after(informed, "\"prov:informed\":\"proc:p"));
    g_assert_cmpint(unlink(db), ==, 0);
}

/* cc [2] links: `cc a.o -o app` runs ld [3], which writes the temporary /tmp/cc1.res and
 * fails (no app); cc removes /tmp/cc1.res afterwards.  The link wrote nothing that is left:
 * no entry, even --with-links — what the subtree left is read in time order, not process by
 * process (cc's removal came first that way, and ld's write then looked like an output). */
static void test_compile_commands_outputs_in_time_order(void)
{
    g_autofree char *name = g_strdup_printf("link-%d.db", g_test_rand_int());
    g_autofree char *sql = g_strdup_printf(
        "INSERT INTO processes (id, pid, start_ticks, exec_seq, parent_id, start_ns, "
        "first_seen_ns, comm, exe, cwd, argv) VALUES (1, 10, 1, 0, NULL, 100, 100, 'make', "
        "'/usr/bin/make', '/w', X'6D616B6500'), (2, 11, 2, 0, 1, 110, 110, 'cc', '/usr/bin/cc', "
        "'/w', X'636300612E6F002D6F0061707000'), (3, 12, 3, 0, 2, 120, 120, 'ld', "
        "'/usr/bin/ld', '/w', X'6C6400');"
        "INSERT INTO files (id, path) VALUES (1, '/tmp/cc1.res');"
        "INSERT INTO versions (id, file_id, origin, begin_ns, end_ns) VALUES (1, 1, 2, 150, 151);"
        "INSERT INTO accesses (process_id, file_id, kind, first_ns, last_ns, version_id, "
        "open_flags) VALUES (3, 1, 3, 150, 151, 1, 1);"
        "INSERT INTO accesses (process_id, file_id, kind, first_ns, last_ns) VALUES "
        "(2, 1, %d, 200, 200);",
        TRACEDB_UNLINK);
    g_autofree char *db = unit_crafted_trace(name, sql, 400);
    g_autofree char *out = unit_path("cc.json");
    const char *words[] = {"export", "--format", "compile-commands", "--with-links", "-d", db,
                           "-o", out, NULL};
    g_auto(GStrv) argv = g_strdupv((char **)words);
    g_assert_cmpint(query_export_main((int)g_strv_length(argv), argv), ==, 0);
    g_autofree char *text = NULL;
    g_assert_true(g_file_get_contents(out, &text, NULL, NULL));
    g_assert_null(strstr(text, "\"arguments\""));
    g_assert_cmpint(unlink(out), ==, 0);
    g_assert_cmpint(unlink(db), ==, 0);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/export/dot-spawned-in-id-order", test_dot_spawned_in_id_order);
    g_test_add_func("/export/prov-informed-in-order", test_prov_informed_in_order);
    g_test_add_func("/export/compile-commands-outputs-in-time-order",
                    test_compile_commands_outputs_in_time_order);
    return unit_run();
}
