/* redact — see redact.h for the rules. */
#include "redact.h"

#include <glib.h>
#include <string.h>

const char *const redact_default_options[] = {"--password", "--passwd", "--passphrase", "--token",
                                              NULL};

/* Parts that make a name secret wherever they are in it. */
static const char *const secret_parts[] = {"TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE",
                                           "PASSCODE", "CREDENTIAL", "APIKEY", "PRIVATEKEY",
                                           "JWT", "COOKIE", "SESSION", NULL};
/* Words that make a name secret when they are a whole word of it. */
static const char *const secret_words[] = {"KEY", "KEYS", "PAT", "PASS", "PWD", "PW", NULL};
/* Words ending in PASS that name no password. */
static const char *const pass_words[] = {"ASKPASS", "BYPASS", "COMPASS", "SURPASS", NULL};

static bool ends_with(const char *s, size_t len, const char *suffix)
{
    size_t l = strlen(suffix);
    return len >= l && memcmp(s + len - l, suffix, l) == 0;
}

/* Whether the NUL-terminated upper-case name `up` looks like a secret. */
static bool upper_name_is_secret(const char *up)
{
    for (const char *const *p = secret_parts; *p; p++)
        if (strstr(up, *p))
            return true;
    if (!strcmp(up, "PWD"))
        return false; /* the shell's current directory */
    for (const char *w = up; *w;) {
        if (!g_ascii_isalnum(*w)) {
            w++;
            continue;
        }
        size_t n = 0;
        while (g_ascii_isalnum(w[n]))
            n++;
        for (const char *const *p = secret_words; *p; p++)
            if (strlen(*p) == n && !memcmp(w, *p, n))
                return true;
        /* A word ending in PASS (SSHPASS, DBPASS), but not a helper program or a bypass. */
        if (ends_with(w, n, "PASS")) {
            bool plain = false;
            for (const char *const *p = pass_words; *p && !plain; p++)
                plain = strlen(*p) == n && !memcmp(w, *p, n);
            if (!plain)
                return true;
        }
        /* AUTH in a word, but not an author's name or date (GIT_AUTHOR_NAME, COAUTHORS). */
        const char *a = g_strstr_len(w, (gssize)n, "AUTH");
        if (a && !ends_with(w, n, "AUTHOR") && !ends_with(w, n, "AUTHORS"))
            return true;
        w += n;
    }
    return false;
}

bool redact_env_name_is_secret(const char *name)
{
    g_autofree char *up = g_ascii_strup(name, -1);
    return upper_name_is_secret(up);
}

bool redact_option_valid(const char *opt)
{
    return opt && opt[0] == '-' && opt[1] && strcmp(opt, "--") != 0 && !strchr(opt, '=');
}

static bool is_ssh_scheme(const char *s, size_t len)
{
    static const char *const ssh[] = {"ssh", "sftp", "git+ssh", "ssh+git", "svn+ssh", NULL};
    for (const char *const *p = ssh; *p; p++)
        if (strlen(*p) == len && !g_ascii_strncasecmp(s, *p, len))
            return true;
    return false;
}

static bool ends_authority(char c)
{
    return c == '/' || c == '?' || c == '#' || c == '"' || c == '\'' || c == '`' ||
           g_ascii_isspace(c) || c == '\0';
}

/* Append s[0..len) to out with the credentials of every URL in it replaced.  The next URL is
 * looked for from just after this one's "://" (or its '@'), not from the end of its
 * authority: that ends at the first '/', which may be the first of the next URL's "://"
 * (`https://mirror,https://user:pass@host`, as GOPROXY and pip's index lists have them). */
static void append_without_credentials(GString *out, const char *s, size_t len)
{
    size_t done = 0; /* s[0..done) is in out */
    for (size_t from = 0; from + 3 <= len;) {
        const char *hit = memmem(s + from, len - from, "://", 3);
        if (!hit)
            break;
        size_t i = (size_t)(hit - s);
        size_t scheme = i;
        while (scheme > done && (g_ascii_isalnum(s[scheme - 1]) || s[scheme - 1] == '+' ||
                                 s[scheme - 1] == '-' || s[scheme - 1] == '.'))
            scheme--;
        size_t auth = i + 3, end = auth, at = 0;
        bool have_at = false;
        while (end < len && !ends_authority(s[end])) {
            if (s[end] == '@') {
                at = end;
                have_at = true;
            }
            end++;
        }
        from = auth;
        if (!have_at || at == auth)
            continue;
        const char *colon = memchr(s + auth, ':', at - auth);
        if (colon) {
            size_t keep = (size_t)(colon + 1 - s);
            g_string_append_len(out, s + done, (gssize)(keep - done));
            if (at > keep)
                g_string_append(out, REDACT_MARK);
        } else if (is_ssh_scheme(s + scheme, i - scheme)) {
            g_string_append_len(out, s + done, (gssize)(at - done));
        } else {
            g_string_append_len(out, s + done, (gssize)(auth - done));
            g_string_append(out, REDACT_MARK);
        }
        done = from = at;
    }
    g_string_append_len(out, s + done, (gssize)(len - done));
}

/* HTTP headers that carry a credential, as given to curl -H, wget --header and git -c
 * http.extraHeader=, or set in GIT_CONFIG_VALUE_n (lower case; compared in any case). */
static const char *const secret_headers[] = {"authorization", "proxy-authorization", "cookie",
                                             "private-token", "job-token", "deploy-token",
                                             "x-api-key", "x-auth-token", NULL};

/* The secret header whose name ends at s[colon] (a ':') and starts a word there (the text's
 * start, or after white space, '=', or a quote): true, or false. */
static bool header_before(const char *s, size_t colon)
{
    for (const char *const *h = secret_headers; *h; h++) {
        size_t l = strlen(*h);
        if (colon < l || g_ascii_strncasecmp(s + colon - l, *h, l) != 0)
            continue;
        size_t b = colon - l;
        if (b == 0 || g_ascii_isspace(s[b - 1]) || strchr("='\"", s[b - 1]))
            return true;
    }
    return false;
}

/* Where the credential of the header whose ':' is at s[colon] begins and, in *end, ends (the
 * text's end, a line's or a quote): past an alphabetic scheme word (Bearer, Basic, token)
 * followed by more; `colon + 1` when the value is empty. */
static size_t header_value(const char *s, size_t len, size_t colon, size_t *end)
{
    size_t v = colon + 1;
    while (v < len && (s[v] == ' ' || s[v] == '\t'))
        v++;
    size_t e = v;
    while (e < len && s[e] && !strchr("\r\n'\"", s[e]))
        e++;
    *end = e;
    size_t w = v;
    while (w < e && g_ascii_isalpha(s[w]))
        w++;
    if (w > v && w < e && s[w] == ' ') {
        while (w < e && s[w] == ' ')
            w++;
        if (w < e)
            return w;
    }
    return v;
}

/* Append s[0..len) with the values of secret HTTP headers (`Authorization: Bearer X` ->
 * `Authorization: Bearer REDACTED`) and URL credentials replaced. */
static void append_without_secrets(GString *out, const char *s, size_t len)
{
    const char *colon = memchr(s, ':', len);
    if (!colon) {
        g_string_append_len(out, s, (gssize)len);
        return;
    }
    GString *tmp = NULL;
    size_t done = 0;
    for (; colon; colon = memchr(colon + 1, ':', len - (size_t)(colon + 1 - s))) {
        size_t c = (size_t)(colon - s), end;
        if (c < done || !header_before(s, c))
            continue;
        size_t v = header_value(s, len, c, &end);
        if (end <= v)
            continue;
        if (!tmp)
            tmp = g_string_sized_new(len + 1);
        g_string_append_len(tmp, s + done, (gssize)(v - done));
        g_string_append(tmp, REDACT_MARK);
        done = end;
        if (end >= len)
            break;
        colon = s + end - 1;
    }
    if (!tmp) {
        append_without_credentials(out, s, len);
        return;
    }
    g_string_append_len(tmp, s + done, (gssize)(len - done));
    append_without_credentials(out, tmp->str, tmp->len);
    g_string_free(tmp, TRUE);
}

char *redact_env(const char *env, size_t len, char *const *globs, size_t *out_len)
{
    GString *out = g_string_sized_new(len + 1);
    guint n_globs = globs ? g_strv_length((char **)globs) : 0;
    char **upper_globs = g_new0(char *, n_globs + 1);
    for (guint k = 0; k < n_globs; k++)
        upper_globs[k] = g_ascii_strup(globs[k], -1);
    for (size_t at = 0; at < len;) {
        const char *entry = env + at;
        size_t elen = strnlen(entry, len - at);
        at += elen + (at + elen < len ? 1 : 0);
        if (!elen)
            continue;
        const char *eq = memchr(entry, '=', elen);
        if (!eq || eq == entry) {
            g_string_append_len(out, entry, (gssize)elen);
            g_string_append_c(out, '\0');
            continue;
        }
        size_t nlen = (size_t)(eq - entry);
        char small[256];
        char *upper = nlen < sizeof small ? small : g_malloc(nlen + 1);
        for (size_t k = 0; k < nlen; k++)
            upper[k] = g_ascii_toupper(entry[k]);
        upper[nlen] = '\0';
        bool secret = upper_name_is_secret(upper);
        for (char **p = upper_globs; !secret && *p; p++)
            secret = g_pattern_match_simple(*p, upper);
        if (upper != small)
            g_free(upper);
        if (secret) {
            g_string_append_len(out, entry, eq - entry); /* the name alone */
        } else {
            g_string_append_len(out, entry, eq + 1 - entry);
            append_without_secrets(out, eq + 1, elen - (size_t)(eq + 1 - entry));
        }
        g_string_append_c(out, '\0');
    }
    g_strfreev(upper_globs);
    *out_len = out->len;
    return g_string_free(out, FALSE);
}

/* Whether `arg` (len bytes) is option `opt` with its value attached: the byte count of the
 * part kept ("--opt=" or "-p"), or 0. */
static size_t attached_value(const char *arg, size_t len, const char *opt)
{
    size_t l = strlen(opt);
    if (len > l + 1 && !memcmp(arg, opt, l) && arg[l] == '=')
        return l + 1;
    if (l == 2 && opt[1] != '-' && len > 2 && !memcmp(arg, opt, 2))
        return 2;
    return 0;
}

static bool is_option(const char *arg, size_t len, const char *opt)
{
    return strlen(opt) == len && !memcmp(arg, opt, len);
}

static bool word_start(const char *s, size_t i)
{
    return i == 0 || g_ascii_isspace(s[i - 1]) || strchr("'\";&|(`", s[i - 1]);
}

static bool value_ends(char c)
{
    return g_ascii_isspace(c) || strchr(";&|)'\"`", c);
}

/* The option of `opts` that starts s[i..len) as a word and is followed by '=' or white space
 * and a value: where the value begins (its opening quote, if quoted), or 0. */
static size_t embedded_value(const char *s, size_t len, size_t i, const char *opt)
{
    size_t l = strlen(opt);
    if (!word_start(s, i) || i + l >= len || memcmp(s + i, opt, l) != 0)
        return 0;
    size_t v = i + l;
    if (s[v] == '=') {
        v++;
    } else if (s[v] == ' ' || s[v] == '\t') {
        while (v < len && (s[v] == ' ' || s[v] == '\t'))
            v++;
    } else {
        return 0;
    }
    return v < len && !g_ascii_isspace(s[v]) && !strchr(";&|)`", s[v]) ? v : 0;
}

/* The first option of the defaults or `options` at or after s[i] with a value (see
 * embedded_value): where its value begins, and *at where the option does; 0 when none. */
static size_t find_option_value(const char *s, size_t len, size_t i, char *const *options,
                                size_t *at)
{
    for (; i < len; i++) {
        const char *dash = memchr(s + i, '-', len - i); /* every option starts with one */
        if (!dash)
            return 0;
        i = (size_t)(dash - s);
        size_t v = 0;
        for (const char *const *p = redact_default_options; !v && *p; p++)
            v = embedded_value(s, len, i, *p);
        for (char *const *p = options; p && !v && *p; p++)
            v = embedded_value(s, len, i, *p);
        if (v) {
            if (at)
                *at = i;
            return v;
        }
    }
    return 0;
}

/* Append s[0..len) — an argument that may be a whole command line (`sh -c 'mysql
 * --password=x'`, as make runs every recipe) — with the value of every option named in it
 * replaced: `OPT=VALUE` and `OPT VALUE`, VALUE up to white space or a shell operator, or the
 * closing quote when it is quoted. */
static void append_without_option_values(GString *out, const char *s, size_t len,
                                         char *const *options)
{
    size_t done = 0, at = 0, v;
    while ((v = find_option_value(s, len, at, options, &at))) {
        size_t end = v;
        if (s[v] == '\'' || s[v] == '"') {
            const char *q = memchr(s + v + 1, s[v], len - v - 1);
            v++;
            end = q ? (size_t)(q - s) : len;
        } else {
            while (end < len && !value_ends(s[end]))
                end++;
        }
        g_string_append_len(out, s + done, (gssize)(v - done));
        g_string_append(out, REDACT_MARK);
        done = at = end; /* past the option: end > v > at */
    }
    g_string_append_len(out, s + done, (gssize)(len - done));
}

char *redact_argv(const char *argv, size_t len, char *const *options, size_t *out_len)
{
    GString *out = g_string_sized_new(len + 1);
    bool value_next = false;
    for (size_t at = 0; at < len;) {
        const char *arg = argv + at;
        size_t alen = strnlen(arg, len - at);
        bool nul = at + alen < len;
        at += alen + (nul ? 1 : 0);
        if (value_next) {
            value_next = false;
            if (alen)
                g_string_append(out, REDACT_MARK);
        } else {
            size_t keep = 0;
            for (const char *const *p = redact_default_options; !keep && !value_next && *p; p++) {
                keep = attached_value(arg, alen, *p);
                value_next = is_option(arg, alen, *p);
            }
            for (char *const *p = options; p && !keep && !value_next && *p; p++) {
                keep = attached_value(arg, alen, *p);
                value_next = is_option(arg, alen, *p);
            }
            if (keep) {
                g_string_append_len(out, arg, (gssize)keep);
                g_string_append(out, REDACT_MARK);
            } else if (value_next) {
                g_string_append_len(out, arg, (gssize)alen);
            } else if (!find_option_value(arg, alen, 0, options, NULL)) {
                append_without_secrets(out, arg, alen); /* the common case */
            } else {
                GString *tmp = g_string_sized_new(alen + 1);
                append_without_option_values(tmp, arg, alen, options);
                append_without_secrets(out, tmp->str, tmp->len);
                g_string_free(tmp, TRUE);
            }
        }
        if (nul)
            g_string_append_c(out, '\0');
    }
    *out_len = out->len;
    return g_string_free(out, FALSE);
}
