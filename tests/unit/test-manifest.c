/* Unit tests: the verify manifest (paths, globs, trees, sha256sum lines, errors). */
#include "manifest.h"

#include <errno.h>
#include <glib.h>
#include <string.h>

static GPtrArray *parse_ok(const char *text)
{
    GPtrArray *e = g_ptr_array_new_with_free_func(manifest_entry_free);
    g_autofree char *err = NULL;
    g_assert_cmpint(manifest_parse(text, strlen(text), "/work/src", e, &err), ==, 0);
    g_assert_null(err);
    return e;
}

static struct manifest_entry *entry(GPtrArray *e, guint i)
{
    return e->pdata[i];
}

static void test_forms(void)
{
    GPtrArray *e = parse_ok("# comment\n\n  a.c  \nsub/*.h\r\n/usr/include/\n/opt/**\n"
                            "../other/x.c\n"
                            "E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855  empty\n"
                            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 *bin\n");
    g_assert_cmpuint(e->len, ==, 7);
    g_assert_cmpstr(entry(e, 0)->pattern, ==, "/work/src/a.c");
    g_assert_cmpint(entry(e, 0)->line, ==, 3);
    g_assert_true(manifest_match(entry(e, 0), "/work/src/a.c"));
    g_assert_false(manifest_match(entry(e, 0), "/work/src/a.cc"));
    /* '*' stays within one component */
    g_assert_true(entry(e, 1)->glob);
    g_assert_true(manifest_match(entry(e, 1), "/work/src/sub/x.h"));
    g_assert_false(manifest_match(entry(e, 1), "/work/src/sub/deep/x.h"));
    /* trees */
    g_assert_true(manifest_match(entry(e, 2), "/usr/include/stdio.h"));
    g_assert_true(manifest_match(entry(e, 2), "/usr/include/sys/types.h"));
    g_assert_false(manifest_match(entry(e, 2), "/usr/includes/x"));
    g_assert_true(manifest_match(entry(e, 3), "/opt/a/b/c"));
    g_assert_cmpstr(entry(e, 4)->pattern, ==, "/work/other/x.c");
    /* sha256sum lines, both modes; the hash is lowercased */
    g_assert_cmpstr(entry(e, 5)->sha256, ==,
                    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    g_assert_cmpstr(entry(e, 5)->pattern, ==, "/work/src/empty");
    g_assert_false(entry(e, 5)->glob);
    g_assert_cmpstr(entry(e, 6)->pattern, ==, "/work/src/bin");
    g_ptr_array_free(e, TRUE);
}

static void test_glob_tree(void)
{
    GPtrArray *e = parse_ok("/src/*/vendor/\n");
    g_assert_true(manifest_match(entry(e, 0), "/src/lib/vendor/x/y.c"));
    g_assert_false(manifest_match(entry(e, 0), "/src/lib/other/y.c"));
    g_ptr_array_free(e, TRUE);
}

/* Names as tools print them: sha256sum's escaped lines, git's quoted ones, a name with glob
 * characters as `git ls-files` lists it. */
static void test_quoted_names(void)
{
    GPtrArray *e = parse_ok(
        "\\e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  a\\\\b\\nc\n"
        "\"\\303\\251t\\\"*.c\"\n"
        "t[1].c\n");
    g_assert_cmpuint(e->len, ==, 3);
    g_assert_cmpstr(entry(e, 0)->pattern, ==, "/work/src/a\\b\nc");
    g_assert_cmpstr(entry(e, 0)->sha256, ==,
                    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    g_assert_true(manifest_match(entry(e, 0), "/work/src/a\\b\nc"));
    g_assert_cmpstr(entry(e, 1)->pattern, ==, "/work/src/\303\251t\"*.c");
    g_assert_false(entry(e, 1)->glob); /* quoted: a literal name */
    g_assert_false(manifest_match(entry(e, 1), "/work/src/\303\251t\"x.c"));
    g_assert_true(entry(e, 2)->glob);
    g_assert_true(manifest_match(entry(e, 2), "/work/src/t[1].c")); /* the name it spells */
    g_assert_true(manifest_match(entry(e, 2), "/work/src/t1.c"));
    g_ptr_array_free(e, TRUE);
}

/* What an editor or a clumsy hand leaves in a manifest: a UTF-8 byte order mark before the
 * first line (it was part of the first path, which was then never declared), and a bare '**'
 * (the last component, as DIR/ and two stars: everything, not the top level alone). */
static void test_bom_and_bare_stars(void)
{
    GPtrArray *e = parse_ok("\xef\xbb\xbf" "a.c\r\n**\n");
    g_assert_cmpuint(e->len, ==, 2);
    g_assert_cmpstr(entry(e, 0)->pattern, ==, "/work/src/a.c");
    g_assert_true(entry(e, 1)->subtree);
    g_assert_true(manifest_match(entry(e, 1), "/work/src/x.c"));
    g_assert_true(manifest_match(entry(e, 1), "/work/src/sub/deep/x.c"));
    g_assert_false(manifest_match(entry(e, 1), "/work/other"));
    g_ptr_array_free(e, TRUE);
    /* A BOM anywhere else is a byte of a name, as any other. */
    e = parse_ok("a.c\n\xef\xbb\xbf" "b.c\n");
    g_assert_cmpstr(entry(e, 1)->pattern, ==, "/work/src/\xef\xbb\xbf" "b.c");
    g_ptr_array_free(e, TRUE);
}

static void test_errors(void)
{
    const char *bad[] = {
        "ok\n0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n",
        "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef x\n",
        "a\0b\n",
        "\"abc\\\"\n", /* a quoted path ending in a lone backslash */
    };
    const size_t lens[] = {strlen(bad[0]), strlen(bad[1]), 4, strlen(bad[3])};
    const char *lines[] = {"line 2", "line 1", "line 1", "line 1"};
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        GPtrArray *e = g_ptr_array_new_with_free_func(manifest_entry_free);
        g_autofree char *err = NULL;
        g_assert_cmpint(manifest_parse(bad[i], lens[i], "/", e, &err), ==, -EINVAL);
        g_assert_nonnull(err);
        g_assert_true(g_str_has_prefix(err, lines[i]));
        g_ptr_array_free(e, TRUE);
    }
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/manifest/forms", test_forms);
    g_test_add_func("/manifest/glob-tree", test_glob_tree);
    g_test_add_func("/manifest/errors", test_errors);
    g_test_add_func("/manifest/quoted-names", test_quoted_names);
    g_test_add_func("/manifest/bom-and-bare-stars", test_bom_and_bare_stars);
    return g_test_run();
}
