/* Unit tests of jsonw (query/lib/jsonw): commas, keys, nesting, whitespace and strings, and
 * that what it writes parses back (GLib has no JSON parser: the shapes are compared as text). */
#include "jsonw.h"
#include "stmt.h"

#include <glib.h>

static void test_nesting(void)
{
    GString *s = g_string_new(NULL);
    struct jsonw w;
    jsonw_init(&w, s);
    jsonw_object_begin(&w);
    jsonw_kv_string(&w, "a", "x\"y");
    jsonw_key(&w, "list");
    jsonw_array_begin(&w);
    jsonw_int(&w, -1);
    jsonw_uint(&w, 18446744073709551615u);
    jsonw_object_begin(&w);
    jsonw_object_end(&w);
    jsonw_array_begin(&w);
    jsonw_array_end(&w);
    jsonw_null(&w);
    jsonw_string(&w, NULL);
    jsonw_array_end(&w);
    jsonw_kv_bool(&w, "b", false);
    jsonw_key(&w, "argv");
    jsonw_argv(&w, "cc\0-c\0", 6);
    jsonw_key(&w, "raw");
    jsonw_raw(&w, "1.5");
    jsonw_object_end(&w);
    g_assert_cmpstr(s->str, ==,
                    "{\"a\":\"x\\\"y\",\"list\":[-1,18446744073709551615,{},[],null,null],"
                    "\"b\":false,\"argv\":[\"cc\",\"-c\"],\"raw\":1.5}");
    g_string_free(s, TRUE);
}

static void test_space(void)
{
    GString *s = g_string_new(NULL);
    struct jsonw w;
    jsonw_init(&w, s);
    jsonw_object_begin(&w);
    jsonw_space(&w, "\n  ");
    jsonw_kv_int(&w, "a", 1);
    jsonw_space(&w, "\n  ");
    jsonw_kv_int(&w, "b", 2);
    jsonw_space(&w, "\n");
    jsonw_object_end(&w);
    g_assert_cmpstr(s->str, ==, "{\n  \"a\":1,\n  \"b\":2\n}");
    g_string_free(s, TRUE);
}

static void test_bytes(void)
{
    GString *s = g_string_new(NULL);
    struct jsonw w;
    jsonw_init(&w, s);
    jsonw_array_begin(&w);
    jsonw_string_len(&w, "a\0\xff\n", 4);
    jsonw_array_end(&w);
    g_assert_cmpstr(s->str, ==, "[\"a\\u0000\\udcff\\n\"]");
    g_string_free(s, TRUE);
}

/* Helpers that write JSON text themselves: a value after a key or in an array, and whole
 * members inside an object, each with the comma it needs and no other. */
static void test_raw_parts(void)
{
    GString *s = g_string_new(NULL);
    struct jsonw w;
    jsonw_init(&w, s);
    jsonw_object_begin(&w);
    g_string_append(jsonw_raw_members(&w), "\"t\":{\"x\":1}");
    jsonw_key(&w, "p");
    g_string_append(jsonw_raw_value(&w), "{}");
    g_string_append(jsonw_raw_members(&w), "\"u\":2,\"v\":3");
    jsonw_key(&w, "l");
    jsonw_array_begin(&w);
    g_string_append(jsonw_raw_value(&w), "null");
    g_string_append(jsonw_raw_value(&w), "[]");
    jsonw_array_end(&w);
    jsonw_kv_int(&w, "z", 4);
    jsonw_object_end(&w);
    g_assert_cmpstr(s->str, ==,
                    "{\"t\":{\"x\":1},\"p\":{},\"u\":2,\"v\":3,\"l\":[null,[]],\"z\":4}");
    g_string_truncate(s, 0);
    jsonw_init(&w, s);
    jsonw_object_begin(&w);
    g_string_append(jsonw_raw_members(&w), "\"first\":0");
    jsonw_object_end(&w);
    g_assert_cmpstr(s->str, ==, "{\"first\":0}");
    /* an object a helper opened, with members of the writer's after its own */
    g_string_truncate(s, 0);
    jsonw_init(&w, s);
    jsonw_array_begin(&w);
    for (int i = 0; i < 2; i++) {
        g_string_append(jsonw_raw_object_begin(&w), "{\"v\":1");
        jsonw_kv_int(&w, "d", i);
        jsonw_object_end(&w);
    }
    jsonw_array_end(&w);
    g_assert_cmpstr(s->str, ==, "[{\"v\":1,\"d\":0},{\"v\":1,\"d\":1}]");
    /* members a helper writes each with its comma, then the writer's own */
    g_string_truncate(s, 0);
    jsonw_init(&w, s);
    jsonw_object_begin(&w);
    jsonw_kv_int(&w, "a", 1);
    g_string_append(jsonw_raw_led_members(&w), ",\"b\":2");
    jsonw_raw_led_members(&w); /* (nothing, as a helper may write) */
    jsonw_kv_int(&w, "c", 3);
    jsonw_object_end(&w);
    g_assert_cmpstr(s->str, ==, "{\"a\":1,\"b\":2,\"c\":3}");
    g_string_free(s, TRUE);
}

/* A value in an object without its key is a programming error. */
static void test_misuse(void)
{
    if (g_test_subprocess()) {
        GString *s = g_string_new(NULL);
        struct jsonw w;
        jsonw_init(&w, s);
        jsonw_object_begin(&w);
        jsonw_int(&w, 1);
        return;
    }
    g_test_trap_subprocess(NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
    g_test_trap_assert_failed();
}

/* The registry sees the statement stmt.c registers for itself. */
static void test_registry(void)
{
    size_t n = 0;
    const struct tracedb_statement *const *all = tracedb_statements(&n);
    gboolean found = FALSE;
    for (size_t i = 0; i < n; i++)
        if (g_str_equal(all[i]->name, "sql_stmt_selftest"))
            found = TRUE;
    g_assert_true(found);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/jsonw/nesting", test_nesting);
    g_test_add_func("/jsonw/space", test_space);
    g_test_add_func("/jsonw/bytes", test_bytes);
    g_test_add_func("/jsonw/misuse", test_misuse);
    g_test_add_func("/jsonw/raw-parts", test_raw_parts);
    g_test_add_func("/stmt/registry", test_registry);
    return g_test_run();
}
