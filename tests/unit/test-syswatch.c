/* Unit tests: what the watcher of the system trees reads from the opener (syswatch.h): its
 * /proc/TID/syscall line, what that syscall says about the open, and the steps of a symlink
 * walk. */
#include "syswatch.h"

#include <fcntl.h>
#include <glib.h>
#include <string.h>
#include <sys/syscall.h>

static void test_parse_syscall(void)
{
    long nr;
    unsigned long long a[6];
    const char *s = "257 0xffffff9c 0x7ffd1234 0x80000 0x0 0x0 0x0 0x7ffd0000 0x7f00aa\n";
    g_assert_cmpint(syswatch_parse_syscall(s, strlen(s), &nr, a), ==, 0);
    g_assert_cmpint(nr, ==, 257);
    g_assert_cmpuint(a[0], ==, 0xffffff9cULL);
    g_assert_cmpuint(a[1], ==, 0x7ffd1234ULL);
    g_assert_cmpuint(a[2], ==, 0x80000ULL);
    g_assert_cmpuint(a[5], ==, 0);
    /* Not in a syscall, or no answer. */
    g_assert_cmpint(syswatch_parse_syscall("running\n", 8, &nr, a), ==, -EAGAIN);
    g_assert_cmpint(syswatch_parse_syscall("-1 0x7ffd 0x7f00\n", 17, &nr, a), ==, -ENODATA);
    /* Malformed: too few arguments, not numbers, an overflow, empty. */
    const char *bad[] = {"59 0x1 0x2\n", "x 0x1 0x2 0x3 0x4 0x5 0x6", "257 0x 0x1 0x2 0x3 0x4 0x5",
                         "257 0x1ffffffffffffffff 0 0 0 0 0", "", "257", "99999999999999999999999 0 0 0 0 0 0"};
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++)
        g_assert_cmpint(syswatch_parse_syscall(bad[i], strlen(bad[i]), &nr, a), ==, -EINVAL);
    /* The length bounds the parse: no terminating NUL is needed. */
    char cut[] = {'5', '9', ' ', '1', ' ', '2', ' ', '3', ' ', '4', ' ', '5', ' ', '6'};
    g_assert_cmpint(syswatch_parse_syscall(cut, sizeof cut, &nr, a), ==, 0);
    g_assert_cmpint(nr, ==, 59);
    g_assert_cmpuint(a[5], ==, 6);
    g_assert_cmpint(syswatch_parse_syscall(cut, sizeof cut - 2, &nr, a), ==, -EINVAL);
}

static void test_classify(void)
{
    int flags = -1, dirfd = 0;
    unsigned long long how = 0, path = 0;
    unsigned long long a[6] = {5, 0x1000, O_WRONLY | O_TRUNC, 0644, 0, 0};
#ifdef SYS_openat
    g_assert_cmpint(syswatch_classify(SYS_openat, a, &flags, &how, &path, &dirfd), ==, SYSWATCH_OPEN);
    g_assert_cmpint(flags, ==, O_WRONLY | O_TRUNC);
    g_assert_cmpuint(path, ==, 0x1000);
    g_assert_cmpint(dirfd, ==, 5);
#endif
#ifdef SYS_open
    unsigned long long o[6] = {0x2000, O_RDONLY, 0, 0, 0, 0};
    g_assert_cmpint(syswatch_classify(SYS_open, o, &flags, &how, &path, &dirfd), ==, SYSWATCH_OPEN);
    g_assert_cmpint(flags, ==, O_RDONLY);
    g_assert_cmpuint(path, ==, 0x2000);
    g_assert_cmpint(dirfd, ==, AT_FDCWD);
#endif
#ifdef SYS_execve
    unsigned long long e[6] = {0x3000, 0x4000, 0x5000, 0, 0, 0};
    g_assert_cmpint(syswatch_classify(SYS_execve, e, &flags, &how, &path, &dirfd), ==, SYSWATCH_EXEC);
    g_assert_cmpuint(path, ==, 0x3000);
    g_assert_cmpint(dirfd, ==, AT_FDCWD);
#endif
#ifdef SYS_execveat
    unsigned long long x[6] = {7, 0x3000, 0x4000, 0x5000, 0, 0};
    g_assert_cmpint(syswatch_classify(SYS_execveat, x, &flags, &how, &path, &dirfd), ==, SYSWATCH_EXEC);
    g_assert_cmpuint(path, ==, 0x3000);
    g_assert_cmpint(dirfd, ==, 7);
#endif
#ifdef SYS_openat2
    unsigned long long h[6] = {AT_FDCWD, 0x6000, 0x7000, 24, 0, 0};
    g_assert_cmpint(syswatch_classify(SYS_openat2, h, &flags, &how, &path, &dirfd), ==, SYSWATCH_OPEN_HOW);
    g_assert_cmpuint(how, ==, 0x7000);
    g_assert_cmpuint(path, ==, 0x6000);
#endif
#ifdef SYS_getpid
    g_assert_cmpint(syswatch_classify(SYS_getpid, a, &flags, &how, &path, &dirfd), ==, SYSWATCH_UNKNOWN);
#endif
    g_assert_cmpint(syswatch_classify(-1, a, &flags, &how, &path, &dirfd), ==, SYSWATCH_UNKNOWN);
}

/* Walk `path` through syswatch_next_component and give the resolved prefix after each step. */
static char *steps(const char *path)
{
    char done[4096] = "", comp[256];
    GString *g = g_string_new(NULL);
    const char *rest = path;
    while ((rest = syswatch_next_component(done, rest, comp))) {
        size_t l = strlen(done);
        g_snprintf(done + l, sizeof done - l, "/%s", comp);
        g_string_append_printf(g, "%s;", done);
    }
    return g_string_free(g, FALSE);
}

static void test_components(void)
{
    struct { const char *in, *out; } cases[] = {
        {"/usr/bin/cc", "/usr;/usr/bin;/usr/bin/cc;"},
        {"//usr///bin/", "/usr;/usr/bin;"},
        {"/usr/./lib/../bin/cc", "/usr;/usr/lib;/usr/bin;/usr/bin/cc;"},
        {"/../../usr", "/usr;"},
        {"/", ""},
        {"/usr/lib/gcc/x86_64-linux-gnu/12/../../../x86_64-linux-gnu/crt1.o",
         "/usr;/usr/lib;/usr/lib/gcc;/usr/lib/gcc/x86_64-linux-gnu;/usr/lib/gcc/x86_64-linux-gnu/12;"
         "/usr/lib/x86_64-linux-gnu;/usr/lib/x86_64-linux-gnu/crt1.o;"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autofree char *got = steps(cases[i].in);
        g_assert_cmpstr(got, ==, cases[i].out);
    }
    /* A name longer than any the kernel allows is cut, never overflowing `comp`. */
    GString *big = g_string_new("/");
    for (int i = 0; i < 1000; i++)
        g_string_append_c(big, 'a');
    char done[8] = "", comp[256];
    const char *rest = syswatch_next_component(done, big->str, comp);
    g_assert_nonnull(rest);
    g_assert_cmpuint(strlen(comp), ==, 255);
    g_string_free(big, TRUE);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/syswatch/parse-syscall", test_parse_syscall);
    g_test_add_func("/syswatch/classify", test_classify);
    g_test_add_func("/syswatch/components", test_components);
    return g_test_run();
}
