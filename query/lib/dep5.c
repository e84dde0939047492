/* dep5 — see dep5.h for the contract. */
#include "dep5.h"

#include <string.h>

#define DEP5_PATTERN_MAX 4096

struct dep5_files {
    char **patterns; /* NULL-terminated */
    char *license;   /* the short-name expression: the License field's first line */
};

struct dep5 {
    GPtrArray *files; /* struct dep5_files *, in the file's order */
};

static void free_files(gpointer p)
{
    struct dep5_files *f = p;
    g_strfreev(f->patterns);
    g_free(f->license);
    g_free(f);
}

void dep5_free(struct dep5 *d)
{
    if (!d)
        return;
    g_ptr_array_free(d->files, TRUE);
    g_free(d);
}

/* One paragraph being read: the fields this module uses. */
struct para {
    unsigned first_line; /* 0: no field yet */
    bool format;
    GString *files;  /* NULL: no Files field */
    char *license;   /* NULL: no License field */
    bool license_seen;
    GString *cont;   /* where continuation lines go: files, or NULL (skipped) */
};

static void para_reset(struct para *p)
{
    if (p->files)
        g_string_free(p->files, TRUE);
    g_free(p->license);
    memset(p, 0, sizeof *p);
}

/* Ends a paragraph: 0, or an error message (newly allocated). */
static char *para_end(struct para *p, unsigned *n_paras, struct dep5 *d)
{
    char *err = NULL;
    if (!p->first_line)
        return NULL;
    if (*n_paras == 0 && !p->format)
        err = g_strdup_printf("line %u: the first paragraph has no Format field (not a "
                              "machine-readable debian/copyright)", p->first_line);
    else if (p->files && !p->license_seen)
        err = g_strdup_printf("line %u: a Files paragraph without a License field",
                              p->first_line);
    else if (p->files && (!p->license || !*p->license))
        err = g_strdup_printf("line %u: a Files paragraph whose License field has no short "
                              "name on its first line", p->first_line);
    else if (p->files) {
        g_auto(GStrv) words = g_strsplit_set(p->files->str, " \t\n", -1);
        GPtrArray *pats = g_ptr_array_new();
        for (char **w = words; *w; w++)
            if (**w)
                g_ptr_array_add(pats, g_strdup(*w));
        if (!pats->len) {
            err = g_strdup_printf("line %u: a Files field with no pattern", p->first_line);
            g_ptr_array_free(pats, TRUE);
        } else {
            g_ptr_array_add(pats, NULL);
            struct dep5_files *f = g_new0(struct dep5_files, 1);
            f->patterns = (char **)g_ptr_array_free(pats, FALSE);
            f->license = g_strdup(p->license);
            g_ptr_array_add(d->files, f);
        }
    }
    (*n_paras)++;
    para_reset(p);
    return err;
}

static bool blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t')
            return false;
    return true;
}

/* A field's value with the spaces around it dropped, made text (a NUL byte is a space). */
static char *value(const char *s, size_t n)
{
    while (n && (*s == ' ' || *s == '\t'))
        s++, n--;
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    char *v = g_strndup(s, n);
    for (size_t i = 0; i < n; i++)
        if (v[i] == '\0')
            v[i] = ' ';
    return v;
}

struct dep5 *dep5_parse(const char *text, size_t len, char **error)
{
    struct dep5 *d = g_new0(struct dep5, 1);
    d->files = g_ptr_array_new_with_free_func(free_files);
    struct para p = {0};
    unsigned line = 0, n_paras = 0;
    char *err = NULL;
    size_t i = len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3) ? 3 : 0; /* an editor's BOM */
    while (i < len && !err) {
        const char *s = text + i;
        const char *nl = memchr(s, '\n', len - i);
        size_t n = nl ? (size_t)(nl - s) : len - i;
        i += n + (nl ? 1 : 0);
        line++;
        if (n && s[n - 1] == '\r')
            n--;
        if (n && s[0] == '#')
            continue; /* a comment */
        if (blank(s, n)) {
            err = para_end(&p, &n_paras, d);
            continue;
        }
        if (s[0] == ' ' || s[0] == '\t') {
            if (!p.first_line) {
                err = g_strdup_printf("line %u: a continuation line outside a field", line);
            } else if (p.cont) {
                g_autofree char *v = value(s, n);
                g_string_append_c(p.cont, ' ');
                g_string_append(p.cont, v);
            }
            continue;
        }
        const char *colon = memchr(s, ':', n);
        if (!colon || colon == s) {
            err = g_strdup_printf("line %u: neither a field (Name: value) nor a continuation "
                                  "line", line);
            continue;
        }
        if (!p.first_line)
            p.first_line = line;
        size_t nl_name = (size_t)(colon - s);
        g_autofree char *v = value(colon + 1, n - nl_name - 1);
        p.cont = NULL;
        if (nl_name == 6 && !g_ascii_strncasecmp(s, "Format", 6)) {
            p.format = true;
        } else if (nl_name == 5 && !g_ascii_strncasecmp(s, "Files", 5)) {
            if (p.files)
                err = g_strdup_printf("line %u: a second Files field in one paragraph", line);
            else
                p.cont = p.files = g_string_new(v);
        } else if (nl_name == 7 && !g_ascii_strncasecmp(s, "License", 7)) {
            if (p.license_seen)
                err = g_strdup_printf("line %u: a second License field in one paragraph", line);
            p.license_seen = true;
            g_free(p.license);
            p.license = g_steal_pointer(&v);
        }
    }
    if (!err)
        err = para_end(&p, &n_paras, d);
    para_reset(&p);
    if (!err && !d->files->len)
        err = g_strdup(n_paras ? "no Files paragraph" : "empty");
    if (err) {
        dep5_free(d);
        if (error)
            *error = err;
        else
            g_free(err);
        return NULL;
    }
    return d;
}

bool dep5_glob_match(const char *pattern, const char *path)
{
    if (strlen(pattern) > DEP5_PATTERN_MAX)
        return false; /* no path is that long; and matching costs its length times the path's */
    if (pattern[0] == '.' && pattern[1] == '/')
        pattern += 2;
    const char *p = pattern, *s = path;
    const char *star = NULL, *star_s = NULL; /* the last '*' and where its match ends */
    while (*s) {
        if (*p == '*') {
            star = ++p;
            star_s = s;
            continue;
        }
        bool quoted = *p == '\\' && (p[1] == '*' || p[1] == '?' || p[1] == '\\');
        char want = quoted ? p[1] : *p;
        if (*p && ((!quoted && *p == '?') || want == *s)) {
            p += quoted ? 2 : 1;
            s++;
            continue;
        }
        if (!star)
            return false;
        p = star; /* the last '*' takes one more character */
        s = ++star_s;
    }
    while (*p == '*')
        p++;
    return *p == '\0';
}

const char *dep5_license(const struct dep5 *d, const char *relpath)
{
    for (guint i = d->files->len; i-- > 0;) {
        const struct dep5_files *f = d->files->pdata[i];
        for (char **pat = f->patterns; *pat; pat++)
            if (dep5_glob_match(*pat, relpath))
                return f->license;
    }
    return NULL;
}

/* One Debian short name as an SPDX id (newly allocated). */
static char *spdx_name(const char *name)
{
    static const struct {
        const char *debian, *spdx;
    } fixed[] = {
        {"Expat", "MIT"},          {"MIT", "MIT"},
        {"BSD-2", "BSD-2-Clause"}, {"BSD-2-clause", "BSD-2-Clause"},
        {"BSD-3", "BSD-3-Clause"}, {"BSD-3-clause", "BSD-3-Clause"},
        {"BSD-4", "BSD-4-Clause"}, {"BSD-4-clause", "BSD-4-Clause"},
        {"Apache-2", "Apache-2.0"}, {"Apache-2.0", "Apache-2.0"},
        {"Artistic", "Artistic-1.0-Perl"}, {"Perl", "Artistic-1.0-Perl OR GPL-1.0-or-later"},
        {"public-domain", "LicenseRef-public-domain"},
        {"PSF-2", "PSF-2.0"},      {"Python-2.0", "Python-2.0"},
        {"ISC", "ISC"},            {"Zlib", "Zlib"},
        {NULL, NULL},
    };
    for (int i = 0; fixed[i].debian; i++)
        if (!g_ascii_strcasecmp(name, fixed[i].debian))
            return g_strdup(fixed[i].spdx);
    if (!g_ascii_strncasecmp(name, "OpenLDAP-", 9))
        return g_strconcat("OLDAP-", name + 9, NULL);
    static const char *const versioned[] = {"GPL-", "LGPL-", "AGPL-", "GFDL-", NULL};
    for (int i = 0; versioned[i]; i++) {
        size_t pl = strlen(versioned[i]);
        if (g_ascii_strncasecmp(name, versioned[i], pl))
            continue;
        g_autofree char *ver = g_strdup(name + pl);
        size_t vl = strlen(ver);
        bool later = vl && ver[vl - 1] == '+';
        if (later)
            ver[--vl] = '\0';
        if (!vl || !g_ascii_isdigit(ver[0]) || strspn(ver, "0123456789.") != vl)
            break; /* "GPL-2.0-only", "GPL-3.0-or-later": already SPDX */
        return g_strdup_printf("%s%s%s-%s", versioned[i], ver, strchr(ver, '.') ? "" : ".0",
                               later ? "or-later" : "only");
    }
    return g_strdup(name);
}

/* Appends a group's SPDX (its "and"/"or"/"with" words mapped; two names with no word between
 * them are both required: AND); the number of names. */
static unsigned spdx_group(GString *out, char **all)
{
    GPtrArray *words = g_ptr_array_new();
    for (char **w = all; *w; w++)
        if (**w)
            g_ptr_array_add(words, *w);
    unsigned terms = 0;
    const char *op = NULL;
    for (guint i = 0; i < words->len; i++) {
        const char *w = words->pdata[i];
        if (!g_ascii_strcasecmp(w, "and") || !g_ascii_strcasecmp(w, "or")) {
            op = !g_ascii_strcasecmp(w, "and") ? "AND" : "OR";
            continue;
        }
        if (!g_ascii_strcasecmp(w, "with")) {
            /* "with Y [Z...] exception": one id, the words joined by '-' */
            GString *ex = g_string_new(NULL);
            for (i++; i < words->len; i++) {
                const char *x = words->pdata[i];
                if (ex->len)
                    g_string_append_c(ex, '-');
                g_string_append(ex, x);
                if (!g_ascii_strcasecmp(x, "exception"))
                    break;
            }
            if (ex->len && terms)
                g_string_append_printf(out, " WITH %s", ex->str);
            g_string_free(ex, TRUE);
            continue;
        }
        g_autofree char *id = spdx_name(w);
        bool compound = strchr(id, ' ') != NULL;
        if (terms)
            g_string_append_printf(out, " %s ", op ? op : "AND");
        g_string_append_printf(out, "%s%s%s", compound ? "(" : "", id, compound ? ")" : "");
        op = NULL;
        terms++;
    }
    g_ptr_array_free(words, TRUE);
    return terms;
}

char *dep5_spdx(const char *expr)
{
    g_auto(GStrv) groups = g_strsplit(expr, ",", -1);
    GString *out = g_string_new(NULL);
    unsigned n_groups = 0;
    for (char **g = groups; *g; g++)
        n_groups += !!g_strstrip(*g)[0];
    for (char **g = groups; *g; g++) {
        if (!**g)
            continue;
        g_auto(GStrv) words = g_strsplit_set(*g, " \t\r\n\v\f", -1);
        /* a group led by "and" (", and BSD-3-clause") is just the next group */
        GString *one = g_string_new(NULL);
        unsigned terms = spdx_group(one, words);
        if (terms) {
            bool paren = n_groups > 1 && terms > 1;
            g_string_append_printf(out, "%s%s%s%s", out->len ? " AND " : "", paren ? "(" : "",
                                   one->str, paren ? ")" : "");
        }
        g_string_free(one, TRUE);
    }
    return out->len ? g_string_free(out, FALSE) : (g_string_free(out, TRUE), NULL);
}
