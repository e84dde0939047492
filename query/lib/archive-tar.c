/* archive-tar — tar headers: v7, ustar (its prefix), GNU (long names 'L' and links 'K',
 * base-256 numbers) and pax ('x' for the next member, 'g' for the rest).  Every number and
 * record is checked; damage is an error naming the member and its header's offset. */
#include "archive-internal.h"

#include <errno.h>
#include <string.h>

/* The header's checksum: the sum of its bytes with the field itself as spaces (unsigned, as
 * POSIX says, or signed, as old tars made it), and not an all-zero block. */
gboolean arc_tar_header_ok(const uint8_t *h)
{
    uint64_t want = 0;
    int digits = 0;
    for (int i = 148; i < 156 && h[i] != 0 && h[i] != ' '; i++) {
        if (h[i] < '0' || h[i] > '7')
            return FALSE;
        want = want * 8 + (uint64_t)(h[i] - '0');
        digits++;
    }
    for (int i = 148; digits && i < 156 && h[i] == ' '; i++)
        ;
    if (!digits)
        return FALSE;
    int64_t u = 0, s = 0;
    for (int i = 0; i < ARC_BLOCK; i++) {
        int c = i >= 148 && i < 156 ? ' ' : h[i];
        u += c;
        s += (signed char)c;
    }
    return u != 8 * ' ' && ((uint64_t)u == want || (uint64_t)s == want);
}

/* A numeric field: octal (leading spaces, ended by a space or NUL), or GNU base-256 (first
 * byte 0x80 positive, 0xff negative).  0 or -EINVAL (garbage, out of range). */
static int tar_number(const uint8_t *f, size_t len, int64_t *out)
{
    if (f[0] & 0x80) {
        if (f[0] != 0x80 && f[0] != 0xff)
            return -EINVAL;
        gboolean neg = f[0] == 0xff;
        uint64_t v = 0;
        for (size_t i = 1; i < len; i++) {
            if (v >> 55) /* another byte would overflow 63 bits */
                return -EINVAL;
            v = (v << 8) | (neg ? (uint8_t)~f[i] : f[i]);
        }
        if (v > (uint64_t)INT64_MAX)
            return -EINVAL;
        *out = neg ? -(int64_t)v - 1 : (int64_t)v;
        return 0;
    }
    size_t i = 0;
    while (i < len && f[i] == ' ')
        i++;
    uint64_t v = 0;
    for (; i < len && f[i] >= '0' && f[i] <= '7'; i++) {
        if (v >> 60)
            return -EINVAL;
        v = v * 8 + (uint64_t)(f[i] - '0');
    }
    for (; i < len; i++)
        if (f[i] != ' ' && f[i] != 0)
            return -EINVAL;
    *out = (int64_t)v;
    return 0;
}

/* A field's bytes up to its NUL. */
static void tar_string(GString *s, const uint8_t *f, size_t len)
{
    g_string_truncate(s, 0);
    g_string_append_len(s, (const char *)f, (gssize)strnlen((const char *)f, len));
}

static gboolean parse_decimal(const char *s, size_t len, gboolean sign, int64_t *out)
{
    gboolean neg = sign && len && s[0] == '-';
    size_t i = neg ? 1 : 0;
    if (i == len)
        return FALSE;
    uint64_t v = 0;
    for (; i < len; i++) {
        if (s[i] < '0' || s[i] > '9' || v > (uint64_t)INT64_MAX / 10)
            return FALSE;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (v > (uint64_t)INT64_MAX)
        return FALSE;
    *out = neg ? -(int64_t)v : (int64_t)v;
    return TRUE;
}

/* pax's mtime: [-]seconds[.fraction], the fraction kept to nanoseconds. */
static gboolean pax_time(const char *v, size_t len, int64_t *sec, uint32_t *nsec)
{
    const char *dot = memchr(v, '.', len);
    size_t ilen = dot ? (size_t)(dot - v) : len;
    if (!parse_decimal(v, ilen, TRUE, sec))
        return FALSE;
    *nsec = 0;
    if (!dot)
        return TRUE;
    uint32_t scale = 100000000;
    for (size_t i = ilen + 1; i < len; i++) {
        if (v[i] < '0' || v[i] > '9')
            return FALSE;
        *nsec += (uint32_t)(v[i] - '0') * scale;
        scale /= 10;
    }
    if (*sec < 0 && *nsec) { /* -1.5 is 2 seconds back and half of one forward */
        *sec -= 1;
        *nsec = 1000000000u - *nsec;
    }
    return TRUE;
}

static gboolean pax_string(GString *s, const char *v, size_t len)
{
    if (memchr(v, 0, len))
        return FALSE; /* names are C strings; a NUL inside one is crafted */
    g_string_truncate(s, 0);
    g_string_append_len(s, v, (gssize)len);
    return TRUE;
}

static gboolean pax_value(struct arc_pax *p, const char *k, size_t klen, const char *v, size_t vlen)
{
#define KEY(name) (klen == sizeof name - 1 && memcmp(k, name, klen) == 0)
    int64_t n;
    if (KEY("path"))
        return (p->has_path = pax_string(p->path, v, vlen));
    if (KEY("linkpath"))
        return (p->has_linkpath = pax_string(p->linkpath, v, vlen));
    if (KEY("uname"))
        return (p->has_uname = pax_string(p->uname, v, vlen));
    if (KEY("gname"))
        return (p->has_gname = pax_string(p->gname, v, vlen));
    if (KEY("mtime"))
        return (p->has_mtime = pax_time(v, vlen, &p->mtime, &p->mtime_nsec));
    if (KEY("uid") || KEY("gid") || KEY("size")) {
        if (!parse_decimal(v, vlen, FALSE, &n))
            return FALSE;
        if (KEY("uid"))
            p->has_uid = TRUE, p->uid = n;
        else if (KEY("gid"))
            p->has_gid = TRUE, p->gid = n;
        else
            p->has_size = TRUE, p->size = (uint64_t)n;
    }
    return TRUE; /* atime, ctime, SCHILY.*, GNU.sparse.*: not compared */
#undef KEY
}

/* Records "LEN KEY=VALUE\n", LEN counting the whole record. */
static int pax_parse(struct archive_reader *r, struct arc_pax *p, const GString *s, uint64_t at)
{
    size_t off = 0;
    while (off < s->len) {
        const char *rec = s->str + off;
        size_t rest = s->len - off, i = 0;
        uint64_t len = 0;
        while (i < rest && i < 20 && rec[i] >= '0' && rec[i] <= '9')
            len = len * 10 + (uint64_t)(rec[i++] - '0');
        const char *eq = i < rest && rec[i] == ' ' && len > i + 2 && len <= rest
                             ? memchr(rec + i + 1, '=', (size_t)len - i - 1) : NULL;
        if (!eq || rec[len - 1] != '\n' || eq == rec + i + 1)
            return arc_fail(r, -EINVAL, NULL, "bad pax record at offset %" G_GUINT64_FORMAT
                            " (+%zu)", at, off);
        const char *k = rec + i + 1, *v = eq + 1;
        if (!pax_value(p, k, (size_t)(eq - k), v, (size_t)(rec + len - 1 - v)))
            return arc_fail(r, -EINVAL, NULL, "bad pax value %.*s at offset %" G_GUINT64_FORMAT,
                            (int)MIN(eq - k, 64), k, at);
        off += (size_t)len;
    }
    return 0;
}

static uint64_t padding(uint64_t size)
{
    return (ARC_BLOCK - size % ARC_BLOCK) % ARC_BLOCK;
}

/* A metadata entry ('x', 'g', 'L', 'K'): its content read, its padding skipped. */
static int tar_meta(struct archive_reader *r, const uint8_t *h, int64_t size, uint64_t at)
{
    GString *blob = g_string_new(NULL);
    char t = (char)h[156];
    const char *what = t == 'L' ? "GNU long name" : t == 'K' ? "GNU long link" : "pax header";
    int rc = arc_read_blob(r, blob, (uint64_t)size, what, NULL);
    uint8_t pad[ARC_BLOCK];
    uint64_t npad = padding((uint64_t)size);
    if (rc == 0 && arc_read_full(r, pad, (size_t)npad) < 0)
        rc = r->err;
    if (rc == 0 && (t == 'L' || t == 'K')) {
        GString *dst = t == 'L' ? r->gnu_name : r->gnu_link;
        tar_string(dst, (const uint8_t *)blob->str, blob->len);
        *(t == 'L' ? &r->has_gnu_name : &r->has_gnu_link) = TRUE;
    } else if (rc == 0) {
        rc = pax_parse(r, t == 'g' ? &r->gpax : &r->pax, blob, at);
    }
    g_string_free(blob, TRUE);
    return rc;
}

static enum archive_type tar_type(char t)
{
    switch (t) {
    case '0': case '\0': case '7': return ARCHIVE_FILE;
    case '1': return ARCHIVE_HARDLINK;
    case '2': return ARCHIVE_SYMLINK;
    case '3': return ARCHIVE_CHARDEV;
    case '4': return ARCHIVE_BLOCKDEV;
    case '5': return ARCHIVE_DIR;
    case '6': return ARCHIVE_FIFO;
    default: return ARCHIVE_OTHER;
    }
}

/* The member's values: a pax value (local, then global) over a GNU name over the header. */
static void tar_fill(struct archive_reader *r, const uint8_t *h, const int64_t num[6])
{
    struct arc_pax *p = &r->pax, *g = &r->gpax;
    struct archive_member *m = &r->m;
    gboolean posix = memcmp(h + 257, "ustar\0", 6) == 0;
    gboolean gnu = memcmp(h + 257, "ustar ", 6) == 0;
    if (p->has_path || g->has_path) {
        g_string_assign(r->name, (p->has_path ? p->path : g->path)->str);
    } else if (r->has_gnu_name) {
        g_string_assign(r->name, r->gnu_name->str);
    } else {
        tar_string(r->name, h + 345, posix ? 155 : 0);
        if (r->name->len)
            g_string_append_c(r->name, '/');
        GString *base = g_string_new(NULL);
        tar_string(base, h, 100);
        g_string_append(r->name, base->str);
        g_string_free(base, TRUE);
    }
    if (p->has_linkpath || g->has_linkpath)
        g_string_assign(r->link, (p->has_linkpath ? p->linkpath : g->linkpath)->str);
    else if (r->has_gnu_link)
        g_string_assign(r->link, r->gnu_link->str);
    else
        tar_string(r->link, h + 157, 100);
    m->name = r->name->str;
    m->type = tar_type((char)h[156]);
    m->link = m->type == ARCHIVE_SYMLINK || m->type == ARCHIVE_HARDLINK ? r->link->str : NULL;
    m->mode = (uint32_t)num[0] & 07777;
    m->uid = p->has_uid ? p->uid : g->has_uid ? g->uid : num[1];
    m->gid = p->has_gid ? p->gid : g->has_gid ? g->gid : num[2];
    m->mtime = p->has_mtime ? p->mtime : g->has_mtime ? g->mtime : num[3];
    m->mtime_nsec = p->has_mtime ? p->mtime_nsec : g->has_mtime ? g->mtime_nsec : 0;
    m->devmajor = (uint32_t)num[4];
    m->devminor = (uint32_t)num[5];
    m->uname = m->gname = NULL;
    if (posix || gnu || p->has_uname || g->has_uname) {
        if (p->has_uname || g->has_uname)
            g_string_assign(r->uname, (p->has_uname ? p->uname : g->uname)->str);
        else
            tar_string(r->uname, h + 265, 32);
        if (p->has_gname || g->has_gname)
            g_string_assign(r->gname, (p->has_gname ? p->gname : g->gname)->str);
        else
            tar_string(r->gname, h + 297, 32);
        m->uname = r->uname->str;
        m->gname = r->gname->str;
    }
}

static int tar_numbers(struct archive_reader *r, const uint8_t *h, int64_t num[7], uint64_t at)
{
    static const struct { unsigned off, len; const char *what; } f[] = {
        {100, 8, "mode"}, {108, 8, "uid"}, {116, 8, "gid"}, {136, 12, "mtime"},
        {329, 8, "devmajor"}, {337, 8, "devminor"}, {124, 12, "size"}};
    for (unsigned i = 0; i < G_N_ELEMENTS(f); i++) {
        gboolean devs = i == 4 || i == 5;
        if (devs && (h[156] != '3' && h[156] != '4')) {
            num[i] = 0; /* v7 headers leave these fields as garbage */
            continue;
        }
        if (tar_number(h + f[i].off, f[i].len, &num[i]) < 0 ||
            (num[i] < 0 && i != 3) || (devs && num[i] > UINT32_MAX))
            return arc_fail(r, -EINVAL, NULL, "bad %s field in the tar header at offset %"
                            G_GUINT64_FORMAT, f[i].what, at);
    }
    return 0;
}

/* 1: a member in r->m; 0: the end; <0: an error. */
int arc_tar_next(struct archive_reader *r)
{
    uint8_t h[ARC_BLOCK];
    for (;;) {
        uint64_t at = r->pos;
        gssize n = arc_read_full(r, h, ARC_BLOCK);
        if (n < 0)
            return (int)n;
        if (n == 0) /* no end-of-archive blocks: tolerated, as GNU tar does */
            return 0;
        if (n < ARC_BLOCK)
            return arc_fail(r, -EINVAL, NULL, "truncated tar header at offset %" G_GUINT64_FORMAT, at);
        if (!arc_tar_header_ok(h)) {
            static const uint8_t zero[ARC_BLOCK];
            if (memcmp(h, zero, ARC_BLOCK) == 0)
                return 0;
            return arc_fail(r, -EINVAL, NULL, "bad tar header checksum at offset %"
                            G_GUINT64_FORMAT, at);
        }
        if (arc_count_member(r, NULL) < 0)
            return r->err;
        int64_t num[7];
        if (tar_numbers(r, h, num, at) < 0)
            return r->err;
        char t = (char)h[156];
        if (t == 'x' || t == 'g' || t == 'L' || t == 'K') {
            if (tar_meta(r, h, num[6], at) < 0)
                return r->err;
            continue;
        }
        tar_fill(r, h, num);
        uint64_t size = r->pax.has_size ? r->pax.size : r->gpax.has_size ? r->gpax.size
                                                                         : (uint64_t)num[6];
        enum archive_type ty = r->m.type;
        if (ty == ARCHIVE_SYMLINK || ty == ARCHIVE_CHARDEV || ty == ARCHIVE_BLOCKDEV ||
            ty == ARCHIVE_FIFO)
            size = 0; /* no content is stored for these, whatever the size field says */
        r->m.size = size;
        r->m.offset = at;
        arc_pax_clear(&r->pax);
        r->has_gnu_name = r->has_gnu_link = FALSE;
        if (!r->m.name[0])
            return arc_fail(r, -EINVAL, NULL, "a tar member without a name at offset %"
                            G_GUINT64_FORMAT, at);
        arc_begin_member(r, size, padding(size));
        return 1;
    }
}
