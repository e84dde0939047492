/* Unit tests: winnowed fingerprints survive edits, ignore comments and layout; the index. */
#include "winnow.h"

#include <glib.h>
#include <string.h>

static GArray *fp(const char *s)
{
    return winnow_fingerprints(s, strlen(s));
}

static const char base[] =
    "static unsigned hash(const char *s, unsigned n) {\n"
    "    unsigned h = 2166136261u;\n"
    "    for (unsigned i = 0; i < n; i++) { h ^= (unsigned char)s[i]; h *= 16777619u; }\n"
    "    return h;\n}\n"
    "int table[256];\n"
    "void fill(void) { for (int i = 0; i < 256; i++) table[i] = hash((char *)&i, sizeof i); }\n";

static void test_layout_and_comments(void)
{
    GArray *a = fp(base);
    GString *b = g_string_new("/* a new licence header */\n// and a comment\n");
    for (const char *c = base; *c; c++)
        g_string_append(b, *c == ' ' ? "\t " : (char[]){*c, 0});
    GArray *bb = fp(b->str);
    g_assert_cmpfloat(winnow_containment(a, bb), ==, 1.0);
    g_assert_cmpfloat(winnow_containment(bb, a), ==, 1.0);
    g_string_free(b, TRUE);
    g_array_free(a, TRUE);
    g_array_free(bb, TRUE);
}

static void test_edits(void)
{
    GArray *a = fp(base);
    g_autofree char *edited = g_strdup(base);
    char *at = strstr(edited, "table[256]");
    memcpy(at, "tabel", 5);
    GArray *b = fp(edited);
    double s = winnow_containment(a, b);
    g_assert_cmpfloat(s, <, 1.0);
    g_assert_cmpfloat(s, >, 0.5);
    GArray *other = fp("int main(int argc, char **argv) { return argc > 1 ? atoi(argv[1]) : 0; }");
    g_assert_cmpfloat(winnow_containment(a, other), <, 0.2);
    g_array_free(a, TRUE);
    g_array_free(b, TRUE);
    g_array_free(other, TRUE);
}

static void test_index(void)
{
    GArray *a = fp(base);
    GString *idx = g_string_new("# comment\n");
    copyindex_write(idx, "lib/a file.c", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", a);
    copyindex_write(idx, "b.h", "E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855", NULL);
    g_string_append(idx, "garbage line\n~ orphan 1,2\n");
    GPtrArray *e = g_ptr_array_new_with_free_func(copyindex_entry_free);
    copyindex_parse(idx->str, idx->len, e);
    g_assert_cmpuint(e->len, ==, 2);
    const struct copyindex_entry *x = e->pdata[0], *y = e->pdata[1];
    g_assert_cmpstr(x->name, ==, "lib/a file.c");
    g_assert_nonnull(x->fp);
    g_assert_cmpfloat(winnow_containment(a, x->fp), ==, 1.0);
    g_assert_cmpstr(y->sha256, ==, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    g_assert_null(y->fp);
    g_ptr_array_free(e, TRUE);
    g_string_free(idx, TRUE);
    g_array_free(a, TRUE);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/winnow/layout-and-comments", test_layout_and_comments);
    g_test_add_func("/winnow/edits", test_edits);
    g_test_add_func("/winnow/index", test_index);
    return g_test_run();
}
