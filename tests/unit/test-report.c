/* Unit tests of `report` (query/cmd/report.c), through its entry point on a crafted trace:
 * what the page's data lists comes in an order of the trace's own, never in a hash table's.
 *
 * The trace: make [1] starts forty steps [2..41], step K running program progK (exe
 * /usr/bin/progK) for the same time. */
#include "query.h"
#include "tracedb.h"
#include "unit-trace.h"

#include <glib.h>
#include <string.h>
#include <unistd.h>

#define STEPS 40

static char *forty_programs(void)
{
    GString *sql = g_string_new(
        "INSERT INTO processes (id, pid, start_ticks, exec_seq, parent_id, start_ns, "
        "first_seen_ns, comm, exe, cwd) VALUES (1, 10, 1, 0, NULL, 100, 100, 'make', "
        "'/usr/bin/make', '/w');"
        "INSERT INTO exits (process_id, end_ns, exit_code) VALUES (1, 900, 0);");
    for (int k = 2; k <= STEPS + 1; k++)
        g_string_append_printf(
            sql,
            "INSERT INTO processes (id, pid, start_ticks, exec_seq, parent_id, start_ns, "
            "first_seen_ns, comm, exe, cwd) VALUES (%d, %d, %d, 0, 1, %d, %d, 'prog%02d', "
            "'/usr/bin/prog%02d', '/w');"
            "INSERT INTO exits (process_id, end_ns, exit_code) VALUES (%d, %d, 0);",
            k, 20 + k, k, 100 + k, 100 + k, k, k, k, 100 + k + 500);
    g_autofree char *text = g_string_free(sql, FALSE);
    g_autofree char *name = g_strdup_printf("progs-%d.db", g_test_rand_int());
    return unit_crafted_trace(name, text, 1000);
}

/* Programs of the same total time: by name (the longest first, then the names' order). */
static void test_programs_of_one_total_by_name(void)
{
    g_autofree char *db = forty_programs();
    g_autofree char *out = unit_path("report.html");
    const char *words[] = {"report", "-d", db, "-o", out, NULL};
    g_auto(GStrv) argv = g_strdupv((char **)words);
    g_assert_cmpint(query_report_main((int)g_strv_length(argv), argv), ==, 0);
    g_autofree char *text = NULL;
    g_assert_true(g_file_get_contents(out, &text, NULL, NULL));
    const char *p = strstr(text, "\"progs\":");
    g_assert_nonnull(p);
    for (int k = 2; k <= STEPS + 1; k++) {
        char want[16];
        g_snprintf(want, sizeof want, "[\"prog%02d\"", k);
        const char *at = strstr(p, "[\"prog");
        g_assert_nonnull(at);
        g_assert_cmpint(strncmp(at, want, strlen(want)), ==, 0);
        p = at + strlen(want);
    }
    g_assert_cmpint(unlink(out), ==, 0);
    g_assert_cmpint(unlink(db), ==, 0);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/report/programs-of-one-total-by-name", test_programs_of_one_total_by_name);
    return unit_run();
}
