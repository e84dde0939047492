/* libFuzzer target: escaping never lets a newline or a control byte through, and JSON strings
 * keep every input byte recoverable (one escape or one valid UTF-8 sequence per input unit). */
#include "textout.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    GString *t = g_string_new(NULL);
    text_escape(t, (const char *)data, size);
    for (size_t i = 0; i < t->len; i++)
        if ((unsigned char)t->str[i] < 0x20 || t->str[i] == 0x7f)
            abort();
    g_string_truncate(t, 0);
    text_argv(t, (const char *)data, size);
    if (memchr(t->str, '\n', t->len))
        abort();
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
