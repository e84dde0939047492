/* Unit tests: cutting marked command lines to a terminal's width (terminal.h). */
#include "terminal.h"

#include <glib.h>
#include <string.h>

static char *cut(const char *in, int width)
{
    GString *out = g_string_new(NULL);
    term_cut(out, in, strlen(in), width);
    return g_string_free(out, FALSE);
}

static void test_cut(void)
{
    /* fits: marks removed, nothing else changed */
    g_autofree char *a = cut("[1] \001make -j2\002\n", 40);
    g_assert_cmpstr(a, ==, "[1] make -j2\n");
    /* too long: the argv is cut, the [ID] and what follows the argv are kept */
    g_autofree char *b = cut("  [12] \001gcc -c -O2 very/long/path/file.c -o x.o\002  [exit 1]\n", 30);
    g_assert_cmpstr(b, ==, "  [12] gcc -c -O2 v\u2026  [exit 1]\n");
    g_assert_cmpint(g_utf8_strlen(b, -1), ==, 31); /* 30 columns and the newline */
    /* several lines, one without marks; width 0 strips only */
    g_autofree char *c = cut("x\n[2] \001abcdef\002\n", 0);
    g_assert_cmpstr(c, ==, "x\n[2] abcdef\n");
    /* UTF-8 counts characters, never splits one */
    g_autofree char *d = cut("[3] \001\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\002\n", 8);
    g_assert_cmpstr(d, ==, "[3] \u00e9\u00e9\u00e9\u2026\n");
    /* no room at all for the argv: just the ellipsis */
    g_autofree char *e = cut("[4] \001abcdef\002 tail-that-is-long\n", 10);
    g_assert_cmpstr(e, ==, "[4] \u2026 tail-that-is-long\n");
    /* a lone marker is dropped, never printed */
    g_autofree char *f = cut("a\001b\n", 80);
    g_assert_cmpstr(f, ==, "ab\n");
    /* off a terminal nothing is marked */
    term_setup(true, false, false, false);
    GString *g = g_string_new(NULL);
    term_mark_begin(g);
    term_mark_end(g);
    g_assert_cmpuint(g->len, ==, 0); /* (the test's stdout is not a terminal) */
    g_string_free(g, TRUE);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/terminal/cut", test_cut);
    return g_test_run();
}
