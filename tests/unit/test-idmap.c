/* Unit tests: the subordinate-range parser and the id maps given to newuidmap/newgidmap. */
#include "idmap.h"

#include <errno.h>
#include <glib.h>

static char *joined(char **args)
{
    return g_strjoinv(" ", args);
}

static void test_find_range(void)
{
    const char *text = "# comment\nalice:100000:65536\nbob:165536:65536\n1003:231072:10\n"
                       "bad:x:1\nempty:5:0\nalice:100:1\n";
    unsigned long s = 0, c = 0;
    g_assert_cmpint(idmap_find_range(text, "alice", 1001, &s, &c), ==, 0);
    g_assert_cmpuint(s, ==, 100000);
    g_assert_cmpuint(c, ==, 65536);
    g_assert_cmpint(idmap_find_range(text, "carol", 1003, &s, &c), ==, 0); /* by uid */
    g_assert_cmpuint(s, ==, 231072);
    g_assert_cmpint(idmap_find_range(text, "bad", 1, &s, &c), ==, -ENOENT);
    g_assert_cmpint(idmap_find_range(text, "empty", 2, &s, &c), ==, -ENOENT);
    g_assert_cmpint(idmap_find_range(text, NULL, 1004, &s, &c), ==, -ENOENT);
    g_assert_cmpint(idmap_find_range("", "alice", 1, &s, &c), ==, -ENOENT);
}

static void test_args(void)
{
    unsigned own = 1001;
    g_auto(GStrv) a = idmap_args(&own, 1, 100000, 65536);
    g_autofree char *s = joined(a);
    g_assert_cmpstr(s, ==, "0 100000 1001 1001 1001 1 1002 101002 64534");
    /* An own id beyond the range's size: the range, then the id. */
    unsigned big = 70000;
    g_auto(GStrv) b = idmap_args(&big, 1, 100000, 65536);
    g_autofree char *t = joined(b);
    g_assert_cmpstr(t, ==, "0 100000 65536 70000 70000 1");
    /* Several ids keeping their numbers (a primary and a supplementary group), unsorted and
     * repeated; a small range. */
    unsigned ids[] = {1001, 100, 1001};
    g_auto(GStrv) c = idmap_args(ids, 3, 200000, 2000);
    g_autofree char *u = joined(c);
    g_assert_cmpstr(u, ==, "0 200000 100 100 100 1 101 200101 900 1001 1001 1 1002 201002 998");
    /* An id at 0, and one at the range's last. */
    unsigned edge[] = {0, 9};
    g_auto(GStrv) d = idmap_args(edge, 2, 500, 10);
    g_autofree char *v = joined(d);
    g_assert_cmpstr(v, ==, "0 0 1 1 501 8 9 9 1");
}

/* The build's own namespace (run --vary user_group): the new id stands for the caller's, the
 * caller's for the parent's id of the new one's number, every other held id for itself; root's
 * parent holds 0 and the new id only. */
static void test_nested(void)
{
    /* The run's namespace of a caller 1001 with a range of 65536 (test_args' first map) */
    g_auto(GStrv) a = idmap_args((unsigned[]){1001}, 1, 100000, 65536);
    struct idmap_range held[8];
    int n = idmap_held(a, held, 8);
    g_assert_cmpint(n, ==, 3);
    g_autofree char *m = idmap_nested(held, n, 1001, 2000, 4096);
    g_assert_cmpstr(m, ==, "2000 1001 1\n1001 2000 1\n0 0 1001\n1002 1002 998\n2001 2001 63535\n");
    /* a parent of 0 and 2000 only */
    struct idmap_range root[] = {{0, 1}, {2000, 1}};
    g_autofree char *r = idmap_nested(root, 2, 0, 2000, 4096);
    g_assert_cmpstr(r, ==, "2000 0 1\n0 2000 1\n");
    /* root's: 0 for an id no file has, 1..65535 but 2000 for themselves */
    g_autofree char *rr = idmap_nested_root(2000);
    g_assert_cmpstr(rr, ==, "2000 0 1\n0 2147483646 1\n1 1 1999\n2001 2001 63535\n");
    /* the new id outside the parent's ids (a range of 1000): the caller's id is not mapped */
    g_auto(GStrv) small = idmap_args((unsigned[]){1001}, 1, 100000, 1000);
    n = idmap_held(small, held, 8);
    g_autofree char *s = idmap_nested(held, n, 1001, 2000, 4096);
    g_assert_cmpstr(s, ==, "2000 1001 1\n0 0 1000\n");
    /* not held, the same id, too long: none */
    g_assert_null(idmap_nested(root, 2, 5, 2000, 4096));
    g_assert_null(idmap_nested(root, 2, 2000, 2000, 4096));
    g_assert_null(idmap_nested(root, 2, 0, 2000, 8));
    struct idmap_range many[400];
    for (int i = 0; i < 400; i++)
        many[i] = (struct idmap_range){(unsigned long)i * 2, 1};
    g_assert_null(idmap_nested(many, 400, 0, 1, 1 << 20));
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/idmap/find-range", test_find_range);
    g_test_add_func("/idmap/args", test_args);
    g_test_add_func("/idmap/nested", test_nested);
    return g_test_run();
}
