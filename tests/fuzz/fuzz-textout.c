/* libFuzzer target: escaping never lets a newline or a control byte through, a command line
 * holds no control byte nor invalid UTF-8 and reads back (as a shell reads '...' and $'...')
 * to the very argv, and JSON strings keep every input byte recoverable (one escape or one
 * valid UTF-8 sequence per input unit). */
#include "textout.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The words of a command line as a shell reads them (only the forms text_argv writes: bare,
 * '...', \', $'...' with \xNN \n \t \r \' \\), NUL-terminated each; NULL if it is not one. */
static GString *shell_words(const char *s, size_t len)
{
    GString *out = g_string_new(NULL);
    size_t i = 0;
    while (i < len) {
        while (i < len && s[i] != ' ') {
            if (s[i] == '\'') {
                const char *e = memchr(s + i + 1, '\'', len - i - 1);
                if (!e)
                    goto bad;
                g_string_append_len(out, s + i + 1, e - (s + i + 1));
                i = (size_t)(e - s) + 1;
            } else if (s[i] == '$' && i + 1 < len && s[i + 1] == '\'') {
                for (i += 2; i < len && s[i] != '\''; i++) {
                    if (s[i] != '\\') {
                        g_string_append_c(out, s[i]);
                        continue;
                    }
                    if (++i >= len)
                        goto bad;
                    char c = s[i];
                    if (c == 'x' && i + 2 < len && g_ascii_isxdigit(s[i + 1]) &&
                        g_ascii_isxdigit(s[i + 2])) {
                        g_string_append_c(out, (char)(g_ascii_xdigit_value(s[i + 1]) * 16 +
                                                      g_ascii_xdigit_value(s[i + 2])));
                        if (i + 3 < len && g_ascii_isxdigit(s[i + 3]))
                            goto bad; /* ksh93 would read a third digit */
                        i += 2;
                    } else if (strchr("nrt'\\", c)) {
                        g_string_append_c(out, c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c);
                    } else {
                        goto bad;
                    }
                }
                if (i >= len)
                    goto bad;
                i++;
            } else if (s[i] == '\\' && i + 1 < len && s[i + 1] == '\'') { /* '\'' */
                g_string_append_c(out, '\'');
                i += 2;
            } else if (strchr("\\\"$`!*?[]{}()<>|&;~#\t\n", s[i])) {
                goto bad; /* a character a shell would act on, bare */
            } else {
                g_string_append_c(out, s[i++]);
            }
        }
        g_string_append_c(out, '\0');
        i++; /* the space */
    }
    return out;
bad:
    g_string_free(out, TRUE);
    return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    GString *t = g_string_new(NULL);
    text_escape(t, (const char *)data, size);
    for (size_t i = 0; i < t->len; i++)
        if ((unsigned char)t->str[i] < 0x20 || t->str[i] == 0x7f)
            abort();
    g_string_truncate(t, 0);
    text_argv(t, (const char *)data, size);
    for (size_t i = 0; i < t->len; i++)
        if ((unsigned char)t->str[i] < 0x20 || t->str[i] == 0x7f)
            abort();
    if (!g_utf8_validate(t->str, (gssize)t->len, NULL))
        abort();
    if (size && data[size - 1] == '\0') {
        GString *back = shell_words(t->str, t->len); /* the argv again, word for word */
        if (!back || back->len != size || memcmp(back->str, data, size))
            abort();
        g_string_free(back, TRUE);
    }
    g_string_truncate(t, 0);
    json_string(t, (const char *)data, size);
    if (t->len < 2 || t->str[0] != '"' || t->str[t->len - 1] != '"')
        abort();
    for (size_t i = 1; i + 1 < t->len; i++) {
        unsigned char c = (unsigned char)t->str[i];
        if (c < 0x20)
            abort();
        if (c == '"' && t->str[i - 1] != '\\')
            abort();
    }
    if (!g_utf8_validate(t->str, (gssize)t->len, NULL))
        abort();
    g_string_free(t, TRUE);
    return 0;
}
