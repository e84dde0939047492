/* Unit tests: which files of packages outside --only-packages are hidden (capture/pkggate.c). */
#include "pkggate.h"

#include <glib.h>

static void test_judge(void)
{
    struct pkggate *g = pkggate_new();
    pkggate_add_denied(g, "/usr/include/zlib.h", "zlib1g-dev");
    pkggate_add_denied(g, "/usr/include", "zlib1g-dev");
    pkggate_add_allowed(g, "/usr/include"); /* libc6-dev's too: stays */
    pkggate_add_denied(g, "/usr/include/openssl/", "libssl-dev");
    pkggate_add_denied(g, "/lib/x86_64-linux-gnu/libz.so.1", "zlib1g");
    pkggate_add_allowed(g, "/bin/sh");
    pkggate_add_denied(g, "/usr/bin/sh", "other"); /* the same file as /bin/sh */
    pkggate_add_denied(g, "/usr/share/doc/x", "first");
    pkggate_add_denied(g, "/usr/share/doc/x", "second"); /* the first lister names it */
    pkggate_seal(g);
    g_assert_cmpstr(pkggate_judge(g, "/usr/include/zlib.h"), ==, "zlib1g-dev");
    g_assert_null(pkggate_judge(g, "/usr/include"));
    g_assert_cmpstr(pkggate_judge(g, "/usr/include/openssl"), ==, "libssl-dev");
    /* Merged /usr: either form judged as the /usr one. */
    g_assert_cmpstr(pkggate_judge(g, "/usr/lib/x86_64-linux-gnu/libz.so.1"), ==, "zlib1g");
    g_assert_cmpstr(pkggate_judge(g, "/lib/x86_64-linux-gnu/libz.so.1"), ==, "zlib1g");
    g_assert_null(pkggate_judge(g, "/usr/bin/sh"));
    g_assert_null(pkggate_judge(g, "/bin/sh"));
    g_assert_null(pkggate_judge(g, "/library/x")); /* not /lib */
    g_assert_cmpstr(pkggate_judge(g, "/usr/share/doc/x"), ==, "first");
    /* No package lists it: visible. */
    g_assert_null(pkggate_judge(g, "/etc/alternatives/cc"));
    g_assert_cmpuint(pkggate_n_hidden(g), ==, 4);
    pkggate_free(g);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/pkggate/judge", test_judge);
    return g_test_run();
}
