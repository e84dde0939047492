/* manifest — see manifest.h for the format and the contract. */
#include "manifest.h"

#include "lines.h"
#include "paths.h"

#include <errno.h>
#include <fnmatch.h>
#include <string.h>

void manifest_entry_free(gpointer p)
{
    struct manifest_entry *e = p;
    if (!e)
        return;
    g_free(e->pattern);
    g_free(e);
}

static bool is_hex64(const char *s, size_t len)
{
    if (len != 64)
        return false;
    for (size_t i = 0; i < len; i++)
        if (!g_ascii_isxdigit(s[i]))
            return false;
    return true;
}

/* sha256sum's escaped path: a backslash doubled, backslash-n a newline, backslash-r a CR. */
static char *unescape_sha256sum(const char *p, size_t n)
{
    GString *s = g_string_sized_new(n);
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '\\' && i + 1 < n && strchr("\\nr", p[i + 1])) {
            i++;
            g_string_append_c(s, p[i] == 'n' ? '\n' : p[i] == 'r' ? '\r' : '\\');
        } else {
            g_string_append_c(s, p[i]);
        }
    }
    return g_string_free(s, FALSE);
}

static int parse_line(const char *line, size_t len, int lineno, const char *root,
                      GPtrArray *entries, char **err)
{
    while (len && (line[len - 1] == '\r' || line[len - 1] == ' ' || line[len - 1] == '\t'))
        len--;
    size_t start = 0;
    while (start < len && (line[start] == ' ' || line[start] == '\t'))
        start++;
    line += start;
    len -= start;
    if (!len || line[0] == '#')
        return 0;
    if (memchr(line, '\0', len)) {
        *err = g_strdup_printf("line %d: a NUL byte", lineno);
        return -EINVAL;
    }
    /* sha256sum marks a line whose path it escaped ('\\', '\n', '\r') with a leading '\'. */
    bool escaped = len > 66 && line[0] == '\\' && is_hex64(line + 1, 64) && line[65] == ' ';
    if (escaped) {
        line++;
        len--;
    }
    struct manifest_entry *e = g_new0(struct manifest_entry, 1);
    e->line = lineno;
    const char *path = line;
    size_t plen = len;
    if (is_hex64(line, len)) {
        *err = g_strdup_printf("line %d: a SHA-256 with no path after it", lineno);
        g_free(e);
        return -EINVAL;
    }
    const char *sp = memchr(line, ' ', len);
    if (sp && is_hex64(line, (size_t)(sp - line))) {
        /* sha256sum: HASH, a space, then ' ' (text) or '*' (binary), then the path. */
        size_t rest = len - (size_t)(sp - line) - 1;
        const char *after = sp + 1;
        if (!rest || (after[0] != ' ' && after[0] != '*') || rest < 2) {
            *err = g_strdup_printf("line %d: a SHA-256 must be followed by two spaces (or a "
                                   "space and '*') and a path, as sha256sum prints", lineno);
            g_free(e);
            return -EINVAL;
        }
        for (int i = 0; i < 64; i++)
            e->sha256[i] = g_ascii_tolower(line[i]);
        path = after + 1;
        plen = rest - 1;
    }
    g_autofree char *raw = NULL;
    bool quoted = !e->sha256[0] && plen >= 2 && path[0] == '"' && path[plen - 1] == '"';
    if (escaped || quoted) {
        /* A path a tool quoted: sha256sum's escapes, or git's C-style quoting of a name with
         * unusual bytes ("\303\251.c", core.quotePath).  A literal name, never a glob. */
        g_autofree char *inner = quoted ? g_strndup(path + 1, plen - 2) : NULL;
        size_t tail = 0; /* backslashes ending it: an odd number escapes nothing */
        while (inner && tail < plen - 2 && inner[plen - 3 - tail] == '\\')
            tail++;
        raw = tail % 2 ? g_strdup("") : quoted ? g_strcompress(inner) : unescape_sha256sum(path, plen);
        if (!raw[0]) {
            *err = g_strdup_printf("line %d: a quoted path that does not unquote", lineno);
            g_free(e);
            return -EINVAL;
        }
    } else {
        raw = g_strndup(path, plen);
    }
    size_t rl = strlen(raw);
    if (e->sha256[0] == '\0' && !quoted) {
        if (!strcmp(raw, "**")) { /* the last component too: everything under the root */
            raw[1] = '\0';
            raw[0] = '.';
            e->subtree = true;
        } else if (rl >= 3 && !strcmp(raw + rl - 3, "/**")) {
            raw[rl - 3] = '\0';
            e->subtree = true;
        } else if (rl > 1 && raw[rl - 1] == '/') {
            e->subtree = true;
        }
        e->glob = strpbrk(raw, "*?[") != NULL;
    }
    e->pattern = path_absolute_in(root, raw[0] ? raw : "/");
    g_ptr_array_add(entries, e);
    return 0;
}

int manifest_parse(const char *text, size_t len, const char *root, GPtrArray *entries,
                   char **err)
{
    int lineno = 0;
    /* A UTF-8 byte order mark (an editor's) is no part of the first path. */
    if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3)) {
        text += 3;
        len -= 3;
    }
    struct lines it = {text, len, 0};
    const char *line;
    size_t l;
    while (lines_next(&it, &line, &l)) {
        int r = parse_line(line, l, ++lineno, root, entries, err);
        if (r < 0)
            return r;
    }
    return 0;
}

bool manifest_match(const struct manifest_entry *e, const char *path)
{
    if (e->subtree) {
        if (!e->glob)
            return path_is_under(path, e->pattern);
        /* A glob directory: match it against each leading part of the path. */
        g_autofree char *p = g_strdup(path);
        for (char *slash = p + strlen(p); slash > p; slash = strrchr(p, '/')) {
            *slash = '\0';
            if (fnmatch(e->pattern, p, FNM_PATHNAME) == 0)
                return true;
            if (!strrchr(p, '/'))
                break;
        }
        return false;
    }
    /* A glob also names itself: `git ls-files` lists a file called "t[1].c" as it is. */
    if (e->glob && fnmatch(e->pattern, path, FNM_PATHNAME) == 0)
        return true;
    return strcmp(e->pattern, path) == 0;
}
