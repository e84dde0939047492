/* textout — see textout.h. */
#include "textout.h"

#include <stdbool.h>
#include <string.h>
#include <time.h>

/* Length of the valid UTF-8 sequence at s (at most len bytes), or 0 if invalid. */
static size_t utf8_seq(const unsigned char *s, size_t len)
{
    unsigned char c = s[0];
    size_t n;
    unsigned cp;
    if (c < 0x80)
        return 1;
    else if ((c & 0xe0) == 0xc0)
        n = 2, cp = c & 0x1f;
    else if ((c & 0xf0) == 0xe0)
        n = 3, cp = c & 0x0f;
    else if ((c & 0xf8) == 0xf0)
        n = 4, cp = c & 0x07;
    else
        return 0;
    if (n > len)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    /* Reject overlong forms, surrogates and values past U+10FFFF. */
    if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
        cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

/* How one output form spells what cannot appear as is. */
struct escape_style {
    const char *invalid; /* prefix of the two hex digits for a byte that is not valid UTF-8 */
    const char *control; /* prefix of the two hex digits for another control byte */
    bool quote;          /* escape '"' */
};

static const struct escape_style text_style = {"\\x", "\\x", false};
static const struct escape_style json_style = {"\\udc", "\\u00", true};

static void append_hex2(GString *out, const char *prefix, unsigned char c)
{
    static const char digits[] = "0123456789abcdef";
    g_string_append(out, prefix);
    g_string_append_c(out, digits[c >> 4]);
    g_string_append_c(out, digits[c & 15]);
}

static void escape_with(GString *out, const char *s, size_t len, const struct escape_style *st)
{
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < len;) {
        size_t plain = i; /* a run of printable ASCII that needs no escape, appended at once */
        while (plain < len && u[plain] >= 0x20 && u[plain] < 0x7f && u[plain] != '\\' &&
               (u[plain] != '"' || !st->quote))
            plain++;
        if (plain > i) {
            g_string_append_len(out, s + i, (gssize)(plain - i));
            i = plain;
            continue;
        }
        unsigned char c = u[i];
        size_t n = utf8_seq(u + i, len - i);
        if (n == 0) {
            append_hex2(out, st->invalid, c);
            i++;
            continue;
        }
        if (n > 1)
            g_string_append_len(out, s + i, (gssize)n);
        else if (c == '\\')
            g_string_append(out, "\\\\");
        else if (c == '"' && st->quote)
            g_string_append(out, "\\\"");
        else if (c == '\n')
            g_string_append(out, "\\n");
        else if (c == '\t')
            g_string_append(out, "\\t");
        else if (c == '\r')
            g_string_append(out, "\\r");
        else if (c < 0x20 || c == 0x7f)
            append_hex2(out, st->control, c);
        else
            g_string_append_c(out, (char)c);
        i += n;
    }
}

void text_escape(GString *out, const char *s, size_t len)
{
    escape_with(out, s, len, &text_style);
}

char *text_escaped(const char *s)
{
    GString *out = g_string_new(NULL);
    text_escape(out, s, strlen(s));
    return g_string_free(out, FALSE);
}

/* Whether the valid UTF-8 sequence s[0..n) must not stand as itself in a pasted command line:
 * a control character (C0, DEL, C1: a terminal acts on U+009B as on ESC [), a line or
 * paragraph separator, or a bidirectional override that shows the words in another order. */
static bool unprintable_seq(const unsigned char *s, size_t n)
{
    if (n == 1)
        return s[0] < 0x20 || s[0] == 0x7f;
    if (n == 2)
        return s[0] == 0xc2 && s[1] < 0xa0; /* U+0080..U+009F */
    if (n == 3 && s[0] == 0xe2 && s[1] == 0x80) /* U+200E..U+200F, U+2028..U+202E */
        return s[2] == 0x8e || s[2] == 0x8f || (s[2] >= 0xa8 && s[2] <= 0xae);
    if (n == 3 && s[0] == 0xe2 && s[1] == 0x81) /* U+2066..U+2069 */
        return s[2] >= 0xa6 && s[2] <= 0xa9;
    return false;
}

/* A word in ANSI-C quotes, $'...', as bash, zsh, ksh and POSIX.1-2024 sh read them: every
 * byte that is not printable valid UTF-8 as \xNN, newline, tab and CR by name, '\'' and '\\'
 * escaped, and '!' (bash's history expansion) as \x21.  A hex digit right after an \xNN is
 * itself written \xNN: ksh93 reads as many hex digits as follow. */
static void dollar_quote(GString *out, const char *s, size_t len)
{
    const unsigned char *u = (const unsigned char *)s;
    bool after_hex = false;
    g_string_append(out, "$'");
    for (size_t i = 0; i < len;) {
        size_t n = utf8_seq(u + i, len - i);
        bool bytes = n == 0 || unprintable_seq(u + i, n) || u[i] == '!' ||
                     (after_hex && g_ascii_isxdigit(u[i]));
        if (!n)
            n = 1;
        after_hex = false;
        if (!bytes) {
            if (u[i] == '\'' || u[i] == '\\')
                g_string_append_c(out, '\\');
            g_string_append_len(out, s + i, (gssize)n);
        } else if (u[i] == '\n' || u[i] == '\t' || u[i] == '\r') {
            g_string_append(out, u[i] == '\n' ? "\\n" : u[i] == '\t' ? "\\t" : "\\r");
        } else {
            for (size_t k = 0; k < n; k++)
                append_hex2(out, "\\x", u[i + k]);
            after_hex = true;
        }
        i += n;
    }
    g_string_append_c(out, '\'');
}

void text_quote_arg(GString *out, const char *s, size_t len)
{
    const unsigned char *u = (const unsigned char *)s;
    bool plain = len > 0, printable = true;
    for (size_t i = 0; i < len;) {
        size_t n = utf8_seq(u + i, len - i);
        if (n == 0 || unprintable_seq(u + i, n)) {
            printable = false;
            break;
        }
        plain = plain && n == 1 && (g_ascii_isalnum(u[i]) || strchr("-_./=:,+@%", u[i]));
        i += n;
    }
    if (!printable) {
        dollar_quote(out, s, len);
        return;
    }
    if (plain && s[0] != '=') { /* (zsh reads a bare =word as the path of the program word) */
        g_string_append_len(out, s, (gssize)len);
        return;
    }
    g_string_append_c(out, '\'');
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '\'')
            g_string_append(out, "'\\''");
        else
            g_string_append_c(out, s[i]);
    }
    g_string_append_c(out, '\'');
}

/* A shell reads a first word it would take for an assignment (A=b) or a reserved word
 * (time, if, ...) as such, not as the program to run: such a word is quoted. */
static bool special_first_word(const char *s, size_t len)
{
    static const char *const reserved[] = {"if", "then", "else", "elif", "fi", "do", "done",
                                           "case", "esac", "while", "until", "for", "in",
                                           "function", "select", "time", "coproc", "foreach",
                                           "repeat", "end", "nocorrect", "noglob"};
    if (memchr(s, '=', len) || (len && s[0] == '%')) /* %1: an interactive shell's job 1 */
        return true;
    for (size_t i = 0; i < G_N_ELEMENTS(reserved); i++)
        if (strlen(reserved[i]) == len && !memcmp(reserved[i], s, len))
            return true;
    return false;
}

static void argv_word(GString *out, const char *s, size_t len, bool first)
{
    if (!first) {
        g_string_append_c(out, ' ');
        text_quote_arg(out, s, len);
        return;
    }
    size_t mark = out->len;
    text_quote_arg(out, s, len);
    if (out->len - mark == len && special_first_word(s, len)) { /* left bare: quote it */
        g_string_truncate(out, mark);
        g_string_append_c(out, '\'');
        g_string_append_len(out, s, (gssize)len);
        g_string_append_c(out, '\'');
    }
}

void text_argv(GString *out, const char *argv, size_t len)
{
    size_t start = 0;
    bool first = true;
    for (size_t i = 0; i < len; i++) {
        if (argv[i] != '\0')
            continue;
        argv_word(out, argv + start, i - start, first);
        first = false;
        start = i + 1;
    }
    if (start < len) /* no final NUL (a process that rewrote its argv) */
        argv_word(out, argv + start, len - start, first);
}

void json_string(GString *out, const char *s, size_t len)
{
    g_string_append_c(out, '"');
    escape_with(out, s, len, &json_style);
    g_string_append_c(out, '"');
}

void json_argv(GString *out, const char *argv, size_t len)
{
    g_string_append_c(out, '[');
    size_t start = 0;
    bool first = true;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && argv[i] != '\0')
            continue;
        if (i == len && start == len)
            break;
        if (!first)
            g_string_append_c(out, ',');
        json_string(out, argv + start, i - start);
        first = false;
        start = i + 1;
    }
    g_string_append_c(out, ']');
}

gboolean text_iso_utc(gint64 realtime_ns, char buf[32])
{
    time_t secs = (time_t)(realtime_ns / 1000000000);
    struct tm tm;
    buf[0] = '\0';
    return gmtime_r(&secs, &tm) && strftime(buf, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

gboolean text_rfc3339_ns(gint64 realtime_ns, char buf[40])
{
    buf[0] = '\0';
    if (realtime_ns < 0)
        return FALSE;
    time_t secs = (time_t)(realtime_ns / 1000000000);
    struct tm tm;
    char date[32];
    if (!gmtime_r(&secs, &tm) || !strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &tm))
        return FALSE;
    g_snprintf(buf, 40, "%s.%09dZ", date, (int)(realtime_ns % 1000000000));
    return TRUE;
}

void text_size(GString *out, gint64 bytes)
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB"};
    if (bytes < 1024) {
        g_string_append_printf(out, "%" G_GINT64_FORMAT " B", bytes);
        return;
    }
    double v = (double)bytes / 1024;
    size_t u = 0;
    while (v >= 1024 && u + 1 < G_N_ELEMENTS(units)) {
        v /= 1024;
        u++;
    }
    g_string_append_printf(out, "%.1f %s", v, units[u]);
}
