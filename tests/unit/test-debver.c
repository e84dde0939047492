/* Unit tests: Debian versions parsed and ordered as dpkg orders them (deb-version(7); each
 * pair below checked against `dpkg --compare-versions` when written). */
#include "debver.h"

#include <errno.h>
#include <glib.h>

static int cmp(const char *a, const char *b)
{
    struct debver va, vb;
    const char *why = NULL;
    g_assert_cmpint(debver_parse(a, &va, &why), ==, 0);
    g_assert_cmpint(debver_parse(b, &vb, &why), ==, 0);
    int r = debver_cmp(&va, &vb);
    g_assert_cmpint(debver_cmp(&vb, &va), ==, -r); /* antisymmetric */
    debver_clear(&va);
    debver_clear(&vb);
    return r < 0 ? -1 : r > 0;
}

static void test_order(void)
{
    static const struct { const char *a, *b; int r; } pairs[] = {
        {"1.2", "0:1.2", 0},        {"1.2", "1.2-0", 0},         {"0:1.2-0", "1.2", 0},
        {"1.2.13", "1.2.9", 1},     {"1.2.13.dfsg-1", "1.2.13.dfsg-1+deb12u1", -1},
        {"1:0.1", "9.9", 1},        {"1.0~rc1", "1.0", -1},      {"1.0~rc1", "1.0~", 1},
        {"1.0~~", "1.0~", -1},      {"1.0", "1.0a", -1},         {"1.0a", "1.0+", -1},
        {"1.0+", "1.0.", -1},       {"1.01", "1.1", 0},          {"1.001", "1.1", 0},
        {"2.36-9+deb12u4", "2.36-9+deb12u10", -1},               {"12.2.0-14", "12.2.0-14", 0},
        {"1.2-3", "1.2-3.1", -1},   {"1.2-a", "1.2-b", -1},      {"1:1.2", "2:0.1", -1},
        {"7.1.1", "7.1", 1},        {"1.0-1~bpo1", "1.0-1", -1}, {"3.0.11-1", "3.0.9-5", 1},
        {"1.2-3-4", "1.2-3-5", -1}, {"1:2:3", "1:2:4", -1},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(pairs); i++) {
        if (cmp(pairs[i].a, pairs[i].b) != pairs[i].r)
            g_error("%s vs %s: want %d", pairs[i].a, pairs[i].b, pairs[i].r);
    }
}

static void test_parts(void)
{
    struct debver v;
    const char *why = NULL;
    g_assert_cmpint(debver_parse("2:1.2-3-4ubuntu1", &v, &why), ==, 0);
    g_assert_cmpuint(v.epoch, ==, 2);
    g_assert_cmpstr(v.upstream, ==, "1.2-3");
    g_assert_cmpstr(v.revision, ==, "4ubuntu1");
    debver_clear(&v);
    g_assert_cmpint(debver_parse("1.2", &v, &why), ==, 0);
    g_assert_cmpuint(v.epoch, ==, 0);
    g_assert_cmpstr(v.revision, ==, "");
    debver_clear(&v);
}

static void test_refused(void)
{
    static const char *const bad[] = {"", "  ", ":1.2", "a:1.2", "1.2-", "-1", "1:", "abc",
                                      "1.2 3", "1.2_3", "1.2-3_4", "1:a", "99999999999:1",
                                      "1.2:3", "1.2\n"};
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        struct debver v;
        const char *why = NULL;
        if (debver_parse(bad[i], &v, &why) != -EINVAL)
            g_error("'%s' parsed", bad[i]);
        g_assert_nonnull(why);
    }
}

static void test_equal_str(void)
{
    g_assert_true(debver_equal_str("0:1.2.13.dfsg-1", "1.2.13.dfsg-1"));
    g_assert_false(debver_equal_str("1.2.13.dfsg-1", "1.2.13.dfsg-2"));
    /* what is not a version is compared as it is */
    g_assert_true(debver_equal_str("weird version", "weird version"));
    g_assert_false(debver_equal_str("weird version", "1.0"));
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/debver/order", test_order);
    g_test_add_func("/debver/parts", test_parts);
    g_test_add_func("/debver/refused", test_refused);
    g_test_add_func("/debver/equal-str", test_equal_str);
    return g_test_run();
}
