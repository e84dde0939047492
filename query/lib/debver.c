/* debver — Debian version numbers, parsed and ordered (contract in debver.h). */
#include "debver.h"
#include "debdeps.h"

#include <errno.h>
#include <glib.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

void debver_clear(struct debver *v)
{
    g_free(v->upstream);
    g_free(v->revision);
    v->upstream = v->revision = NULL;
    v->epoch = 0;
}

/* The characters dpkg allows in each part (besides letters and digits). */
static bool allowed(const char *s, size_t n, const char *extra)
{
    for (size_t i = 0; i < n; i++)
        if (!g_ascii_isalnum(s[i]) && (!s[i] || !strchr(extra, s[i])))
            return false;
    return true;
}

int debver_parse(const char *s, struct debver *out, const char **why)
{
    memset(out, 0, sizeof *out);
    while (*s == ' ' || *s == '\t')
        s++;
    size_t len = strlen(s);
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
        len--;
    if (!len) {
        *why = "it is empty";
        return -EINVAL;
    }
    const char *end = s + len;
    const char *colon = memchr(s, ':', len);
    unsigned long epoch = 0;
    if (colon) {
        if (colon == s || !allowed(s, (size_t)(colon - s), "")) {
            *why = "its epoch (before ':') is not a number";
            return -EINVAL;
        }
        for (const char *p = s; p < colon; p++) {
            if (!g_ascii_isdigit(*p)) {
                *why = "its epoch (before ':') is not a number";
                return -EINVAL;
            }
            if (epoch > (INT_MAX - (unsigned long)(*p - '0')) / 10) {
                *why = "its epoch (before ':') is too big";
                return -EINVAL;
            }
            epoch = epoch * 10 + (unsigned long)(*p - '0');
        }
        s = colon + 1;
    }
    const char *hyphen = NULL;
    for (const char *p = end; p > s; p--)
        if (p[-1] == '-') {
            hyphen = p - 1;
            break;
        }
    const char *up_end = hyphen ? hyphen : end;
    if (up_end == s) {
        *why = "its upstream version is empty";
        return -EINVAL;
    }
    if (hyphen && hyphen + 1 == end) {
        *why = "its revision (after the last '-') is empty";
        return -EINVAL;
    }
    if (!g_ascii_isdigit(*s)) {
        *why = "its upstream version does not start with a digit";
        return -EINVAL;
    }
    if (!allowed(s, (size_t)(up_end - s), hyphen ? ".+~-:" : ".+~:") ||
        (!colon && memchr(s, ':', (size_t)(up_end - s)))) {
        *why = "its upstream version holds a character other than letters, digits and . + ~ - :";
        return -EINVAL;
    }
    if (hyphen && !allowed(hyphen + 1, (size_t)(end - hyphen - 1), ".+~")) {
        *why = "its revision holds a character other than letters, digits and . + ~";
        return -EINVAL;
    }
    out->epoch = epoch;
    out->upstream = g_strndup(s, (size_t)(up_end - s));
    out->revision = hyphen ? g_strndup(hyphen + 1, (size_t)(end - hyphen - 1)) : g_strdup("");
    return 0;
}

/* The ordering itself is debdeps_version_cmp's (common/debdeps.c: one implementation of
 * deb-version(7) for the launcher and the readers); the parsed parts are put back together
 * as it splits them (an epoch always, the revision after the last '-' when there is one). */
int debver_cmp(const struct debver *a, const struct debver *b)
{
    g_autofree char *sa = g_strdup_printf("%lu:%s%s%s", a->epoch, a->upstream,
                                          *a->revision ? "-" : "", a->revision);
    g_autofree char *sb = g_strdup_printf("%lu:%s%s%s", b->epoch, b->upstream,
                                          *b->revision ? "-" : "", b->revision);
    return debdeps_version_cmp(sa, sb);
}

bool debver_equal_str(const char *a, const char *b)
{
    struct debver va, vb;
    const char *why;
    bool pa = debver_parse(a, &va, &why) == 0, pb = debver_parse(b, &vb, &why) == 0;
    bool eq = pa && pb ? debver_cmp(&va, &vb) == 0 : !strcmp(a, b);
    if (pa)
        debver_clear(&va);
    if (pb)
        debver_clear(&vb);
    return eq;
}
