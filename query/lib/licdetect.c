/* licdetect — see licdetect.h for the contract. */
#include "licdetect.h"

#include <stdbool.h>
#include <string.h>

#define NOTICE_WINDOW (16 * 1024)
#define TAG "SPDX-License-Identifier:"

/* An SPDX expression may hold letters, digits, '.', '-', '+', '(', ')', ':' and spaces. */
static bool expr_char(char c)
{
    return g_ascii_isalnum(c) || c == '.' || c == '-' || c == '+' || c == '(' || c == ')' ||
           c == ':' || c == ' ';
}

/* The licenses found, each once: a set of SPDX expressions. */
static void add(GPtrArray *ids, const char *id)
{
    for (guint k = 0; k < ids->len; k++)
        if (!strcmp(ids->pdata[k], id))
            return;
    g_ptr_array_add(ids, g_strdup(id));
}

/* add() for sets that crafted input can make large (a file of a million distinct tags, a
 * roll-up of them): `seen` (not owning its keys) makes each add constant time. */
static void add_seen(GPtrArray *ids, GHashTable *seen, const char *id)
{
    if (g_hash_table_contains(seen, id))
        return;
    char *c = g_strdup(id);
    g_ptr_array_add(ids, c);
    g_hash_table_add(seen, c);
}

static gint str_cmp(gconstpointer a, gconstpointer b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The set sorted and joined with AND (a compound member parenthesised), or NULL if empty. */
static char *join_and(GPtrArray *ids)
{
    if (!ids->len)
        return NULL;
    g_ptr_array_sort(ids, str_cmp);
    GString *s = g_string_new(NULL);
    for (guint k = 0; k < ids->len; k++) {
        const char *e = ids->pdata[k];
        bool compound = ids->len > 1 && strchr(e, ' ') != NULL;
        g_string_append_printf(s, "%s%s%s%s", k ? " AND " : "", compound ? "(" : "", e,
                               compound ? ")" : "");
    }
    return g_string_free(s, FALSE);
}

static void trim_term(const char **s, size_t *n);

static char *tags(const char *text, size_t len)
{
    GPtrArray *found = g_ptr_array_new_with_free_func(g_free);
    GHashTable *seen = g_hash_table_new(g_str_hash, g_str_equal);
    size_t tl = strlen(TAG);
    for (size_t i = 0; i + tl <= len;) {
        const char *at = memmem(text + i, len - i, TAG, tl);
        if (!at)
            break;
        size_t j = (size_t)(at - text) + tl;
        while (j < len && (text[j] == ' ' || text[j] == '\t'))
            j++;
        size_t start = j;
        while (j < len && expr_char(text[j]))
            j++;
        size_t end = j;
        /* An expression ends with an id, a '+' or a ')': drop a comment's "-->" and spaces. */
        while (end > start && !g_ascii_isalnum(text[end - 1]) && text[end - 1] != '+' &&
               text[end - 1] != ')')
            end--;
        if (end > start) {
            g_autofree char *e = g_strndup(text + start, end - start);
            add_seen(found, seen, e);
        }
        i = j > (size_t)(at - text) ? j : (size_t)(at - text) + 1;
    }
    g_hash_table_destroy(seen);
    char *r = join_and(found);
    g_ptr_array_free(found, TRUE);
    return r;
}

/* The text made comparable: lower case, every run of whitespace and comment decoration
 * ('*', '#', '/', ';', '!') one space. */
static char *normalise(const char *text, size_t len)
{
    GString *s = g_string_sized_new(len);
    bool space = true;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (g_ascii_isspace(c) || c == '*' || c == '#' || c == '/' || c == ';' || c == '!' ||
            c == '\0') {
            if (!space)
                g_string_append_c(s, ' ');
            space = true;
            continue;
        }
        g_string_append_c(s, g_ascii_tolower(c));
        space = false;
    }
    return g_string_free(s, FALSE);
}

static bool has(const char *t, const char *phrase)
{
    return strstr(t, phrase) != NULL;
}

/* Does [from, to) of the normalised text hold `phrase`? */
static bool has_in(const char *from, const char *to, const char *phrase)
{
    size_t n = strlen(phrase);
    return to > from && (size_t)(to - from) >= n && memmem(from, (size_t)(to - from), phrase, n);
}

/* The version number written after the first "version " in [from, to) ("2", "2.1"), or 0. */
static const char *version_in(const char *from, const char *to, char *buf, size_t size)
{
    for (const char *at = from; at < to;) {
        const char *v = memmem(at, (size_t)(to - at), "version ", 8);
        if (!v)
            return NULL;
        v += 8;
        size_t n = 0;
        while (v + n < to && n + 1 < size && (g_ascii_isdigit(v[n]) || v[n] == '.'))
            n++;
        while (n && v[n - 1] == '.')
            n--; /* the sentence's full stop */
        if (n && g_ascii_isdigit(v[0])) {
            memcpy(buf, v, n);
            buf[n] = '\0';
            return buf;
        }
        at = v;
    }
    return NULL;
}

/* GNU licenses: every mention of one, with the version written near it ("either version 2 of
 * the License", "version 2.1 of the GNU Lesser ...") and "or later" wording near it.  A mention
 * with no version near it ("See the GNU General Public License for more details") counts only
 * for the GNU Library GPL, of which there is one version. */
static void gnu_family(const char *t, GPtrArray *ids)
{
    static const struct {
        const char *phrase, *family;
    } gnu[] = {
        {"gnu general public license", "GPL"},
        {"gnu gpl", "GPL"},
        {"gnu lesser general public license", "LGPL"},
        {"gnu library general public license", "LGPL"},
        {"gnu lgpl", "LGPL"},
        {"gnu affero general public license", "AGPL"},
        {NULL, NULL},
    };
    size_t tl = strlen(t);
    for (int g = 0; gnu[g].phrase; g++) {
        for (const char *at = strstr(t, gnu[g].phrase); at; at = strstr(at + 1, gnu[g].phrase)) {
            const char *from = at - t > 160 ? at - 160 : t;
            const char *end = at + strlen(gnu[g].phrase);
            const char *to = (size_t)(end - t) + 120 < tl ? end + 120 : t + tl;
            char buf[8];
            /* "version 2 of the GNU ..." before the name, else "... License, version 2" or
             * "as published by the Free Software Foundation; either version 2" after it. */
            const char *v = version_in(end, to, buf, sizeof buf);
            if (!v) {
                const char *back = at - t > 40 ? at - 40 : t;
                v = version_in(back, at, buf, sizeof buf);
            }
            const char *fam = gnu[g].family;
            const char *ver = NULL;
            if (v && !strcmp(fam, "GPL"))
                ver = !strcmp(v, "1") || !strcmp(v, "1.0") ? "1.0"
                      : !strcmp(v, "2") || !strcmp(v, "2.0") ? "2.0"
                      : !strcmp(v, "3") || !strcmp(v, "3.0") ? "3.0" : NULL;
            else if (v && !strcmp(fam, "LGPL"))
                ver = !strcmp(v, "2") || !strcmp(v, "2.0") ? "2.0"
                      : !strcmp(v, "2.1") ? "2.1"
                      : !strcmp(v, "3") || !strcmp(v, "3.0") ? "3.0" : NULL;
            else if (v && !strcmp(fam, "AGPL"))
                ver = !strcmp(v, "3") || !strcmp(v, "3.0") ? "3.0" : NULL;
            else if (!v && !strcmp(gnu[g].phrase, "gnu library general public license"))
                ver = "2.0";
            if (!ver)
                continue;
            const char *later_to = (size_t)(end - t) + 260 < tl ? end + 260 : t + tl;
            bool later = has_in(from, later_to, "any later version") ||
                         has_in(from, later_to, "or later version") ||
                         has_in(from, later_to, "or (at your option) any later") ||
                         has_in(from, later_to, "or, at your option, any later") ||
                         has_in(end, later_to, " or later");
            g_autofree char *id = g_strdup_printf("%s-%s-%s", fam, ver, later ? "or-later" : "only");
            add(ids, id);
        }
    }
}

/* The BSD licenses: each "Redistribution and use ... are permitted provided that the following
 * conditions are met" is one notice, its conditions the text up to the end of its disclaimer
 * ("... possibility of such damage") or the next notice. */
static void bsd_family(const char *t, GPtrArray *ids)
{
    static const char lead[] = "redistribution and use in source and binary forms, with or "
                               "without modification, are permitted provided that the "
                               "following conditions are met";
    for (const char *at = strstr(t, lead); at; at = strstr(at + 1, lead)) {
        const char *to = strstr(at + 1, "possibility of such damage");
        const char *next = strstr(at + 1, lead);
        if (!to || (next && next < to))
            to = next ? next : at + strlen(at);
        if (has_in(at, to, "all advertising materials mentioning features or use of this "
                           "software must display the following acknowledg"))
            add(ids, "BSD-4-Clause");
        else if (has_in(at, to, "neither the name") || has_in(at, to, "may not be used to endorse") ||
                 has_in(at, to, "may be used to endorse or promote") ||
                 has_in(at, to, "the names of its contributors may not be used"))
            add(ids, "BSD-3-Clause");
        else
            add(ids, "BSD-2-Clause");
    }
}

/* The OpenLDAP Public License: its version where the text names one ("The OpenLDAP Public
 * License Version 2.8"), else 2.8 — its last revision (2003), which every revision lets the
 * user choose ("or under the terms of any subsequent revision"), and the one OpenLDAP
 * Software's notices ("permitted only as authorized by the OpenLDAP Public License") mean. */
static void openldap(const char *t, GPtrArray *ids)
{
    static const char *const known[] = {"1.1", "1.2", "1.3", "1.4", "2.0", "2.0.1", "2.1", "2.2",
                                        "2.2.1", "2.2.2", "2.3", "2.4", "2.5", "2.6", "2.7", "2.8",
                                        NULL};
    static const char name[] = "openldap public license";
    size_t tl = strlen(t);
    for (const char *at = strstr(t, name); at; at = strstr(at + 1, name)) {
        const char *end = at + strlen(name);
        const char *to = (size_t)(end - t) + 12 < tl ? end + 12 : t + tl;
        char buf[8];
        const char *v = version_in(end, to, buf, sizeof buf);
        const char *ver = "2.8";
        for (int k = 0; v && known[k]; k++)
            if (!strcmp(v, known[k]))
                ver = known[k];
        g_autofree char *id = g_strconcat("OLDAP-", ver, NULL);
        add(ids, id);
    }
}

/* Bison's parser skeleton grants an exception to the GPL it is under, in every parser it
 * writes ("you may create a larger work that contains part or all of the Bison parser skeleton
 * and distribute that work under terms of your choice"): the GPL ids found carry it. */
static void bison_exception(const char *t, GPtrArray *ids)
{
    if (!has(t, "part or all of the bison parser skeleton and distribute that work under terms "
                "of your choice"))
        return;
    for (guint k = 0; k < ids->len; k++) {
        char *id = ids->pdata[k];
        if (g_str_has_prefix(id, "GPL-") && !strchr(id, ' ')) {
            ids->pdata[k] = g_strconcat(id, " WITH Bison-exception-2.2", NULL);
            g_free(id);
        }
    }
}

/* Every notice of a license this knows, in the normalised text. */
static void notices(const char *t, GPtrArray *ids)
{
    gnu_family(t, ids);
    bison_exception(t, ids);
    bsd_family(t, ids);
    openldap(t, ids);
    if (has(t, "licensed under the apache license, version 2.0") ||
        has(t, "apache license version 2.0") || has(t, "apache license, version 2.0"))
        add(ids, "Apache-2.0");
    if (has(t, "mozilla public license, v. 2.0") || has(t, "mozilla public license version 2.0"))
        add(ids, "MPL-2.0");
    if (has(t, "provided 'as-is', without any express or implied warranty") &&
        has(t, "altered source versions must be plainly marked"))
        add(ids, "Zlib");
    if (has(t, "permission to use, copy, modify, and") &&
        has(t, "distribute this software for any purpose with or without fee is hereby granted"))
        add(ids, "ISC");
    if (has(t, "permission is hereby granted, free of charge, to any person obtaining a copy"))
        add(ids, "MIT");
    if (has(t, "boost software license - version 1.0") ||
        has(t, "boost software license, version 1.0"))
        add(ids, "BSL-1.0");
    if (has(t, "python software foundation license") ||
        has(t, "license agreement is between the python software foundation"))
        add(ids, "PSF-2.0");
    if (has(t, "under the same terms as perl itself"))
        add(ids, "Artistic-1.0-Perl OR GPL-1.0-or-later");
    if (has(t, "free and unencumbered software released into the public domain"))
        add(ids, "Unlicense");
    else if (has(t, "placed in the public domain") || has(t, "placed into the public domain") ||
             has(t, "released into the public domain") || has(t, "released to the public domain") ||
             has(t, "dedicated to the public domain") || has(t, "is in the public domain") ||
             has(t, "are in the public domain") || has(t, "put in the public domain") ||
             has(t, "the author disclaims copyright to this source code"))
        add(ids, "LicenseRef-public-domain");
}

/* A license id's family, lower case: its version kept, "-only", "-or-later", "+" and a WITH
 * exception dropped ("GPL-2.0-or-later WITH Bison-exception-2.2" is "gpl-2.0"). */
static char *family(const char *id, size_t n)
{
    char *f = g_ascii_strdown(id, (gssize)n);
    char *with = strstr(f, " with ");
    if (with)
        *with = '\0';
    static const char *const suffixes[] = {"-only", "-or-later", "+", NULL};
    for (const char *const *x = suffixes; *x; x++)
        if (g_str_has_suffix(f, *x))
            f[strlen(f) - strlen(*x)] = '\0';
    return f;
}

/* Whether a tag expression names a license of id's family (any of a compound notice's
 * alternatives: "Artistic-1.0-Perl OR GPL-1.0-or-later"). */
static bool tag_names(const char *expr, const char *id)
{
    g_autoptr(GHashTable) fams = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    bool after_with = false;
    for (const char *p = expr; *p;) {
        while (*p == ' ' || *p == '(' || *p == ')')
            p++;
        const char *w = p;
        while (*p && *p != ' ' && *p != '(' && *p != ')')
            p++;
        if (p == w)
            continue;
        size_t n = (size_t)(p - w);
        if ((n == 3 && !g_ascii_strncasecmp(w, "AND", 3)) ||
            (n == 2 && !g_ascii_strncasecmp(w, "OR", 2))) {
            after_with = false;
            continue;
        }
        if (n == 4 && !g_ascii_strncasecmp(w, "WITH", 4)) {
            after_with = true; /* the next word is an exception, not a license */
            continue;
        }
        if (!after_with)
            g_hash_table_add(fams, family(w, n));
        after_with = false;
    }
    g_auto(GStrv) alts = g_strsplit(id, " OR ", -1);
    for (char **a = alts; *a; a++) {
        const char *s = *a;
        size_t n = strlen(s);
        trim_term(&s, &n);
        g_autofree char *f = family(s, n);
        if (g_hash_table_contains(fams, f))
            return true;
    }
    return false;
}

char *lic_detect(const char *text, size_t len)
{
    g_autofree char *t = tags(text, len);
    g_autofree char *n = normalise(text, len < NOTICE_WINDOW ? len : NOTICE_WINDOW);
    GPtrArray *ids = g_ptr_array_new_with_free_func(g_free);
    notices(n, ids);
    char *r;
    if (!t) {
        r = join_and(ids);
    } else {
        /* The tags govern the licenses they name; a notice of a license they do not name is
         * one more obligation the file carries (an MIT tag on GPL-2.0-or-later text). */
        GPtrArray *parts = g_ptr_array_new();
        g_ptr_array_add(parts, t);
        for (guint i = 0; i < ids->len; i++)
            if (!tag_names(t, ids->pdata[i]))
                g_ptr_array_add(parts, ids->pdata[i]);
        r = parts->len == 1 ? g_strdup(t)
                            : lic_and_all((const char *const *)parts->pdata, parts->len);
        g_ptr_array_free(parts, TRUE);
    }
    g_ptr_array_free(ids, TRUE);
    return r;
}

char *lic_reference(const char *text, size_t len)
{
    static const char *const leads[] = {"see copyright notice in ", "see the file ",
                                        "see the copyright notice in ", "see license in ", NULL};
    g_autofree char *t = normalise(text, len < NOTICE_WINDOW ? len : NOTICE_WINDOW);
    for (const char *const *l = leads; *l; l++) {
        const char *at = strstr(t, *l);
        if (!at)
            continue;
        at += strlen(*l);
        size_t n = 0;
        while (at[n] && (g_ascii_isalnum(at[n]) || at[n] == '.' || at[n] == '_' || at[n] == '-'))
            n++;
        while (n && at[n - 1] == '.')
            n--; /* the sentence's full stop */
        if (n)
            return g_strndup(at, n);
    }
    return NULL;
}

/* An expression longer than this is taken as written (trimming is quadratic in its length). */
#define EXPR_MAX 4096

/* [s, s+n) without spaces at its ends and, while they enclose all of it, outer parentheses. */
static void trim_term(const char **s, size_t *n)
{
    while (*n <= EXPR_MAX) {
        while (*n && **s == ' ')
            (*s)++, (*n)--;
        while (*n && (*s)[*n - 1] == ' ')
            (*n)--;
        if (*n < 2 || **s != '(' || (*s)[*n - 1] != ')')
            return;
        int depth = 0;
        for (size_t i = 0; i + 1 < *n; i++) {
            depth += (*s)[i] == '(' ? 1 : (*s)[i] == ')' ? -1 : 0;
            if (depth == 0)
                return; /* "(A) OR (B)": the first ')' closes before the end */
        }
        (*s)++;
        *n -= 2;
    }
}

/* Where [s, s+n) has `op` at the top level (outside parentheses), or -1. */
static gssize top_level(const char *s, size_t n, const char *op)
{
    size_t ol = strlen(op);
    int depth = 0;
    for (size_t i = 0; i + ol <= n; i++) {
        if (depth == 0 && !memcmp(s + i, op, ol))
            return (gssize)i;
        depth += s[i] == '(' ? 1 : s[i] == ')' ? -1 : 0;
    }
    return -1;
}

/* Nesting deeper than this is compared as written (a crafted expression of 2 000 parentheses
 * is not recursed into 2 000 deep). */
#define CANON_DEPTH_MAX 32

/* The expression in canonical form: lower case; at each level of nesting its members across
 * the level's operator (" and " or " or ") canonical in turn, sorted, deduplicated and
 * joined by it, a compound member in parentheses — so "(A AND B) OR C" and "A AND (B OR C)"
 * stay apart, and "C OR (B AND A)" is the first. */
static char *canonical(const char *s, size_t n, int depth)
{
    trim_term(&s, &n);
    g_autofree char *low = g_ascii_strdown(s, (gssize)n);
    if (depth > CANON_DEPTH_MAX || n > EXPR_MAX)
        return g_strdup(low);
    const char *op = " and ";
    if (top_level(low, n, op) < 0) {
        op = " or ";
        if (top_level(low, n, op) < 0)
            return g_strdup(low); /* one license, or one WITH its exception */
    }
    size_t ol = strlen(op);
    GPtrArray *parts = g_ptr_array_new_with_free_func(g_free);
    const char *rest = low;
    size_t left = n;
    for (;;) {
        gssize at = top_level(rest, left, op);
        size_t len = at < 0 ? left : (size_t)at;
        char *c = canonical(rest, len, depth + 1);
        bool compound = strstr(c, " and ") || strstr(c, " or ");
        char *member = compound ? g_strdup_printf("(%s)", c) : g_strdup(c);
        add(parts, member);
        g_free(member);
        g_free(c);
        if (at < 0)
            break;
        rest += len + ol;
        left -= len + ol;
    }
    g_ptr_array_sort(parts, str_cmp);
    GString *r = g_string_new(NULL);
    for (guint k = 0; k < parts->len; k++)
        g_string_append_printf(r, "%s%s", k ? op : "", (char *)parts->pdata[k]);
    g_ptr_array_free(parts, TRUE);
    return g_string_free(r, FALSE);
}

/* s with every run of whitespace one space, none just inside a parenthesis. */
static char *squeeze(const char *s)
{
    GString *r = g_string_sized_new(strlen(s));
    for (const char *p = s; *p; p++) {
        if (g_ascii_isspace(*p)) {
            while (g_ascii_isspace(p[1]))
                p++;
            if (r->len && r->str[r->len - 1] != '(' && p[1] != ')' && p[1])
                g_string_append_c(r, ' ');
            continue;
        }
        g_string_append_c(r, *p);
    }
    return g_string_free(r, FALSE);
}

bool lic_same(const char *a, const char *b)
{
    g_autofree char *sa = squeeze(a);
    g_autofree char *sb = squeeze(b);
    g_autofree char *ca = canonical(sa, strlen(sa), 0);
    g_autofree char *cb = canonical(sb, strlen(sb), 0);
    return !strcmp(ca, cb);
}

char *lic_and_all(const char *const *exprs, size_t n)
{
    GPtrArray *members = g_ptr_array_new_with_free_func(g_free);
    GHashTable *seen = g_hash_table_new(g_str_hash, g_str_equal);
    for (size_t k = 0; k < n; k++) {
        const char *e = exprs[k];
        if (!e)
            continue;
        size_t len = strlen(e);
        const char *s = e;
        size_t sl = len;
        trim_term(&s, &sl);
        int depth = 0;
        size_t start = 0;
        for (size_t i = 0; i <= sl; i++) {
            if (i == sl || (depth == 0 && i + 5 <= sl && !memcmp(s + i, " AND ", 5))) {
                const char *m = s + start;
                size_t ml = i - start;
                trim_term(&m, &ml);
                if (ml) {
                    g_autofree char *one = g_strndup(m, ml);
                    add_seen(members, seen, one);
                }
                start = i + 5;
                i += 4;
                continue;
            }
            depth += s[i] == '(' ? 1 : s[i] == ')' ? -1 : 0;
        }
    }
    g_hash_table_destroy(seen);
    char *r = join_and(members);
    g_ptr_array_free(members, TRUE);
    return r;
}
