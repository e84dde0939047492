/* lines — walk the lines of a byte buffer in place (the parsers' shared loop).
 *
 * Contract: lines_next() yields each line without its '\n' (a last line without one too), as a
 * pointer into the buffer and a length; the buffer need not be NUL-terminated nor text.  No
 * allocation, no errors.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

struct lines {
    const char *text;
    size_t len, at;
};

static inline bool lines_next(struct lines *it, const char **line, size_t *len)
{
    if (it->at >= it->len)
        return false;
    const char *s = it->text + it->at;
    const char *nl = memchr(s, '\n', it->len - it->at);
    size_t l = nl ? (size_t)(nl - s) : it->len - it->at;
    it->at += l + (nl ? 1 : 0);
    *line = s;
    *len = l;
    return true;
}
