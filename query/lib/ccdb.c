/* ccdb — see ccdb.h for the contract. */
#include "ccdb.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

struct scan {
    const char *s, *end, *start;
    char *err;
};

static bool fail(struct scan *c, const char *what)
{
    if (!c->err)
        c->err = g_strdup_printf("byte %zu: %s", (size_t)(c->s - c->start), what);
    return false;
}

static void skip_ws(struct scan *c)
{
    while (c->s < c->end && (*c->s == ' ' || *c->s == '\t' || *c->s == '\n' || *c->s == '\r'))
        c->s++;
}

static int hex4(const char *p)
{
    int v = 0;
    for (int i = 0; i < 4; i++) {
        int d = g_ascii_xdigit_value(p[i]);
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

/* A string at c->s (the opening quote); its unescaped bytes into *out when out is given. */
static bool string(struct scan *c, GString *out)
{
    if (c->s >= c->end || *c->s != '"')
        return fail(c, "expected a string");
    c->s++;
    while (c->s < c->end) {
        unsigned char ch = (unsigned char)*c->s;
        if (ch == '"') {
            c->s++;
            return true;
        }
        if (ch < 0x20)
            return fail(c, "a control character in a string");
        if (ch != '\\') {
            if (out)
                g_string_append_c(out, (char)ch);
            c->s++;
            continue;
        }
        if (c->end - c->s < 2)
            break;
        char e = c->s[1];
        const char *simple = strchr("\"\\/bfnrt", e);
        if (e && simple) {
            static const char map[] = "\"\\/\b\f\n\r\t";
            if (out)
                g_string_append_c(out, map[simple - "\"\\/bfnrt"]);
            c->s += 2;
            continue;
        }
        if (e != 'u' || c->end - c->s < 6)
            return fail(c, "a bad escape in a string");
        int u = hex4(c->s + 2);
        if (u < 0)
            return fail(c, "a bad \\u escape");
        c->s += 6;
        if (u >= 0xdc80 && u <= 0xdcff) { /* surrogateescape: the byte itself */
            if (out)
                g_string_append_c(out, (char)(u - 0xdc00));
            continue;
        }
        gunichar cp = (gunichar)u;
        if (u >= 0xd800 && u <= 0xdbff && c->end - c->s >= 6 && c->s[0] == '\\' &&
            c->s[1] == 'u') {
            int lo = hex4(c->s + 2);
            if (lo >= 0xdc00 && lo <= 0xdfff) {
                cp = 0x10000 + (((gunichar)u - 0xd800) << 10) + ((gunichar)lo - 0xdc00);
                c->s += 6;
            }
        }
        if (out) {
            char buf[6];
            int n = g_unichar_to_utf8(cp, buf);
            g_string_append_len(out, buf, n);
        }
    }
    return fail(c, "a string that does not end");
}

static bool value(struct scan *c, int depth);

static bool literal(struct scan *c)
{
    static const char *const words[] = {"true", "false", "null"};
    for (size_t i = 0; i < G_N_ELEMENTS(words); i++) {
        size_t l = strlen(words[i]);
        if ((size_t)(c->end - c->s) >= l && !memcmp(c->s, words[i], l)) {
            c->s += l;
            return true;
        }
    }
    const char *b = c->s;
    while (c->s < c->end && (g_ascii_isdigit(*c->s) || strchr("+-.eE", *c->s)) && *c->s)
        c->s++;
    return c->s > b ? true : fail(c, "expected a value");
}

/* A container at c->s: '[' values ']' or '{' "key": value '}'. */
static bool container(struct scan *c, int depth, char close)
{
    if (depth > 64)
        return fail(c, "nested too deep");
    c->s++;
    skip_ws(c);
    if (c->s < c->end && *c->s == close) {
        c->s++;
        return true;
    }
    for (;;) {
        if (close == '}') {
            if (!string(c, NULL))
                return false;
            skip_ws(c);
            if (c->s >= c->end || *c->s != ':')
                return fail(c, "expected ':'");
            c->s++;
        }
        if (!value(c, depth + 1))
            return false;
        skip_ws(c);
        if (c->s < c->end && *c->s == ',') {
            c->s++;
            skip_ws(c);
            continue;
        }
        if (c->s < c->end && *c->s == close) {
            c->s++;
            return true;
        }
        return fail(c, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
    }
}

static bool value(struct scan *c, int depth)
{
    skip_ws(c);
    if (c->s >= c->end)
        return fail(c, "expected a value");
    if (*c->s == '"')
        return string(c, NULL);
    if (*c->s == '[')
        return container(c, depth, ']');
    if (*c->s == '{')
        return container(c, depth, '}');
    return literal(c);
}

/* One entry: an object whose "directory", "file" and "output" strings are kept. */
static bool entry(struct scan *c, struct ccdb_entry *e)
{
    if (c->s >= c->end || *c->s != '{')
        return fail(c, "expected an object (one compile command)");
    e->begin = (size_t)(c->s - c->start);
    c->s++;
    skip_ws(c);
    bool first = true;
    while (c->s < c->end && *c->s != '}') {
        if (!first) {
            if (*c->s != ',')
                return fail(c, "expected ',' or '}'");
            c->s++;
            skip_ws(c);
        }
        first = false;
        GString *key = g_string_new(NULL);
        bool ok = string(c, key);
        skip_ws(c);
        if (ok && (c->s >= c->end || *c->s != ':'))
            ok = fail(c, "expected ':'");
        if (!ok) {
            g_string_free(key, TRUE);
            return false;
        }
        c->s++;
        skip_ws(c);
        char **slot = !strcmp(key->str, "directory") ? &e->directory
                      : !strcmp(key->str, "file")    ? &e->file
                      : !strcmp(key->str, "output")  ? &e->output
                                                     : NULL;
        g_string_free(key, TRUE);
        if (slot && c->s < c->end && *c->s == '"') {
            GString *v = g_string_new(NULL);
            if (!string(c, v)) {
                g_string_free(v, TRUE);
                return false;
            }
            g_free(*slot);
            *slot = g_string_free(v, FALSE);
        } else if (!value(c, 2)) {
            return false;
        }
        skip_ws(c);
    }
    if (c->s >= c->end)
        return fail(c, "an object that does not end");
    c->s++;
    e->end = (size_t)(c->s - c->start);
    return true;
}

void ccdb_entry_clear(void *entry)
{
    struct ccdb_entry *e = entry;
    g_free(e->directory);
    g_free(e->file);
    g_free(e->output);
    e->directory = e->file = e->output = NULL;
}

int ccdb_parse(const char *text, size_t len, GArray *entries, char **err)
{
    struct scan c = {text, text + len, text, NULL};
    skip_ws(&c);
    bool ok = c.s < c.end && *c.s == '[' ? true : fail(&c, "expected '[' (a JSON array)");
    if (ok) {
        c.s++;
        skip_ws(&c);
    }
    for (bool first = true; ok && c.s < c.end && *c.s != ']'; first = false) {
        if (!first) {
            if (*c.s != ',') {
                ok = fail(&c, "expected ',' or ']'");
                break;
            }
            c.s++;
            skip_ws(&c);
        }
        struct ccdb_entry e = {0};
        ok = entry(&c, &e);
        if (ok)
            g_array_append_val(entries, e);
        else
            ccdb_entry_clear(&e);
        skip_ws(&c);
    }
    if (ok && c.s >= c.end)
        ok = fail(&c, "an array that does not end");
    if (ok) {
        c.s++;
        skip_ws(&c);
        if (c.s < c.end)
            ok = fail(&c, "text after the array");
    }
    if (!ok) {
        if (err)
            *err = c.err;
        else
            g_free(c.err);
        return -EINVAL;
    }
    return 0;
}

static char *absolute(const char *dir, const char *path)
{
    if (path[0] == '/' || !dir)
        return g_strdup(path);
    return g_build_filename(dir, path, NULL);
}

char *ccdb_key(const char *directory, const char *file, const char *output)
{
    if (!file)
        return NULL;
    g_autofree char *f = absolute(directory, file);
    g_autofree char *o = output ? absolute(directory, output) : g_strdup("");
    return g_strdup_printf("%s\n%s", f, o);
}
