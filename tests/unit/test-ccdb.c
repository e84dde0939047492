/* Unit tests: reading a compile_commands.json back (for export --append). */
#include "ccdb.h"

#include <glib.h>
#include <string.h>

static GArray *parse(const char *text, int expect, char **err)
{
    GArray *e = g_array_new(FALSE, TRUE, sizeof(struct ccdb_entry));
    g_array_set_clear_func(e, ccdb_entry_clear);
    g_assert_cmpint(ccdb_parse(text, strlen(text), e, err), ==, expect);
    return e;
}

static void test_parse(void)
{
    const char *t = "[\n {\"arguments\": [\"/usr/bin/cc\", \"-c\", \"a.c\"], \"directory\": \"/w\","
                    " \"file\": \"a.c\", \"output\": \"/w/a.o\", \"x\": {\"n\": [1, -2.5e3, true, null]}},\n"
                    " {\"command\": \"cc -c b\\u00e9.c\", \"directory\": \"/w\", \"file\": \"b\\u00e9\\udcff.c\"}\n]\n";
    GArray *e = parse(t, 0, NULL);
    g_assert_cmpuint(e->len, ==, 2);
    struct ccdb_entry *a = &g_array_index(e, struct ccdb_entry, 0);
    struct ccdb_entry *b = &g_array_index(e, struct ccdb_entry, 1);
    g_assert_cmpstr(a->file, ==, "a.c");
    g_assert_cmpstr(a->output, ==, "/w/a.o");
    g_assert_cmpint(t[a->begin], ==, '{');
    g_assert_cmpint(t[a->end - 1], ==, '}');
    g_assert_cmpstr(b->file, ==, "b\xc3\xa9\xff.c"); /* \udcff is the byte 0xff again */
    g_assert_null(b->output);
    g_autofree char *ka = ccdb_key(a->directory, a->file, a->output);
    g_assert_cmpstr(ka, ==, "/w/a.c\n/w/a.o");
    g_autofree char *kb = ccdb_key(b->directory, b->file, b->output);
    g_assert_cmpstr(kb, ==, "/w/b\xc3\xa9\xff.c\n");
    g_array_unref(e);
    GArray *empty = parse(" [ ] ", 0, NULL);
    g_assert_cmpuint(empty->len, ==, 0);
    g_array_unref(empty);
}

static void test_refused(void)
{
    const char *bad[] = {"", "{}", "[{\"file\": \"a\"}", "[{\"file\": \"a\"},]", "[1]",
                         "[{\"file\": \"a\\q\"}]", "[{\"file\" \"a\"}] x", "[{}] trailing",
                         ("[{\"a\": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
                          "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}]")};
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        g_autofree char *err = NULL;
        GArray *e = parse(bad[i], -22, &err);
        g_assert_nonnull(err);
        g_assert_true(g_str_has_prefix(err, "byte "));
        g_array_unref(e);
    }
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/ccdb/parse", test_parse);
    g_test_add_func("/ccdb/refused", test_refused);
    return g_test_run();
}
