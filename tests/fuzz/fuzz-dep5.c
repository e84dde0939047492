/* libFuzzer target: a debian/copyright is untrusted input.  dep5_parse takes any bytes and
 * either parses (then every lookup answers NULL or a non-empty short name, and each name's
 * SPDX form is a non-empty expression that lic_same finds equal to itself) or gives one line
 * saying why; the input's own text is never put in that message.  The input is also tried as
 * a pattern, as a short-name expression and, split in two, as SPDX expressions to compare and
 * to AND together. */
#include "dep5.h"
#include "licdetect.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_expr(const char *expr)
{
    char *s = dep5_spdx(expr);
    if (s) {
        if (!*s || strchr(s, '\n') || !lic_same(s, s))
            abort();
        g_free(s);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *err = NULL;
    struct dep5 *d = dep5_parse((const char *)data, size, &err);
    if (!d == !err)
        abort();
    if (err) {
        if (!*err || strchr(err, '\n') || strncmp(err, "line ", 5) * strcmp(err, "empty") *
                                               strcmp(err, "no Files paragraph"))
            abort();
        g_free(err);
    }
    char *text = g_strndup((const char *)data, size); /* up to a NUL: a C string */
    static const char *const paths[] = {"a.c", "src/x/y.h", "debian/rules", "", NULL};
    for (const char *const *p = paths; d && *p; p++) {
        const char *l = dep5_license(d, *p);
        if (l && !*l)
            abort();
        if (l)
            check_expr(l);
    }
    if (d) {
        const char *l = dep5_license(d, text);
        if (l && !*l)
            abort();
    }
    dep5_glob_match(text, "src/a*b/c.c");
    dep5_glob_match("*a?\\*b*", text);
    check_expr(text);
    size_t half = strlen(text) / 2;
    char *a = g_strndup(text, half);
    if (lic_same(a, text + half) != lic_same(text + half, a))
        abort();
    const char *both[] = {a, text + half};
    char *r = lic_and_all(both, 2);
    if (r && (!*r || !lic_same(r, r)))
        abort();
    g_free(r);
    g_free(a);
    g_free(text);
    dep5_free(d);
    return 0;
}
