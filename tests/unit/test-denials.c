/* Unit tests: what run --only-packages hid, grouped by package (query/lib/denials.c). */
#include "denials.h"
#include "tracedb.h"

#include <glib.h>

static void add(GArray *d, const char *path, int64_t process, int reason, const char *package)
{
    struct denial e = {g_strdup(path), process, TRACEDB_DENIED_LOOKUP, reason,
                       g_strdup(package), 1};
    g_array_append_val(d, e);
}

static void clear(gpointer p)
{
    struct denial *e = p;
    g_free(e->path);
    g_free(e->package);
}

static void test_by_package(void)
{
    GArray *d = g_array_new(FALSE, TRUE, sizeof(struct denial));
    g_array_set_clear_func(d, clear);
    /* by path, then process, as denials_load gives them (but zconf.h: a caller's order) */
    add(d, "/etc/x", 3, TRACEDB_DENIED_UNDECLARED, NULL);
    add(d, "/usr/include/zlib.h", 9, TRACEDB_DENIED_PACKAGE, "zlib1g-dev");
    add(d, "/usr/include/zlib.h", 12, TRACEDB_DENIED_PACKAGE, "zlib1g-dev");
    add(d, "/usr/include/zconf.h", 12, TRACEDB_DENIED_PACKAGE, "zlib1g-dev");
    add(d, "/usr/share/locale/locale.alias", 0, TRACEDB_DENIED_PACKAGE, "locales");
    add(d, "/usr/share/locale/locale.alias", 4, TRACEDB_DENIED_PACKAGE, "locales");
    GPtrArray *p = denials_by_package(d);
    g_assert_cmpuint(p->len, ==, 2);
    const struct denied_package *l = p->pdata[0], *z = p->pdata[1];
    g_assert_cmpstr(l->name, ==, "locales");
    g_assert_cmpuint(l->paths->len, ==, 1);
    g_assert_cmpuint(l->processes->len, ==, 2);
    g_assert_cmpint(g_array_index(l->processes, int64_t, 0), ==, 0);
    g_assert_cmpstr(z->name, ==, "zlib1g-dev");
    g_assert_cmpuint(z->paths->len, ==, 2);
    g_assert_cmpstr(z->paths->pdata[0], ==, "/usr/include/zconf.h"); /* sorted */
    g_assert_cmpuint(z->processes->len, ==, 2); /* 9 and 12, 12 once */
    g_assert_cmpint(g_array_index(z->processes, int64_t, 1), ==, 12);
    g_ptr_array_unref(p);
    g_autofree char *why = denial_why(&g_array_index(d, struct denial, 1));
    g_assert_cmpstr(why, ==, "package zlib1g-dev not allowed");
    g_assert_cmpstr(denial_reason_name(TRACEDB_DENIED_PACKAGE), ==, "package-not-allowed");
    g_array_unref(d);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/denials/by-package", test_by_package);
    return g_test_run();
}
