/* archive-ar — ar headers: the common format (a .deb, a static library), GNU's names
 * ("name/", the long-name table "//" and references "/N", the symbol index "/" and
 * "/SYM64/") and BSD's ("#1/N": the name in the first N bytes of the content;
 * "__.SYMDEF"). */
#include "archive-internal.h"

#include <errno.h>
#include <string.h>

#define AR_HEADER 60

/* A decimal (base 10) or octal (base 8) field: digits then spaces; all spaces is 0. */
static gboolean ar_number(const uint8_t *f, size_t len, unsigned base, uint64_t *out)
{
    size_t i = 0;
    uint64_t v = 0;
    for (; i < len && f[i] >= '0' && f[i] < '0' + base; i++) {
        if (v > UINT64_MAX / 16)
            return FALSE;
        v = v * base + (uint64_t)(f[i] - '0');
    }
    for (; i < len; i++)
        if (f[i] != ' ')
            return FALSE;
    *out = v;
    return TRUE;
}

/* "/N": the name at N in the long-name table, ended by "/\n" (or "\n"). */
static int ar_long_name(struct archive_reader *r, const char *ref, uint64_t at)
{
    uint64_t off;
    if (!ar_number((const uint8_t *)ref, strlen(ref), 10, &off) || off >= r->longnames->len)
        return arc_fail(r, -EINVAL, NULL, "ar name %s at offset %" G_GUINT64_FORMAT
                        " is not in the long-name table", ref, at);
    const char *s = r->longnames->str + off;
    size_t len = strcspn(s, "\n");
    if (len && s[len - 1] == '/')
        len--;
    g_string_truncate(r->name, 0);
    g_string_append_len(r->name, s, (gssize)len);
    return 0;
}

static int ar_header(struct archive_reader *r, const uint8_t *h, uint64_t at, uint64_t *size)
{
    uint64_t mtime, uid, gid, mode;
    if (memcmp(h + 58, "`\n", 2) != 0 || !ar_number(h + 16, 12, 10, &mtime) ||
        !ar_number(h + 28, 6, 10, &uid) || !ar_number(h + 34, 6, 10, &gid) ||
        !ar_number(h + 40, 8, 8, &mode) || !ar_number(h + 48, 10, 10, size) ||
        mtime > INT64_MAX)
        return arc_fail(r, -EINVAL, NULL, "bad ar header at offset %" G_GUINT64_FORMAT, at);
    struct archive_member *m = &r->m;
    m->type = ARCHIVE_FILE;
    m->link = m->uname = m->gname = NULL;
    m->mode = (uint32_t)mode & 07777;
    m->uid = (int64_t)uid;
    m->gid = (int64_t)gid;
    m->mtime = (int64_t)mtime;
    m->mtime_nsec = 0;
    m->devmajor = m->devminor = 0;
    m->offset = at;
    return 0;
}

/* The member's name; *size less a BSD name read from the content. */
static int ar_name(struct archive_reader *r, const uint8_t *h, uint64_t at, uint64_t *size)
{
    char raw[17];
    memcpy(raw, h, 16);
    raw[16] = 0;
    for (int i = 15; i >= 0 && raw[i] == ' '; i--)
        raw[i] = 0;
    g_string_assign(r->name, raw);
    if (strcmp(raw, "/") == 0 || strcmp(raw, "/SYM64/") == 0 ||
        g_str_has_prefix(raw, "__.SYMDEF")) {
        r->m.type = ARCHIVE_INDEX;
    } else if (raw[0] == '/' && raw[1]) {
        return ar_long_name(r, raw + 1, at);
    } else if (g_str_has_prefix(raw, "#1/")) {
        uint64_t n;
        if (!ar_number((const uint8_t *)raw + 3, strlen(raw + 3), 10, &n) || n > *size)
            return arc_fail(r, -EINVAL, NULL, "bad BSD ar name %s at offset %" G_GUINT64_FORMAT,
                            raw, at);
        if (arc_read_blob(r, r->name, n, "BSD ar name", NULL) < 0)
            return r->err;
        g_string_truncate(r->name, strnlen(r->name->str, r->name->len));
        *size -= n;
        if (g_str_has_prefix(r->name->str, "__.SYMDEF"))
            r->m.type = ARCHIVE_INDEX;
    } else {
        size_t len = strlen(raw);
        if (len > 1 && raw[len - 1] == '/')
            g_string_truncate(r->name, len - 1);
    }
    return 0;
}

/* 1: a member in r->m; 0: the end; <0: an error. */
int arc_ar_next(struct archive_reader *r)
{
    if (!r->started) {
        uint8_t magic[8];
        if (arc_read_full(r, magic, 8) != 8)
            return r->err ? r->err : arc_fail(r, -EINVAL, NULL, "truncated ar magic");
        r->started = TRUE;
    }
    for (;;) {
        uint8_t h[AR_HEADER];
        uint64_t at = r->pos, size = 0;
        gssize n = arc_read_full(r, h, AR_HEADER);
        if (n < 0)
            return (int)n;
        if (n == 0)
            return 0;
        if (n < AR_HEADER)
            return arc_fail(r, -EINVAL, NULL, "truncated ar header at offset %" G_GUINT64_FORMAT, at);
        if (arc_count_member(r, NULL) < 0 || ar_header(r, h, at, &size) < 0)
            return r->err;
        if (memcmp(h, "//              ", 16) == 0) {
            if (arc_read_blob(r, r->longnames, size, "ar long-name table", NULL) < 0)
                return r->err;
            if (size & 1) {
                uint8_t pad;
                if (arc_read_full(r, &pad, 1) < 0)
                    return r->err;
            }
            continue;
        }
        uint64_t total = size;
        if (ar_name(r, h, at, &size) < 0)
            return r->err;
        if (!r->name->len)
            return arc_fail(r, -EINVAL, NULL, "an ar member without a name at offset %"
                            G_GUINT64_FORMAT, at);
        r->m.name = r->name->str;
        r->m.size = size;
        arc_begin_member(r, size, total & 1);
        return 1;
    }
}
