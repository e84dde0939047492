/* Unit tests: parsing /proc/PID/stat (comm may contain spaces and parentheses). */
#include "proc.h"

#include <glib.h>
#include <string.h>

static void test_parse(void)
{
    char comm[64];
    pid_t ppid;
    unsigned long long start;
    const char *s = "1234 (cc1) S 1200 1234 1200 0 -1 4194304 100 0 0 0 5 1 0 0 20 0 1 0 "
                    "987654 1000000 100 18446744073709551615\n";
    g_assert_cmpint(proc_parse_stat(s, strlen(s), comm, &ppid, &start), ==, 0);
    g_assert_cmpstr(comm, ==, "cc1");
    g_assert_cmpint(ppid, ==, 1200);
    g_assert_cmpuint(start, ==, 987654);

    const char *t = "77 (a) b) (c) R 5 77 5 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 42 0 0\n";
    g_assert_cmpint(proc_parse_stat(t, strlen(t), comm, &ppid, &start), ==, 0);
    g_assert_cmpstr(comm, ==, "a) b) (c");
    g_assert_cmpint(ppid, ==, 5);
    g_assert_cmpuint(start, ==, 42);
}

static void test_reject(void)
{
    char comm[64];
    pid_t ppid;
    unsigned long long start;
    const char *bad[] = {
        "",
        "12 (x",
        "12 x) R 1",
        "12 (x) R 1 2 3",
        ("12 (x) R -5 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 9"),
        "1 (x) R 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 z",
    };
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++)
        g_assert_cmpint(proc_parse_stat(bad[i], strlen(bad[i]), comm, &ppid, &start), ==, -22);
}

static void test_self(void)
{
    g_autofree char *buf = NULL;
    gsize len;
    g_assert_true(g_file_get_contents("/proc/self/stat", &buf, &len, NULL));
    char comm[64];
    pid_t ppid;
    unsigned long long start;
    g_assert_cmpint(proc_parse_stat(buf, len, comm, &ppid, &start), ==, 0);
    g_assert_cmpint(ppid, ==, getppid());
    g_assert_cmpuint(start, >, 0);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/proc/parse", test_parse);
    g_test_add_func("/proc/reject", test_reject);
    g_test_add_func("/proc/self", test_self);
    return g_test_run();
}
