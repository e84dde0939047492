/* Unit tests: Debian relationship fields — clauses, alternatives, versions, architecture and
 * profile qualifiers, and the Build-Depends fields of a debian/control or .dsc. */
#include "debdeps.h"

#include <glib.h>
#include <string.h>

static const struct debdep_alt *alt(GPtrArray *clauses, guint c, guint a)
{
    const struct debdep_clause *cl = clauses->pdata[c];
    g_assert_cmpuint(a, <, cl->alts->len);
    return cl->alts->pdata[a];
}

static void test_parse(void)
{
    const char *v = "debhelper-compat (= 13), zlib1g-dev | libz-dev,\n python3:any (>=3.9~),"
                    " libselinux1-dev [linux-any] <!stage1>, ,gcc-multilib [amd64 i386]"
                    " <!nocheck !stage1> <cross>, |, libfoo (<<2) junk";
    GPtrArray *c = debdeps_parse(v, strlen(v));
    g_assert_cmpuint(c->len, ==, 6); /* the empty clause and the one of bare '|' are dropped */
    g_assert_cmpstr(alt(c, 0, 0)->name, ==, "debhelper-compat");
    g_assert_cmpstr(alt(c, 0, 0)->op, ==, "=");
    g_assert_cmpstr(alt(c, 0, 0)->version, ==, "13");
    g_assert_cmpuint(((struct debdep_clause *)c->pdata[1])->alts->len, ==, 2);
    g_assert_cmpstr(alt(c, 1, 1)->name, ==, "libz-dev");
    g_assert_null(alt(c, 1, 1)->op);
    g_assert_cmpstr(alt(c, 2, 0)->name, ==, "python3");
    g_assert_cmpstr(alt(c, 2, 0)->archqual, ==, "any");
    g_assert_cmpstr(alt(c, 2, 0)->op, ==, ">=");
    g_assert_cmpstr(alt(c, 2, 0)->version, ==, "3.9~");
    g_assert_cmpstr(alt(c, 3, 0)->arches[0], ==, "linux-any");
    g_assert_null(alt(c, 3, 0)->arches[1]);
    g_assert_cmpuint(alt(c, 3, 0)->profiles->len, ==, 1);
    const struct debdep_alt *m = alt(c, 4, 0);
    g_assert_cmpuint(g_strv_length(m->arches), ==, 2);
    g_assert_cmpuint(m->profiles->len, ==, 2);
    g_assert_cmpstr(((char **)m->profiles->pdata[0])[1], ==, "!stage1");
    g_assert_cmpstr(alt(c, 5, 0)->name, ==, "libfoo");
    g_assert_cmpstr(alt(c, 5, 0)->op, ==, "<<");
    g_ptr_array_free(c, TRUE);
}

static void test_arch(void)
{
    g_assert_true(debdeps_arch_matches("amd64", "any"));
    g_assert_true(debdeps_arch_matches("amd64", "amd64"));
    g_assert_true(debdeps_arch_matches("amd64", "linux-any"));
    g_assert_true(debdeps_arch_matches("amd64", "any-amd64"));
    g_assert_false(debdeps_arch_matches("amd64", "i386"));
    g_assert_false(debdeps_arch_matches("amd64", "hurd-any"));
    g_assert_true(debdeps_arch_matches("hurd-i386", "hurd-any"));
    g_assert_false(debdeps_arch_matches("hurd-i386", "linux-any"));
    g_assert_true(debdeps_arch_matches("hurd-i386", "any-i386"));
    g_assert_true(debdeps_arch_matches("armhf", "any-arm"));
    g_assert_true(debdeps_arch_matches("armel", "any-arm"));
    g_assert_false(debdeps_arch_matches("arm64", "any-arm"));
}

static void test_applies(void)
{
    const char *v = "a [amd64], b [!amd64], c [i386 hurd-any], d <!nocheck>, e <stage1 cross>,"
                    " f <!nocheck> <pkg.x.y>, g";
    GPtrArray *c = debdeps_parse(v, strlen(v));
    g_assert_cmpuint(c->len, ==, 7);
    const char *none[] = {NULL}, *nocheck[] = {"nocheck", NULL},
               *both[] = {"stage1", "cross", NULL}, *x[] = {"nocheck", "pkg.x.y", NULL};
    g_assert_true(debdeps_applies(alt(c, 0, 0), "amd64", none));
    g_assert_false(debdeps_applies(alt(c, 0, 0), "arm64", none));
    g_assert_false(debdeps_applies(alt(c, 1, 0), "amd64", none));
    g_assert_true(debdeps_applies(alt(c, 1, 0), "arm64", none));
    g_assert_false(debdeps_applies(alt(c, 2, 0), "amd64", none));
    g_assert_true(debdeps_applies(alt(c, 2, 0), "hurd-amd64", none));
    g_assert_true(debdeps_applies(alt(c, 3, 0), "amd64", none));
    g_assert_true(debdeps_applies(alt(c, 3, 0), "amd64", NULL));
    g_assert_false(debdeps_applies(alt(c, 3, 0), "amd64", nocheck));
    g_assert_false(debdeps_applies(alt(c, 4, 0), "amd64", nocheck)); /* needs both */
    g_assert_true(debdeps_applies(alt(c, 4, 0), "amd64", both));
    g_assert_true(debdeps_applies(alt(c, 5, 0), "amd64", none));     /* first list holds */
    g_assert_false(debdeps_applies(alt(c, 5, 0), "amd64", nocheck)); /* neither holds */
    g_assert_true(debdeps_applies(alt(c, 5, 0), "amd64", x));        /* second holds */
    g_assert_true(debdeps_applies(alt(c, 6, 0), "s390x", nocheck));
    g_ptr_array_free(c, TRUE);
}

static void test_control(void)
{
    const char *control = "# a comment\nSource: dash\nSection: shells\n"
                          "Build-Depends: debhelper-compat (= 12),\n dpkg-dev (>= 1.16.1),\n"
                          "# commented out: foo,\n po-debconf\n"
                          "Build-Depends-Indep: python3-sphinx <!nodoc>\n"
                          "Standards-Version: 4.6.0\n\n"
                          "Package: dash\nBuild-Depends: not-this-one\n";
    g_autofree char *v = debdeps_from_control(control, strlen(control));
    g_assert_nonnull(v);
    GPtrArray *c = debdeps_parse(v, strlen(v));
    g_assert_cmpuint(c->len, ==, 4);
    g_assert_cmpstr(alt(c, 1, 0)->name, ==, "dpkg-dev");
    g_assert_cmpstr(alt(c, 2, 0)->name, ==, "po-debconf");
    g_assert_cmpstr(alt(c, 3, 0)->name, ==, "python3-sphinx");
    g_ptr_array_free(c, TRUE);
    const char *dsc = "Format: 3.0 (quilt)\r\nSource: x\r\nBuild-Depends: a, b\r\n";
    g_autofree char *d = debdeps_from_control(dsc, strlen(dsc));
    g_assert_cmpstr(g_strstrip(d), ==, "a, b");
    g_assert_null(debdeps_from_control("a, b | c", 8)); /* a bare value */
}

static void test_options(void)
{
    g_auto(GStrv) o = debdeps_options_as_profiles("parallel=2 nocheck  nodoc nocheck noopt");
    g_assert_cmpuint(g_strv_length(o), ==, 2);
    g_assert_cmpstr(o[0], ==, "nocheck");
    g_assert_cmpstr(o[1], ==, "nodoc");
    g_auto(GStrv) none = debdeps_options_as_profiles("");
    g_assert_null(none[0]);
}

static void test_versions(void)
{
    /* deb-version(7): '~' before the end, letters before other characters, numbers as
     * numbers, the epoch first, the revision last. */
    const char *ordered[] = {"~~", "~~a", "~", "", "0", "1.0~rc1", "1.0", "1.0-1", "1.0-1.1",
                             "1.0a", "1.0+b1", "1.00.1", "1.2", "1.10", "2:0.1", "10:0"};
    for (size_t i = 0; i < G_N_ELEMENTS(ordered); i++)
        for (size_t j = 0; j < G_N_ELEMENTS(ordered); j++) {
            int want = i < j ? -1 : i > j;
            if (!strcmp(ordered[i], "") || !strcmp(ordered[j], ""))
                continue; /* "" and "0" are equal */
            g_assert_cmpint(debdeps_version_cmp(ordered[i], ordered[j]), ==, want);
        }
    g_assert_cmpint(debdeps_version_cmp("0", ""), ==, 0);
    g_assert_cmpint(debdeps_version_cmp("1:1.2.13.dfsg-1", "1:1.1.4"), ==, 1);
    g_assert_cmpint(debdeps_version_cmp("1.2.13", "1:1.1.4"), ==, -1);
    g_assert_cmpint(debdeps_version_cmp("007", "7"), ==, 0);
    g_assert_true(debdeps_version_satisfies("4:12.2.0-3", ">=", "4:12"));
    g_assert_false(debdeps_version_satisfies("4:12.2.0-3", ">=", "4:99"));
    g_assert_true(debdeps_version_satisfies("1.0", "<<", "1.0.1"));
    g_assert_false(debdeps_version_satisfies("1.0", ">>", "1.0"));
    g_assert_true(debdeps_version_satisfies("1.0", "=", "1.0-0")); /* no revision: "0" */
    g_assert_true(debdeps_version_satisfies("1.0", "<", "1.0"));
    g_assert_true(debdeps_version_satisfies("1.0", "?", "2"));
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/debdeps/versions", test_versions);
    g_test_add_func("/debdeps/parse", test_parse);
    g_test_add_func("/debdeps/arch", test_arch);
    g_test_add_func("/debdeps/applies", test_applies);
    g_test_add_func("/debdeps/control", test_control);
    g_test_add_func("/debdeps/options", test_options);
    return g_test_run();
}
