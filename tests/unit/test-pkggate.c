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

/* The workspace, what lies under it and the directories on the way are never hidden, even when
 * only a package outside the set lists them (a project built in /usr/src/foo). */
static void test_spare(void)
{
    struct pkggate *g = pkggate_new();
    pkggate_add_denied(g, "/usr/src/foo", "foo-source");
    pkggate_add_denied(g, "/usr/src/foo/ws/Makefile", "foo-source");
    pkggate_add_denied(g, "/usr/src/foo-other", "foo-source");
    pkggate_add_denied(g, "/usr/src", "foo-source");
    pkggate_add_denied(g, "/lib/x", "x"); /* /usr/lib/x */
    pkggate_spare(g, "/usr/src/foo/ws");
    pkggate_seal(g);
    g_assert_null(pkggate_judge(g, "/usr/src/foo/ws/Makefile"));
    g_assert_null(pkggate_judge(g, "/usr/src/foo"));
    g_assert_null(pkggate_judge(g, "/usr/src"));
    g_assert_cmpstr(pkggate_judge(g, "/usr/src/foo-other"), ==, "foo-source");
    g_assert_cmpstr(pkggate_judge(g, "/usr/lib/x"), ==, "x");
    g_assert_cmpuint(pkggate_n_spared(g), ==, 1); /* the Makefile, kept visible */
    pkggate_free(g);
    /* A workspace reached through merged /usr's /lib. */
    g = pkggate_new();
    pkggate_add_denied(g, "/usr/lib/p/ws/a", "p");
    pkggate_add_denied(g, "/usr/lib/p", "p");
    pkggate_spare(g, "/lib/p/ws");
    pkggate_seal(g);
    g_assert_null(pkggate_judge(g, "/usr/lib/p/ws/a"));
    g_assert_null(pkggate_judge(g, "/lib/p"));
    pkggate_free(g);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/pkggate/judge", test_judge);
    g_test_add_func("/pkggate/spare", test_spare);
    return g_test_run();
}
