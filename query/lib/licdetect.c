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

static char *tags(const char *text, size_t len)
{
    GPtrArray *found = g_ptr_array_new_with_free_func(g_free);
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
            char *e = g_strndup(text + start, end - start);
            bool dup = false;
            for (guint k = 0; k < found->len && !dup; k++)
                dup = !strcmp(found->pdata[k], e);
            if (dup)
                g_free(e);
            else
                g_ptr_array_add(found, e);
        }
        i = j > (size_t)(at - text) ? j : (size_t)(at - text) + 1;
    }
    char *r = NULL;
    if (found->len == 1) {
        r = g_strdup(found->pdata[0]);
    } else if (found->len > 1) {
        GString *s = g_string_new(NULL);
        for (guint k = 0; k < found->len; k++) {
            const char *e = found->pdata[k];
            bool compound = strchr(e, ' ') != NULL;
            g_string_append_printf(s, "%s%s%s%s", k ? " AND " : "", compound ? "(" : "", e,
                                   compound ? ")" : "");
        }
        r = g_string_free(s, FALSE);
    }
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

static char *gpl_family(const char *t)
{
    bool later = has(t, "any later version") || has(t, "or later version");
    const char *family = NULL;
    if (has(t, "gnu lesser general public license") || has(t, "gnu library general public license"))
        family = has(t, "version 3") ? "LGPL-3.0" : has(t, "version 2.1") ? "LGPL-2.1" : "LGPL-2.0";
    else if (has(t, "gnu general public license") || has(t, "gnu gpl"))
        family = has(t, "version 3") ? "GPL-3.0" : has(t, "version 2") ? "GPL-2.0" : NULL;
    if (!family)
        return NULL;
    return g_strconcat(family, later ? "-or-later" : "-only", NULL);
}

static char *notice(const char *text, size_t len)
{
    g_autofree char *t = normalise(text, len < NOTICE_WINDOW ? len : NOTICE_WINDOW);
    char *gpl = gpl_family(t);
    if (gpl)
        return gpl;
    if (has(t, "licensed under the apache license, version 2.0") ||
        has(t, "apache license version 2.0") || has(t, "apache license, version 2.0"))
        return g_strdup("Apache-2.0");
    if (has(t, "mozilla public license, v. 2.0") || has(t, "mozilla public license version 2.0"))
        return g_strdup("MPL-2.0");
    if (has(t, "provided 'as-is', without any express or implied warranty") &&
        has(t, "altered source versions must be plainly marked"))
        return g_strdup("Zlib");
    if (has(t, "permission to use, copy, modify, and") &&
        has(t, "distribute this software for any purpose with or without fee is hereby granted"))
        return g_strdup("ISC");
    if (has(t, "permission is hereby granted, free of charge, to any person obtaining a copy"))
        return g_strdup("MIT");
    if (has(t, "redistribution and use in source and binary forms, with or without modification, "
               "are permitted provided that the following conditions are met")) {
        if (has(t, "neither the name") || has(t, "the names of its contributors may not be used"))
            return g_strdup("BSD-3-Clause");
        return g_strdup("BSD-2-Clause");
    }
    return NULL;
}

char *lic_detect(const char *text, size_t len)
{
    char *t = tags(text, len);
    return t ? t : notice(text, len);
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
