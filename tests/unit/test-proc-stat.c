/* Unit tests: parsing /proc/PID/stat (comm may contain spaces and parentheses). */
#include "proc.h"

#include <glib.h>
#include <string.h>

static void test_parse(void)
{
    struct proc_stat st;
    const char *s = "1234 (cc1) S 1200 1234 1200 0 -1 4194304 100 0 0 0 5 1 0 0 20 0 1 0 "
                    "987654 1000000 100 18446744073709551615\n";
    g_assert_cmpint(proc_parse_stat(s, strlen(s), &st), ==, 0);
    g_assert_cmpstr(st.comm, ==, "cc1");
    g_assert_cmpint(st.ppid, ==, 1200);
    g_assert_cmpuint(st.start_ticks, ==, 987654);
    g_assert_cmpuint(st.layout[0], ==, 0); /* a short (old-kernel) line: no layout */

    const char *t = "77 (a) b) (c) R 5 77 5 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 42 0 0\n";
    g_assert_cmpint(proc_parse_stat(t, strlen(t), &st), ==, 0);
    g_assert_cmpstr(st.comm, ==, "a) b) (c");
    g_assert_cmpint(st.ppid, ==, 5);
    g_assert_cmpuint(st.start_ticks, ==, 42);
}

/* A full modern line: fields 26 (start_code), 48 and 49 (arg_start, arg_end). */
static void test_layout(void)
{
    GString *g = g_string_new("9 (sh) S 1");
    for (int f = 5; f <= 52; f++)
        g_string_append_printf(g, " %d", f == 22 ? 500 : f == 26 ? 4096 : f == 48 ? 7000 : f == 49 ? 7100 : f);
    g_string_append_c(g, '\n');
    struct proc_stat st;
    g_assert_cmpint(proc_parse_stat(g->str, g->len, &st), ==, 0);
    g_assert_cmpuint(st.start_ticks, ==, 500);
    g_assert_cmpuint(st.layout[0], ==, 4096);
    g_assert_cmpuint(st.layout[1], ==, 7000);
    g_assert_cmpuint(st.layout[2], ==, 7100);
    g_string_free(g, TRUE);
}

static void test_reject(void)
{
    struct proc_stat st;
    const char *bad[] = {
        "",
        "12 (x",
        "12 x) R 1",
        "12 (x) R 1 2 3",
        ("12 (x) R -5 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 9"),
        "1 (x) R 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 z",
    };
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++)
        g_assert_cmpint(proc_parse_stat(bad[i], strlen(bad[i]), &st), ==, -22);
}

static void test_self(void)
{
    g_autofree char *buf = NULL;
    gsize len;
    g_assert_true(g_file_get_contents("/proc/self/stat", &buf, &len, NULL));
    struct proc_stat st;
    g_assert_cmpint(proc_parse_stat(buf, len, &st), ==, 0);
    g_assert_cmpint(st.ppid, ==, getppid());
    g_assert_cmpuint(st.start_ticks, >, 0);
    g_assert_cmpuint(st.layout[1], >, 0); /* our own layout is visible to us */
    g_assert_cmpuint(st.layout[2], >, st.layout[1]);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/proc/parse", test_parse);
    g_test_add_func("/proc/layout", test_layout);
    g_test_add_func("/proc/reject", test_reject);
    g_test_add_func("/proc/self", test_self);
    return g_test_run();
}
