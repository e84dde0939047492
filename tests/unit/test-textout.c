/* Unit tests: safe text and JSON output of byte strings. */
#include "textout.h"

#include <string.h>

static char *esc(const char *s, size_t len)
{
    GString *g = g_string_new(NULL);
    text_escape(g, s, len);
    return g_string_free(g, FALSE);
}

static void test_escape(void)
{
    g_autofree char *a = esc("plain/path.c", 12);
    g_assert_cmpstr(a, ==, "plain/path.c");
    g_autofree char *b = esc("new\nline\ttab\\", 13);
    g_assert_cmpstr(b, ==, "new\\nline\\ttab\\\\");
    g_autofree char *c = esc("bad\xff" "byte", 8);
    g_assert_cmpstr(c, ==, "bad\\xffbyte");
    g_autofree char *d = esc("caf\xc3\xa9", 5); /* valid UTF-8 stays */
    g_assert_cmpstr(d, ==, "caf\xc3\xa9");
    g_autofree char *e = esc("\xc3", 1); /* truncated sequence */
    g_assert_cmpstr(e, ==, "\\xc3");
    g_autofree char *f = esc("\xed\xa0\x80", 3); /* an encoded surrogate is not valid UTF-8 */
    g_assert_cmpstr(f, ==, "\\xed\\xa0\\x80");
    g_autofree char *g = esc("a\0b", 3);
    g_assert_cmpstr(g, ==, "a\\x00b");
}

static void test_argv(void)
{
    GString *g = g_string_new(NULL);
    const char argv[] = "sh\0-c\0echo 'hi' > x\0";
    text_argv(g, argv, sizeof argv - 1);
    g_assert_cmpstr(g->str, ==, "sh -c 'echo '\\''hi'\\'' > x'");
    g_string_truncate(g, 0);
    text_argv(g, "a\0\0b\0", 5); /* an empty argument is quoted, not lost */
    g_assert_cmpstr(g->str, ==, "a '' b");
    g_string_free(g, TRUE);
}

static char *words(const char *argv, size_t len)
{
    GString *g = g_string_new(NULL);
    text_argv(g, argv, len);
    return g_string_free(g, FALSE);
}

#define WORDS(lit) words(lit, sizeof lit - 1)

/* What a shell reads back is the argv: backslashes inside single quotes are themselves,
 * control characters and bad bytes go in $'...' (the form bash, zsh, ksh and POSIX.1-2024 sh
 * read). */
static void test_argv_pasteable(void)
{
    static const char find[] = "sh\0-c\0find .  \\( \\( \\\n\t-name x\0";
    g_autofree char *a = words(find, sizeof find - 1);
    g_assert_cmpstr(a, ==, "sh -c $'find .  \\\\( \\\\( \\\\\\n\\t-name x'");
    g_autofree char *b = WORDS("printf\0a\\b\0"); /* no control: plain single quotes */
    g_assert_cmpstr(b, ==, "printf 'a\\b'");
    g_autofree char *c = WORDS("x\0bad\xff\0");
    g_assert_cmpstr(c, ==, "x $'bad\\xff'");
    g_autofree char *d = WORDS("x\0it's\n!\0");
    g_assert_cmpstr(d, ==, "x $'it\\'s\\n\\x21'");
    g_autofree char *e = WORDS("x\0\x01" "ab\0"); /* a hex digit after \x01 */
    g_assert_cmpstr(e, ==, "x $'\\x01\\x61\\x62'");
    g_autofree char *f = WORDS("x\0\xc2\x9b" "2J\0"); /* C1 CSI: its bytes */
    g_assert_cmpstr(f, ==, "x $'\\xc2\\x9b\\x32J'");
    g_autofree char *g = WORDS("x\0caf\xc3\xa9 \xe2\x80\xae\0");
    g_assert_cmpstr(g, ==, "x $'caf\xc3\xa9 \\xe2\\x80\\xae'");
    g_autofree char *h = WORDS("x\0caf\xc3\xa9\0"); /* printable UTF-8: single quotes */
    g_assert_cmpstr(h, ==, "x 'caf\xc3\xa9'");
    g_autofree char *i = WORDS("CC=gcc\0-c\0A=b\0"); /* not an assignment */
    g_assert_cmpstr(i, ==, "'CC=gcc' -c A=b");
    g_autofree char *j = WORDS("time\0-p\0time\0"); /* not the shell's keyword */
    g_assert_cmpstr(j, ==, "'time' -p time");
    g_autofree char *pc = WORDS("%1\0%1\0"); /* not job 1 of an interactive shell (fg %1) */
    g_assert_cmpstr(pc, ==, "'%1' %1");
    g_autofree char *k = WORDS("a b\0~\0$x\0*\0");
    g_assert_cmpstr(k, ==, "'a b' '~' '$x' '*'");
    g_autofree char *m = WORDS("x\0=y\0"); /* zsh's =cmd */
    g_assert_cmpstr(m, ==, "x '=y'");
    g_autofree char *l = WORDS("cc\0-o\0x"); /* no final NUL */
    g_assert_cmpstr(l, ==, "cc -o x");
}

static void test_json(void)
{
    GString *g = g_string_new(NULL);
    json_string(g, "q\"b\\n\n\x01\xff\xc3\xa9", 10);
    g_assert_cmpstr(g->str, ==, "\"q\\\"b\\\\n\\n\\u0001\\udcff\xc3\xa9\"");
    g_string_truncate(g, 0);
    json_argv(g, "a\0b c\0", 6);
    g_assert_cmpstr(g->str, ==, "[\"a\",\"b c\"]");
    g_string_truncate(g, 0);
    json_argv(g, "", 0);
    g_assert_cmpstr(g->str, ==, "[]");
    g_string_free(g, TRUE);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/textout/escape", test_escape);
    g_test_add_func("/textout/argv", test_argv);
    g_test_add_func("/textout/argv-pasteable", test_argv_pasteable);
    g_test_add_func("/textout/json", test_json);
    return g_test_run();
}
