/* debdeps — see debdeps.h for the contract. */
#include "debdeps.h"

#include "lines.h"

#include <string.h>

static void alt_free(gpointer p)
{
    struct debdep_alt *a = p;
    g_free(a->name);
    g_free(a->archqual);
    g_free(a->op);
    g_free(a->version);
    g_strfreev(a->arches);
    if (a->profiles)
        g_ptr_array_free(a->profiles, TRUE);
    g_free(a);
}

static void clause_free(gpointer p)
{
    struct debdep_clause *c = p;
    g_ptr_array_free(c->alts, TRUE);
    g_free(c);
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* c is one of set (never the terminating NUL) */
static bool in_set(char c, const char *set)
{
    return c && strchr(set, c);
}

static const char *skip_space(const char *s, const char *end)
{
    while (s < end && is_space(*s))
        s++;
    return s;
}

/* The words between s and end, as a NULL-terminated list. */
static char **words(const char *s, const char *end)
{
    g_autofree char *t = g_strndup(s, end - s);
    char **w = g_strsplit_set(t, " \t\n\r", -1);
    char **out = w, **in = w;
    for (; *in; in++) {
        if (**in)
            *out++ = *in;
        else
            g_free(*in);
    }
    *out = NULL;
    return w;
}

/* One alternative between s and end, or NULL when it has no name. */
static struct debdep_alt *parse_alt(const char *s, const char *end)
{
    s = skip_space(s, end);
    const char *n = s;
    while (s < end && *s && !is_space(*s) && !in_set(*s, "(|[<:,"))
        s++;
    if (s == n)
        return NULL;
    struct debdep_alt *a = g_new0(struct debdep_alt, 1);
    a->name = g_strndup(n, s - n);
    if (s < end && *s == ':') {
        const char *q = ++s;
        while (s < end && *s && !is_space(*s) && !in_set(*s, "(|[<,"))
            s++;
        if (s > q)
            a->archqual = g_strndup(q, s - q);
    }
    for (;;) {
        s = skip_space(s, end);
        if (s >= end)
            break;
        char open = *s, close = open == '(' ? ')' : open == '[' ? ']' : open == '<' ? '>' : 0;
        if (!close)
            break; /* not something an alternative can hold: the rest is ignored */
        const char *b = s + 1, *e = memchr(b, close, end - b);
        if (!e)
            e = end;
        if (open == '(' && !a->op) {
            const char *o = skip_space(b, e), *oe = o;
            while (oe < e && in_set(*oe, "<>="))
                oe++;
            const char *v = skip_space(oe, e), *ve = e;
            while (ve > v && is_space(ve[-1]))
                ve--;
            if (oe > o || ve > v) {
                a->op = g_strndup(o, oe - o);
                a->version = g_strndup(v, ve - v);
            }
        } else if (open == '[' && !a->arches) {
            a->arches = words(b, e);
        } else if (open == '<') {
            if (!a->profiles)
                a->profiles = g_ptr_array_new_with_free_func((GDestroyNotify)g_strfreev);
            g_ptr_array_add(a->profiles, words(b, e));
        }
        s = e < end ? e + 1 : end;
    }
    return a;
}

GPtrArray *debdeps_parse(const char *text, size_t len)
{
    GPtrArray *clauses = g_ptr_array_new_with_free_func(clause_free);
    const char *s = text, *end = text + len;
    while (s < end) {
        const char *ce = memchr(s, ',', end - s);
        if (!ce)
            ce = end;
        struct debdep_clause *c = g_new0(struct debdep_clause, 1);
        c->alts = g_ptr_array_new_with_free_func(alt_free);
        for (const char *a = s; a < ce;) {
            const char *ae = memchr(a, '|', ce - a);
            if (!ae)
                ae = ce;
            struct debdep_alt *alt = parse_alt(a, ae);
            if (alt)
                g_ptr_array_add(c->alts, alt);
            a = ae + 1;
        }
        if (c->alts->len)
            g_ptr_array_add(clauses, c);
        else
            clause_free(c);
        s = ce + 1;
    }
    return clauses;
}

static bool is_build_depends(const char *line, size_t l, size_t *value)
{
    static const char *const names[] = {"Build-Depends", "Build-Depends-Arch",
                                        "Build-Depends-Indep", NULL};
    for (const char *const *n = names; *n; n++) {
        size_t k = strlen(*n);
        if (l > k && line[k] == ':' && !g_ascii_strncasecmp(line, *n, k)) {
            *value = k + 1;
            return true;
        }
    }
    return false;
}

char *debdeps_from_control(const char *text, size_t len)
{
    GString *out = NULL;
    bool in_field = false;
    struct lines it = {text, len, 0};
    const char *line;
    size_t l;
    while (lines_next(&it, &line, &l)) {
        if (l && line[l - 1] == '\r')
            l--;
        if (l && line[0] == '#')
            continue;
        bool blank = true;
        for (size_t i = 0; i < l && blank; i++)
            blank = is_space(line[i]);
        if (blank) {
            if (out)
                break; /* the stanza that declared them is over */
            in_field = false;
            continue;
        }
        size_t v;
        if (line[0] == ' ' || line[0] == '\t') {
            if (in_field) {
                g_string_append_c(out, ' ');
                g_string_append_len(out, line, l);
            }
        } else if (is_build_depends(line, l, &v)) {
            if (!out)
                out = g_string_new(NULL);
            else
                g_string_append(out, ", ");
            g_string_append_len(out, line + v, l - v);
            in_field = true;
        } else {
            in_field = false;
        }
    }
    if (!out)
        return NULL;
    for (char *p = out->str; *p; p++)
        if (*p == '\t')
            *p = ' ';
    return g_string_free(out, FALSE);
}

/* An architecture's OS and CPU (Debian's tuple, for the common architectures). */
static void split_arch(const char *arch, char **os, char **cpu)
{
    const char *dash = strrchr(arch, '-');
    if (dash) {
        *os = g_strndup(arch, dash - arch);
        *cpu = g_strdup(dash + 1);
    } else {
        *os = g_strdup("linux");
        *cpu = g_strdup(arch);
    }
    if (!strcmp(*cpu, "armel") || !strcmp(*cpu, "armhf")) {
        g_free(*cpu);
        *cpu = g_strdup("arm");
    } else if (!strcmp(*cpu, "x32")) {
        g_free(*cpu);
        *cpu = g_strdup("amd64");
    }
}

bool debdeps_arch_matches(const char *arch, const char *pattern)
{
    if (!strcmp(pattern, "any") || !strcmp(arch, pattern))
        return true;
    bool os_any = g_str_has_suffix(pattern, "-any"), cpu_any = g_str_has_prefix(pattern, "any-");
    if (!os_any && !cpu_any)
        return false;
    g_autofree char *os = NULL, *cpu = NULL;
    split_arch(arch, &os, &cpu);
    if (os_any) {
        g_autofree char *want = g_strndup(pattern, strlen(pattern) - 4);
        return !strcmp(os, want);
    }
    if (!strcmp(pattern + 4, cpu))
        return true;
    /* any-arm covers armel and armhf by name too */
    return !strcmp(pattern + 4, arch);
}

static bool profile_active(const char *name, const char *const *profiles)
{
    for (; profiles && *profiles; profiles++)
        if (!strcmp(*profiles, name))
            return true;
    return false;
}

bool debdeps_applies(const struct debdep_alt *alt, const char *arch,
                     const char *const *profiles)
{
    if (alt->arches && alt->arches[0]) {
        bool negated = alt->arches[0][0] == '!', hit = false;
        for (char **a = alt->arches; *a && !hit; a++)
            hit = debdeps_arch_matches(arch, **a == '!' ? *a + 1 : *a);
        if (negated == hit)
            return false;
    }
    if (alt->profiles && alt->profiles->len) {
        bool any = false;
        for (guint i = 0; i < alt->profiles->len && !any; i++) {
            bool all = true;
            for (char **t = alt->profiles->pdata[i]; *t && all; t++)
                all = **t == '!' ? !profile_active(*t + 1, profiles)
                                 : profile_active(*t, profiles);
            any = all;
        }
        if (!any)
            return false;
    }
    return true;
}

char **debdeps_options_as_profiles(const char *deb_build_options)
{
    static const char *const both[] = {"nocheck", "nodoc", NULL};
    GPtrArray *out = g_ptr_array_new();
    g_auto(GStrv) words = g_strsplit_set(deb_build_options, " \t\n,", -1);
    for (char **w = words; *w; w++) {
        bool dup = false;
        for (guint k = 0; k < out->len && !dup; k++)
            dup = !strcmp(out->pdata[k], *w);
        if (g_strv_contains(both, *w) && !dup)
            g_ptr_array_add(out, g_strdup(*w));
    }
    g_ptr_array_add(out, NULL);
    return (char **)g_ptr_array_free(out, FALSE);
}

/* A character's weight in dpkg's ordering of the non-digit parts: '~' lowest, then the end,
 * then letters, then everything else. */
static int order(int c)
{
    if (g_ascii_isdigit(c))
        return 0;
    if (g_ascii_isalpha(c))
        return c;
    if (c == '~')
        return -1;
    return c ? c + 256 : 0;
}

/* dpkg's comparison of an upstream version or a revision: alternating non-digit and digit
 * runs between a and ae, b and be. */
static int part_cmp(const char *a, const char *ae, const char *b, const char *be)
{
    while (a < ae || b < be) {
        int first = 0;
        while ((a < ae && !g_ascii_isdigit(*a)) || (b < be && !g_ascii_isdigit(*b))) {
            int ac = a < ae ? order((unsigned char)*a) : 0;
            int bc = b < be ? order((unsigned char)*b) : 0;
            if (ac != bc)
                return ac - bc;
            a += a < ae;
            b += b < be;
        }
        while (a < ae && *a == '0')
            a++;
        while (b < be && *b == '0')
            b++;
        while (a < ae && b < be && g_ascii_isdigit(*a) && g_ascii_isdigit(*b)) {
            if (!first)
                first = *a - *b;
            a++;
            b++;
        }
        if (a < ae && g_ascii_isdigit(*a))
            return 1;
        if (b < be && g_ascii_isdigit(*b))
            return -1;
        if (first)
            return first;
    }
    return 0;
}

/* A version's epoch (0 when none) and where its upstream part and revision lie. */
static unsigned long split_version(const char *v, const char **up, const char **up_end,
                                   const char **rev, const char **rev_end)
{
    unsigned long epoch = 0;
    const char *colon = strchr(v, ':');
    if (colon) {
        for (const char *d = v; d < colon && g_ascii_isdigit(*d) && epoch < 1000000; d++)
            epoch = epoch * 10 + (unsigned long)(*d - '0');
        v = colon + 1;
    }
    const char *end = v + strlen(v), *dash = strrchr(v, '-');
    *up = v;
    *up_end = dash ? dash : end;
    *rev = dash ? dash + 1 : end;
    *rev_end = end;
    return epoch;
}

int debdeps_version_cmp(const char *a, const char *b)
{
    const char *au, *aue, *ar, *are, *bu, *bue, *br, *bre;
    unsigned long ae = split_version(a, &au, &aue, &ar, &are);
    unsigned long be = split_version(b, &bu, &bue, &br, &bre);
    if (ae != be)
        return ae < be ? -1 : 1;
    int r = part_cmp(au, aue, bu, bue);
    if (!r)
        r = part_cmp(ar, are, br, bre);
    return r < 0 ? -1 : r > 0;
}

bool debdeps_version_satisfies(const char *version, const char *op, const char *want)
{
    int c = debdeps_version_cmp(version, want);
    if (!strcmp(op, "<<"))
        return c < 0;
    if (!strcmp(op, "<=") || !strcmp(op, "<"))
        return c <= 0;
    if (!strcmp(op, "="))
        return c == 0;
    if (!strcmp(op, ">=") || !strcmp(op, ">"))
        return c >= 0;
    if (!strcmp(op, ">>"))
        return c > 0;
    return true;
}
