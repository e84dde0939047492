/* winnow — see winnow.h for the contract. */
#include "winnow.h"

#include "lines.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static guint32 fnv1a(const char *s, size_t n, guint32 h)
{
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 16777619u;
    }
    return h;
}

/* Token hashes of the text. */
static GArray *tokens(const char *t, size_t len)
{
    GArray *out = g_array_new(FALSE, FALSE, sizeof(guint32));
    size_t i = 0;
    while (i < len) {
        char c = t[i];
        if (g_ascii_isspace(c)) {
            i++;
        } else if (c == '/' && i + 1 < len && t[i + 1] == '/') {
            while (i < len && t[i] != '\n')
                i++;
        } else if (c == '/' && i + 1 < len && t[i + 1] == '*') {
            i += 2;
            while (i + 1 < len && !(t[i] == '*' && t[i + 1] == '/'))
                i++;
            i = i + 2 < len ? i + 2 : len;
        } else if (g_ascii_isalnum(c) || c == '_') {
            size_t s = i;
            while (i < len && (g_ascii_isalnum(t[i]) || t[i] == '_'))
                i++;
            guint32 h = fnv1a(t + s, i - s, 2166136261u);
            g_array_append_val(out, h);
        } else if (c == '"' || c == '\'') {
            size_t s = i++;
            while (i < len && t[i] != c && t[i] != '\n') {
                if (t[i] == '\\' && i + 1 < len)
                    i++;
                i++;
            }
            if (i < len && t[i] == c)
                i++;
            guint32 h = fnv1a(t + s, i - s, 2166136261u);
            g_array_append_val(out, h);
        } else {
            guint32 h = fnv1a(t + i, 1, 2166136261u);
            g_array_append_val(out, h);
            i++;
        }
    }
    return out;
}

static gint u32_cmp(gconstpointer a, gconstpointer b)
{
    guint32 x = *(const guint32 *)a, y = *(const guint32 *)b;
    return (x > y) - (x < y);
}

static void sort_unique(GArray *a)
{
    g_array_sort(a, u32_cmp);
    guint w = 0;
    for (guint r = 0; r < a->len; r++)
        if (!w || g_array_index(a, guint32, w - 1) != g_array_index(a, guint32, r))
            g_array_index(a, guint32, w++) = g_array_index(a, guint32, r);
    g_array_set_size(a, w);
}

GArray *winnow_fingerprints(const char *text, size_t len)
{
    GArray *tok = tokens(text, len);
    GArray *grams = g_array_new(FALSE, FALSE, sizeof(guint32));
    for (guint i = 0; i + WINNOW_K <= tok->len; i++) {
        guint32 h = 2166136261u;
        for (guint k = 0; k < WINNOW_K; k++) {
            guint32 t = g_array_index(tok, guint32, i + k);
            h = fnv1a((const char *)&t, sizeof t, h);
        }
        g_array_append_val(grams, h);
    }
    GArray *fp = g_array_new(FALSE, FALSE, sizeof(guint32));
    if (grams->len && grams->len < WINNOW_W) {
        guint32 m = g_array_index(grams, guint32, 0);
        for (guint i = 1; i < grams->len; i++)
            m = MIN(m, g_array_index(grams, guint32, i));
        g_array_append_val(fp, m);
    }
    for (guint i = 0; i + WINNOW_W <= grams->len; i++) {
        guint32 m = g_array_index(grams, guint32, i);
        for (guint k = 1; k < WINNOW_W; k++)
            m = MIN(m, g_array_index(grams, guint32, i + k));
        g_array_append_val(fp, m);
    }
    sort_unique(fp);
    g_array_free(tok, TRUE);
    g_array_free(grams, TRUE);
    return fp;
}

double winnow_containment(const GArray *a, const GArray *b)
{
    if (!a || !b || !a->len)
        return 0;
    guint i = 0, j = 0, shared = 0;
    while (i < a->len && j < b->len) {
        guint32 x = g_array_index(a, guint32, i), y = g_array_index(b, guint32, j);
        if (x == y) {
            shared++;
            i++;
            j++;
        } else if (x < y) {
            i++;
        } else {
            j++;
        }
    }
    return (double)shared / a->len;
}

void copyindex_entry_free(gpointer p)
{
    struct copyindex_entry *e = p;
    if (!e)
        return;
    g_free(e->name);
    if (e->fp)
        g_array_free(e->fp, TRUE);
    g_free(e);
}

static bool hex64(const char *s, size_t n)
{
    if (n != 64)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!g_ascii_isxdigit(s[i]))
            return false;
    return true;
}

void copyindex_parse(const char *text, size_t len, GPtrArray *entries)
{
    struct copyindex_entry *last = NULL;
    struct lines it = {text, len, 0};
    const char *line;
    size_t l;
    while (lines_next(&it, &line, &l)) {
        if (l && line[l - 1] == '\r')
            l--;
        if (!l || memchr(line, '\0', l))
            continue;
        if (l > 66 && hex64(line, 64) && line[64] == ' ' && (line[65] == ' ' || line[65] == '*')) {
            last = g_new0(struct copyindex_entry, 1);
            for (int i = 0; i < 64; i++)
                last->sha256[i] = g_ascii_tolower(line[i]);
            last->name = g_strndup(line + 66, l - 66);
            g_ptr_array_add(entries, last);
        } else if (l > 2 && line[0] == '~' && line[1] == ' ' && last) {
            /* "~ NAME HEX,HEX,...": the name is the last entry's (names may hold spaces). */
            const char *sp = memrchr(line, ' ', l);
            if (!sp || sp < line + 2 || (size_t)(sp - line - 2) != strlen(last->name) ||
                memcmp(line + 2, last->name, strlen(last->name)))
                continue; /* not the fingerprints of the entry just read */
            GArray *fp = g_array_new(FALSE, FALSE, sizeof(guint32));
            const char *p = sp + 1, *end = line + l;
            while (p < end) {
                const char *comma = memchr(p, ',', (size_t)(end - p));
                size_t n = comma ? (size_t)(comma - p) : (size_t)(end - p);
                if (n && n <= 8) {
                    char buf[9];
                    memcpy(buf, p, n);
                    buf[n] = '\0';
                    char *e;
                    unsigned long v = strtoul(buf, &e, 16);
                    if (!*e) {
                        guint32 x = (guint32)v;
                        g_array_append_val(fp, x);
                    }
                }
                p += n + 1;
            }
            sort_unique(fp);
            if (last->fp)
                g_array_free(last->fp, TRUE);
            last->fp = fp;
        }
    }
}

void copyindex_write(GString *out, const char *name, const char *sha256, const GArray *fp)
{
    g_string_append_printf(out, "%s  %s\n", sha256, name);
    if (!fp || !fp->len)
        return;
    g_string_append_printf(out, "~ %s ", name);
    for (guint i = 0; i < fp->len; i++)
        g_string_append_printf(out, "%s%x", i ? "," : "", g_array_index(fp, guint32, i));
    g_string_append_c(out, '\n');
}
