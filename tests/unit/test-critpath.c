/* Unit tests: the critical path and parallelism on scripted process trees (critpath.h). */
#include "buildtime.h"
#include "critpath.h"

#include <string.h>

#define S 1000000000LL

/* The steps' tasks as "id,id,..." with each one's wait reason: "1s 2p 3f". */
static char *chain(const struct cp_task *t, size_t n, const struct cp_dep *d, size_t nd,
                   struct critpath *cp)
{
    critpath_compute(t, n, d, nd, cp);
    GString *s = g_string_new(NULL);
    for (guint i = 0; i < cp->steps->len; i++) {
        const struct cp_step *st = &g_array_index(cp->steps, struct cp_step, i);
        g_string_append_printf(s, "%s%" G_GINT64_FORMAT "%c", i ? " " : "", st->task,
                               st->why == CP_WAIT_START ? 's' : st->why == CP_WAIT_PARENT ? 'p'
                                                                                          : 'f');
    }
    return g_string_free(s, FALSE);
}

/* make (1) runs 2, 3, 4 one after the other: all three are on the path, each after its
 * parent started it; make's own first second is the first step. */
static void test_serial_chain(void)
{
    struct cp_task t[] = {{1, 0, 0, 10 * S}, {2, 1, 1 * S, 3 * S}, {3, 1, 3 * S, 6 * S},
                          {4, 1, 6 * S, 9 * S}};
    struct critpath cp;
    g_autofree char *c = chain(t, 4, NULL, 0, &cp);
    g_assert_cmpstr(c, ==, "1s 2p 3p 4p");
    g_assert_cmpint(cp.start_ns, ==, 0);
    g_assert_cmpint(cp.end_ns, ==, 10 * S);
    const struct cp_step *st = &g_array_index(cp.steps, struct cp_step, 1);
    g_assert_cmpint(st->from_ns, ==, 1 * S);
    g_assert_cmpint(st->to_ns, ==, 3 * S);
    g_assert_cmpint(st->wait_ns, ==, 0);
    g_assert_cmpint(st->after_task, ==, 1);
    double avg[10];
    unsigned peak[10], max;
    critpath_parallelism(t, 4, 0, 10 * S, 10, avg, peak, &max);
    g_assert_cmpuint(max, ==, 1);
    for (int i = 0; i < 10; i++)
        g_assert_cmpfloat_with_epsilon(avg[i], 1.0, 1e-9);
    GArray *ser = critpath_serial_stretches(t, 4, 5 * S, 3);
    g_assert_cmpuint(ser->len, ==, 1); /* one job at a time, all along */
    g_assert_cmpint(g_array_index(ser, int64_t, 0), ==, 0);
    g_array_unref(ser);
    critpath_clear(&cp);
}

/* make -j4 (1) runs 2..5 at once, the longest (4) ends last; then links (6). */
static void test_wide(void)
{
    struct cp_task t[] = {{1, 0, 0, 10 * S},     {2, 1, 1 * S, 3 * S}, {3, 1, 1 * S, 4 * S},
                          {4, 1, 1 * S, 7 * S},  {5, 1, 1 * S, 2 * S}, {6, 1, 7 * S, 9 * S}};
    struct critpath cp;
    g_autofree char *c = chain(t, 6, NULL, 0, &cp);
    g_assert_cmpstr(c, ==, "1s 4p 6p");
    double avg[10];
    unsigned peak[10], max;
    critpath_parallelism(t, 6, 0, 10 * S, 10, avg, peak, &max);
    g_assert_cmpuint(max, ==, 4);
    g_assert_cmpfloat_with_epsilon(avg[1], 4.0, 1e-9); /* 1..2 s: four jobs, make waits */
    g_assert_cmpfloat_with_epsilon(avg[5], 1.0, 1e-9); /* 5..6 s: 4 alone */
    g_assert_cmpuint(peak[1], ==, 4);
    GArray *ser = critpath_serial_stretches(t, 6, 2 * S, 3);
    g_assert_cmpuint(ser->len, ==, 1); /* 4 s..10 s: one job at a time */
    const int64_t *v = &g_array_index(ser, int64_t, 0);
    g_assert_cmpint(v[0], ==, 4 * S);
    g_assert_cmpint(v[1], ==, 10 * S);
    g_array_unref(ser);
    critpath_clear(&cp);
}

/* A generator (2) writes a header every compile (3, 4, 5) reads; the compiles start after it
 * (make started them), the path goes through it. */
static void test_generator(void)
{
    struct cp_task t[] = {{1, 0, 0, 10 * S},    {2, 1, 0, 4 * S}, {3, 1, 4 * S, 6 * S},
                          {4, 1, 4 * S, 8 * S}, {5, 1, 4 * S, 5 * S}};
    struct cp_dep d[] = {{3, 2, 100, 4 * S}, {4, 2, 100, 4 * S}, {5, 2, 100, 4 * S}};
    struct critpath cp;
    g_autofree char *c = chain(t, 5, d, 3, &cp);
    g_assert_cmpstr(c, ==, "2s 4f");
    const struct cp_step *st = &g_array_index(cp.steps, struct cp_step, 1);
    g_assert_cmpint(st->file_id, ==, 100);
    g_assert_cmpint(st->after_task, ==, 2);
    critpath_clear(&cp);
}

/* make (1) runs the generator (2), then, when it ends, the compile (3) that reads its
 * header: the compile waited for the header, though make started it. */
static void test_make_started_after_generator(void)
{
    struct cp_task t[] = {{1, 0, 0, 10 * S}, {2, 1, 0, 4 * S}, {3, 1, 4 * S + 1000, 9 * S}};
    struct cp_dep d[] = {{3, 2, 42, 4 * S - 1000}};
    struct critpath cp;
    g_autofree char *c = chain(t, 3, d, 1, &cp);
    g_assert_cmpstr(c, ==, "2s 3f");
    g_assert_cmpint(g_array_index(cp.steps, struct cp_step, 1).file_id, ==, 42);
    critpath_clear(&cp);
    g_autofree char *c2 = chain(t, 3, NULL, 0, &cp); /* without the read: its parent */
    g_assert_cmpstr(c2, ==, "2s 3p");
    critpath_clear(&cp);
    /* the generator is a shell (2) that ran a command (4) and then wrote the header itself:
     * the step before the compile is the command, the header its parent's */
    struct cp_task t3[] = {{1, 0, 0, 10 * S}, {2, 1, 0, 4 * S}, {3, 1, 4 * S + 1000, 9 * S},
                           {4, 2, 0, 3 * S}};
    g_autofree char *c3 = chain(t3, 4, d, 1, &cp);
    g_assert_cmpstr(c3, ==, "4s 3f");
    critpath_clear(&cp);
}

/* Two sub-makes (2, 5): the compile 6 in the second waits on a file written by 3 in the
 * first (a sibling's child), not on its own parent's start. */
static void test_file_from_sibling(void)
{
    struct cp_task t[] = {{1, 0, 0, 10 * S},    {2, 1, 0, 6 * S},     {3, 2, 1 * S, 5 * S},
                          {4, 2, 5 * S, 6 * S}, {5, 1, 0, 9 * S},     {6, 5, 5 * S, 9 * S}};
    struct cp_dep d[] = {{6, 3, 7, 5 * S}};
    struct critpath cp;
    g_autofree char *c = chain(t, 6, d, 1, &cp);
    g_assert_cmpstr(c, ==, "2s 3p 6f");
    const struct cp_step *st = &g_array_index(cp.steps, struct cp_step, 2);
    g_assert_cmpint(st->file_id, ==, 7);
    g_assert_cmpint(st->wait_ns, ==, 0);
    /* without the file, 6 waited for its parent 5, which started at 0 */
    critpath_clear(&cp);
    g_autofree char *c2 = chain(t, 6, NULL, 0, &cp);
    g_assert_cmpstr(c2, ==, "5s 6p");
    critpath_clear(&cp);
}

/* Crafted: zero-length tasks, a parent that is not a task, a task that is its own parent. */
static void test_degenerate(void)
{
    struct cp_task t[] = {{1, 0, 5 * S, 5 * S}, {2, 1, 5 * S, 5 * S}, {3, 99, 1, 0},
                          {4, 4, 0, S}};
    struct cp_dep d[] = {{2, 1, 1, 5 * S}, {1, 2, 1, 5 * S}, {2, 77, 1, 0}};
    struct critpath cp;
    critpath_compute(t, 4, d, 3, &cp);
    g_assert_cmpuint(cp.steps->len, >=, 1);
    g_assert_cmpuint(cp.steps->len, <=, 4);
    critpath_clear(&cp);
    struct cp_task cycle[] = {{1, 2, 0, S}, {2, 1, 0, S}}; /* no root at all */
    critpath_compute(cycle, 2, NULL, 0, &cp);
    g_assert_cmpuint(cp.steps->len, ==, 0);
    critpath_clear(&cp);
    critpath_compute(NULL, 0, NULL, 0, &cp);
    g_assert_cmpuint(cp.steps->len, ==, 0);
    critpath_clear(&cp);
}

/* The -j a build driver's command line allows: the number, none (0), or without a limit
 * (-1).  A cluster of short options ends where one that takes an argument starts: the 'j'
 * in `make -Cjson-c` is the directory's (it said "-j without a limit"). */
static int jobs(const char *const *words)
{
    GString *s = g_string_new(NULL);
    for (int i = 0; words[i]; i++)
        g_string_append_len(s, words[i], (gssize)strlen(words[i]) + 1);
    int j = buildtime_jobs_in_argv(s->str, s->len);
    g_string_free(s, TRUE);
    return j;
}

static void test_jobs_in_argv(void)
{
    g_assert_cmpint(jobs((const char *[]){"make", "-j4", NULL}), ==, 4);
    g_assert_cmpint(jobs((const char *[]){"make", "-kj3", NULL}), ==, 3);
    g_assert_cmpint(jobs((const char *[]){"make", "-j", "5", NULL}), ==, 5);
    g_assert_cmpint(jobs((const char *[]){"make", "--jobs=6", NULL}), ==, 6);
    g_assert_cmpint(jobs((const char *[]){"make", "-j", NULL}), ==, -1);
    g_assert_cmpint(jobs((const char *[]){"make", NULL}), ==, 0);
    g_assert_cmpint(jobs((const char *[]){"make", "-Cjson-c", NULL}), ==, 0);
    g_assert_cmpint(jobs((const char *[]){"make", "-fMakefile.json", "-j2", NULL}), ==, 2);
    g_assert_cmpint(jobs((const char *[]){"make", "-sIinclude/json", NULL}), ==, 0);
    g_assert_cmpint(jobs((const char *[]){"make", "-Wjunk.c", NULL}), ==, 0);
    g_assert_cmpint(jobs((const char *[]){"make", "-ol.json", "-sj7", NULL}), ==, 7);
}

/* A build of 1 µs, 48 jobs at once, on a clock 7 hours after boot (as a real trace's): each
 * slice's mean is 48, never more than its peak.  The slices were placed in absolute
 * nanoseconds as doubles (near 2.6e13 a double's step is 1/256 ns, against slices of 17 ns),
 * so means came out 48.004, above the peak of 48. */
static void test_parallelism_late_clock(void)
{
    const int64_t at = INT64_C(25589501413796);
    struct cp_task t[49];
    t[0] = (struct cp_task){1, 0, at, at + 1000};
    for (int i = 1; i < 49; i++)
        t[i] = (struct cp_task){i + 1, 1, at, at + 1000};
    double avg[60];
    unsigned peak[60], max;
    critpath_parallelism(t, 49, at, at + 1000, 60, avg, peak, &max);
    g_assert_cmpuint(max, ==, 48);
    for (int b = 0; b < 60; b++) {
        g_assert_cmpuint(peak[b], ==, 48);
        g_assert_cmpfloat(avg[b], <=, 48.0 + 1e-9);
        g_assert_cmpfloat(avg[b], >=, 48.0 - 1e-9);
    }
}

/* A make and the jobs it started in the same nanosecond, listed jobs first (as a trace may list
 * them): at that instant the make is waiting, not working, so parallelism is the jobs alone.
 * Ties were broken by the order the tasks were given in, so a parent listed after its children
 * started "after" them and counted as working: 4 where 3 ran.  Ends at one instant the same:
 * nothing is left working once all have ended. */
static void test_parallelism_parent_listed_last(void)
{
    struct cp_task t[4] = {
        {2, 1, 100, 200}, {3, 1, 100, 200}, {4, 1, 100, 200}, {1, 0, 100, 200},
    };
    double avg[4];
    unsigned peak[4], max;
    critpath_parallelism(t, 4, 100, 200, 4, avg, peak, &max);
    g_assert_cmpuint(max, ==, 3);
    for (int b = 0; b < 4; b++)
        g_assert_cmpuint(peak[b], ==, 3);
    /* a chain listed deepest first: one working at any instant */
    struct cp_task chain[3] = {{3, 2, 100, 200}, {2, 1, 100, 200}, {1, 0, 100, 200}};
    critpath_parallelism(chain, 3, 100, 200, 4, avg, peak, &max);
    g_assert_cmpuint(max, ==, 1);
    /* a parent whose parent link loops (a damaged trace) still ends the sweep */
    struct cp_task loop[2] = {{1, 2, 100, 200}, {2, 1, 100, 200}};
    critpath_parallelism(loop, 2, 100, 200, 4, avg, peak, &max);
    g_assert_cmpuint(max, >=, 1);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/critpath/serial-chain", test_serial_chain);
    g_test_add_func("/critpath/wide", test_wide);
    g_test_add_func("/critpath/generator", test_generator);
    g_test_add_func("/critpath/file-from-sibling", test_file_from_sibling);
    g_test_add_func("/critpath/make-started-after-generator", test_make_started_after_generator);
    g_test_add_func("/critpath/degenerate", test_degenerate);
    g_test_add_func("/critpath/jobs-in-argv", test_jobs_in_argv);
    g_test_add_func("/critpath/parallelism-late-clock", test_parallelism_late_clock);
    g_test_add_func("/critpath/parallelism-parent-listed-last", test_parallelism_parent_listed_last);
    return g_test_run();
}
