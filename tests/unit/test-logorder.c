/* Unit tests: the order of `buildtrail log` (jobs together, in start order, nested makes). */
#include "logorder.h"

#include <string.h>

#define TICK 10000000LL /* 10 ms */

static GHashTable *procs;

static void add_proc(int64_t id, int64_t parent, int64_t start, bool driver)
{
    struct log_proc *p = g_new(struct log_proc, 1);
    *p = (struct log_proc){id, parent, start, driver, NULL};
    g_hash_table_insert(procs, &p->id, p);
}

static char *order(struct log_chunk *c, size_t n)
{
    log_sort(c, n, procs, TICK);
    GString *s = g_string_new(NULL);
    for (size_t i = 0; i < n; i++)
        g_string_append_len(s, c[i].data, (gssize)c[i].len);
    return g_string_free(s, FALSE);
}

#define CHUNK(seq, pid, t, text) {seq, pid, 1, t, text, sizeof text - 1}

static void test_no_driver_keeps_order(void)
{
    procs = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, g_free);
    add_proc(1, 0, 0, false);
    add_proc(2, 1, TICK, false);
    struct log_chunk c[] = {CHUNK(1, 2, 5 * TICK, "a"), CHUNK(2, 1, 6 * TICK, "b"),
                            CHUNK(3, 2, 7 * TICK, "c")};
    g_autofree char *s = order(c, 3);
    g_assert_cmpstr(s, ==, "abc");
    g_hash_table_destroy(procs);
}

static void test_parallel_jobs_grouped(void)
{
    procs = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, g_free);
    add_proc(1, 0, 0, true);         /* make -j2 */
    add_proc(2, 1, 10 * TICK, false); /* job A */
    add_proc(3, 1, 11 * TICK, false); /* job B */
    add_proc(4, 2, 12 * TICK, false); /* A's child (cc1) */
    struct log_chunk c[] = {
        CHUNK(1, 1, 10 * TICK + 1, "M1 "),  /* make prints before A starts in the same tick */
        CHUNK(2, 3, 13 * TICK, "B1 "),
        CHUNK(3, 4, 14 * TICK, "A1 "),
        CHUNK(4, 3, 15 * TICK, "B2 "),
        CHUNK(5, 2, 16 * TICK, "A2 "),
        CHUNK(6, 1, 30 * TICK, "M2"),
    };
    g_autofree char *s = order(c, 6);
    g_assert_cmpstr(s, ==, "M1 A1 A2 B1 B2 M2");
    g_hash_table_destroy(procs);
}

static void test_recursive_make(void)
{
    procs = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, g_free);
    add_proc(1, 0, 0, true);          /* make */
    add_proc(2, 1, 1 * TICK, false);  /* sh -c 'make -C sub' (job of the outer make) */
    add_proc(3, 2, 2 * TICK, true);   /* inner make */
    add_proc(4, 3, 3 * TICK, false);  /* inner job X */
    add_proc(5, 3, 4 * TICK, false);  /* inner job Y */
    add_proc(6, 1, 5 * TICK, false);  /* outer job Z, parallel with the sub-make */
    struct log_chunk c[] = {
        CHUNK(1, 3, 2 * TICK + 5, "enter "),
        CHUNK(2, 5, 6 * TICK, "Y1 "),
        CHUNK(3, 6, 6 * TICK + 1, "Z1 "),
        CHUNK(4, 4, 7 * TICK, "X1 "),
        CHUNK(5, 5, 8 * TICK, "Y2 "),
        CHUNK(6, 3, 9 * TICK, "leave "),
        CHUNK(7, 6, 10 * TICK, "Z2"),
    };
    g_autofree char *s = order(c, 7);
    g_assert_cmpstr(s, ==, "enter X1 Y1 Y2 leave Z1 Z2");
    g_hash_table_destroy(procs);
}

static void test_drivers(void)
{
    g_assert_true(log_is_driver("make"));
    g_assert_true(log_is_driver("ninja"));
    g_assert_false(log_is_driver("cc"));
    g_assert_false(log_is_driver("makeinfo"));
}

static void test_echo_filed_under_its_job(void)
{
    procs = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, g_free);
    add_proc(1, 0, 0, true); /* make -j2 */
    add_proc(2, 1, 10 * TICK, false);
    add_proc(3, 1, 10 * TICK, false);
    ((struct log_proc *)g_hash_table_lookup(procs, &(int64_t){2}))->command = "cc -c a.c";
    ((struct log_proc *)g_hash_table_lookup(procs, &(int64_t){3}))->command = "cc -c b.c";
    /* make echoes both recipes, then both compilers complain: -j2 puts the echoes first */
    struct log_chunk c[] = {
        CHUNK(1, 1, 10 * TICK + 1, "cc -c a.c\n"),
        CHUNK(2, 1, 10 * TICK + 2, "cc -c b.c\n"),
        CHUNK(3, 3, 12 * TICK, "b.c: error\n"),
        CHUNK(4, 2, 13 * TICK, "a.c: error\n"),
        CHUNK(5, 1, 20 * TICK, "make: *** Error 1\n"),
    };
    g_autofree char *s = order(c, 5);
    g_assert_cmpstr(s, ==, "cc -c a.c\na.c: error\ncc -c b.c\nb.c: error\nmake: *** Error 1\n");
    g_assert_cmpint(c[0].filed_under, ==, 2); /* the echo of a.c is a.c's job's */
    g_assert_cmpint(c[0].process_id, ==, 1);  /* ... though make wrote it */
    g_assert_true(log_in_job(procs, 2, 2));
    g_assert_false(log_in_job(procs, 3, 2));
    g_hash_table_destroy(procs);
}

static void test_job_command(void)
{
    static const char sh[] = "/bin/sh\0-c\0cc -c a.c && ar r x.a a.o";
    static const char direct[] = "cc\0-c\0a.c";
    g_autofree char *a = log_job_command(sh, sizeof sh - 1);
    g_autofree char *b = log_job_command(direct, sizeof direct - 1);
    g_assert_cmpstr(a, ==, "cc -c a.c && ar r x.a a.o");
    g_assert_cmpstr(b, ==, "cc -c a.c");
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/logorder/no-driver", test_no_driver_keeps_order);
    g_test_add_func("/logorder/parallel", test_parallel_jobs_grouped);
    g_test_add_func("/logorder/recursive", test_recursive_make);
    g_test_add_func("/logorder/drivers", test_drivers);
    g_test_add_func("/logorder/echo-filed-under-its-job", test_echo_filed_under_its_job);
    g_test_add_func("/logorder/job-command", test_job_command);
    return g_test_run();
}
