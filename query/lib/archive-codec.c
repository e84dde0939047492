/* archive-codec — a reader's raw bytes (its parent's current member, a file, or memory) and
 * their decompression: gzip (zlib, concatenated members), xz (liblzma, concatenated
 * streams, a bounded memory limit), zstd (libzstd, bounded window), bzip2 (libbz2, when
 * built with it).  Every decompressed byte counts against the budget's max_total. */
#include "archive-internal.h"

#include <errno.h>
#include <lzma.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#ifdef ARCHIVE_HAVE_BZIP2
#include <bzlib.h>
#endif

#define ARC_IN_SIZE (64 * 1024)
#define ARC_XZ_MEMLIMIT (256u << 20) /* xz -9e needs 65 MiB to decode; more is crafted */
#define ARC_ZSTD_WINDOWLOG 27        /* 128 MiB, zstd's own default limit */

gssize arc_raw_read(struct archive_reader *r, void *buf, size_t len)
{
    if (r->parent) {
        g_autofree char *why = NULL;
        gssize n = archive_read(r->parent, buf, len, &why);
        if (n < 0) {
            /* the parent's message names its member already */
            r->err = (int)n;
            g_free(r->errwhy);
            r->errwhy = g_steal_pointer(&why);
        }
        return n;
    }
    if (r->fd >= 0) {
        for (;;) {
            ssize_t n = read(r->fd, buf, len);
            if (n >= 0)
                return n;
            if (errno != EINTR)
                return arc_fail(r, -errno, NULL, "cannot read: %s", g_strerror(errno));
        }
    }
    size_t n = MIN(len, r->memlen - r->mempos);
    if (n)
        memcpy(buf, r->mem + r->mempos, n);
    r->mempos += n;
    return (gssize)n;
}

/* Refills `in` when it is used up; <0 on error, 0 at the end of the raw bytes. */
static gssize fill_in(struct archive_reader *r)
{
    if (r->inpos < r->inlen)
        return (gssize)(r->inlen - r->inpos);
    if (r->in_eof)
        return 0;
    gssize n = arc_raw_read(r, r->in, ARC_IN_SIZE);
    if (n < 0)
        return n;
    r->inpos = 0;
    r->inlen = (size_t)n;
    if (n == 0)
        r->in_eof = TRUE;
    return n;
}

static gboolean magic_at(const struct archive_reader *r, const char *m, size_t n)
{
    return r->inlen - r->inpos >= n && memcmp(r->in + r->inpos, m, n) == 0;
}

static int start_gzip(struct archive_reader *r)
{
    z_stream *s = g_new0(z_stream, 1);
    if (inflateInit2(s, 15 + 16) != Z_OK) {
        g_free(s);
        return arc_fail(r, -ENOMEM, NULL, "cannot start gzip decompression");
    }
    r->z = s;
    return 0;
}

static int start_xz(struct archive_reader *r)
{
    lzma_stream *s = g_new0(lzma_stream, 1);
    *s = (lzma_stream)LZMA_STREAM_INIT;
    if (lzma_stream_decoder(s, ARC_XZ_MEMLIMIT, LZMA_CONCATENATED) != LZMA_OK) {
        g_free(s);
        return arc_fail(r, -ENOMEM, NULL, "cannot start xz decompression");
    }
    r->z = s;
    return 0;
}

static int start_zstd(struct archive_reader *r)
{
    ZSTD_DStream *s = ZSTD_createDStream();
    if (!s || ZSTD_isError(ZSTD_DCtx_setParameter(s, ZSTD_d_windowLogMax, ARC_ZSTD_WINDOWLOG))) {
        ZSTD_freeDStream(s);
        return arc_fail(r, -ENOMEM, NULL, "cannot start zstd decompression");
    }
    r->z = s;
    return 0;
}

#ifdef ARCHIVE_HAVE_BZIP2
static int start_bzip2(struct archive_reader *r)
{
    bz_stream *s = g_new0(bz_stream, 1);
    if (BZ2_bzDecompressInit(s, 0, 0) != BZ_OK) {
        g_free(s);
        return arc_fail(r, -ENOMEM, NULL, "cannot start bzip2 decompression");
    }
    r->z = s;
    return 0;
}
#endif

int arc_codec_start(struct archive_reader *r)
{
    r->in = g_malloc(ARC_IN_SIZE);
    /* the magic: at most 6 bytes, read whole even from a parent giving them piecemeal */
    while (r->inlen < 6 && !r->in_eof) {
        gssize n = arc_raw_read(r, r->in + r->inlen, 6 - r->inlen);
        if (n < 0)
            return (int)n;
        if (n == 0)
            r->in_eof = TRUE;
        r->inlen += (size_t)n;
    }
    if (magic_at(r, "\x1f\x8b", 2))
        r->codec = ARCHIVE_GZIP;
    else if (magic_at(r, "\xfd" "7zXZ\0", 6))
        r->codec = ARCHIVE_XZ;
    else if (magic_at(r, "\x28\xb5\x2f\xfd", 4))
        r->codec = ARCHIVE_ZSTD;
#ifdef ARCHIVE_HAVE_BZIP2
    else if (magic_at(r, "BZh", 3) && r->inlen >= 4 && r->in[3] >= '1' && r->in[3] <= '9')
        r->codec = ARCHIVE_BZIP2;
#endif
    else
        return 0;
    if (++r->depth > r->budget->lim.max_depth)
        return arc_fail(r, -ELOOP, NULL, "nested more than %u deep (%s)",
                        r->budget->lim.max_depth, archive_codec_name(r->codec));
    switch (r->codec) {
    case ARCHIVE_GZIP: return start_gzip(r);
    case ARCHIVE_XZ: return start_xz(r);
    case ARCHIVE_ZSTD: return start_zstd(r);
#ifdef ARCHIVE_HAVE_BZIP2
    case ARCHIVE_BZIP2: return start_bzip2(r);
#endif
    default: return 0;
    }
}

static int corrupt(struct archive_reader *r, const char *detail)
{
    return arc_fail(r, -EINVAL, NULL, "%s data is damaged (%s) after %" G_GUINT64_FORMAT
                    " decompressed bytes", archive_codec_name(r->codec), detail, r->pos);
}

/* One step of the decompressor: fills up to len bytes of out; sets z_end at the end. */
static gssize gzip_step(struct archive_reader *r, uint8_t *out, size_t len)
{
    z_stream *s = r->z;
    s->next_in = r->in + r->inpos;
    s->avail_in = (uInt)(r->inlen - r->inpos);
    s->next_out = out;
    s->avail_out = (uInt)MIN(len, (size_t)G_MAXUINT32);
    uInt before = s->avail_out;
    int rc = inflate(s, Z_NO_FLUSH);
    r->inpos = r->inlen - s->avail_in;
    gssize made = (gssize)(before - s->avail_out);
    if (rc == Z_STREAM_END) {
        /* another gzip member may follow; anything else after it is ignored, as gzip does */
        gssize n = fill_in(r);
        if (n < 0)
            return n;
        if (magic_at(r, "\x1f\x8b", 2))
            inflateReset(s);
        else
            r->z_end = TRUE;
        return made;
    }
    if (rc == Z_OK || (rc == Z_BUF_ERROR && (made > 0 || !r->in_eof)))
        return made;
    if (rc == Z_BUF_ERROR)
        return corrupt(r, "truncated");
    return corrupt(r, s->msg ? s->msg : "inflate failed");
}

static gssize xz_step(struct archive_reader *r, uint8_t *out, size_t len)
{
    lzma_stream *s = r->z;
    s->next_in = r->in + r->inpos;
    s->avail_in = r->inlen - r->inpos;
    s->next_out = out;
    s->avail_out = len;
    lzma_ret rc = lzma_code(s, r->in_eof ? LZMA_FINISH : LZMA_RUN);
    r->inpos = r->inlen - s->avail_in;
    gssize made = (gssize)(len - s->avail_out);
    if (rc == LZMA_STREAM_END)
        r->z_end = TRUE;
    else if (rc == LZMA_BUF_ERROR)
        return made > 0 ? made : corrupt(r, "truncated");
    else if (rc == LZMA_MEMLIMIT_ERROR)
        return arc_fail(r, -EFBIG, NULL, "xz data needs more than %u MiB to decompress",
                        ARC_XZ_MEMLIMIT >> 20);
    else if (rc != LZMA_OK)
        return corrupt(r, rc == LZMA_FORMAT_ERROR ? "not xz" : "lzma_code failed");
    return made;
}

static gssize zstd_step(struct archive_reader *r, uint8_t *out, size_t len)
{
    if (r->inpos == r->inlen && r->in_eof) {
        /* the input ended: after a whole frame, the end; inside one, damage */
        if (!r->z_between)
            return corrupt(r, "truncated");
        r->z_end = TRUE;
        return 0;
    }
    ZSTD_inBuffer in = {r->in + r->inpos, r->inlen - r->inpos, 0};
    ZSTD_outBuffer o = {out, len, 0};
    size_t rc = ZSTD_decompressStream(r->z, &o, &in);
    r->inpos += in.pos;
    if (ZSTD_isError(rc))
        return corrupt(r, ZSTD_getErrorName(rc));
    r->z_between = rc == 0;
    return (gssize)o.pos;
}

#ifdef ARCHIVE_HAVE_BZIP2
static gssize bzip2_step(struct archive_reader *r, uint8_t *out, size_t len)
{
    bz_stream *s = r->z;
    s->next_in = (char *)r->in + r->inpos;
    s->avail_in = (unsigned)(r->inlen - r->inpos);
    s->next_out = (char *)out;
    s->avail_out = (unsigned)MIN(len, (size_t)G_MAXUINT32);
    unsigned before = s->avail_out;
    int rc = BZ2_bzDecompress(s);
    r->inpos = r->inlen - s->avail_in;
    gssize made = (gssize)(before - s->avail_out);
    if (rc == BZ_STREAM_END) {
        gssize n = fill_in(r);
        if (n < 0)
            return n;
        if (magic_at(r, "BZh", 3)) { /* bzip2 streams may be concatenated */
            BZ2_bzDecompressEnd(s);
            memset(s, 0, sizeof *s);
            if (BZ2_bzDecompressInit(s, 0, 0) != BZ_OK)
                return arc_fail(r, -ENOMEM, NULL, "cannot restart bzip2 decompression");
        } else {
            r->z_end = TRUE;
        }
        return made;
    }
    if (rc != BZ_OK)
        return corrupt(r, "BZ2_bzDecompress failed");
    if (made == 0 && r->in_eof && r->inpos == r->inlen)
        return corrupt(r, "truncated");
    return made;
}
#endif

static gssize codec_step(struct archive_reader *r, uint8_t *out, size_t len)
{
    switch (r->codec) {
    case ARCHIVE_GZIP: return gzip_step(r, out, len);
    case ARCHIVE_XZ: return xz_step(r, out, len);
    case ARCHIVE_ZSTD: return zstd_step(r, out, len);
#ifdef ARCHIVE_HAVE_BZIP2
    case ARCHIVE_BZIP2: return bzip2_step(r, out, len);
#endif
    default: return arc_fail(r, -EINVAL, NULL, "no decompressor");
    }
}

gssize arc_codec_read(struct archive_reader *r, void *buf, size_t len)
{
    if (len == 0)
        return 0;
    if (r->codec == ARCHIVE_RAW) {
        if (r->inpos < r->inlen) {
            size_t n = MIN(len, r->inlen - r->inpos);
            memcpy(buf, r->in + r->inpos, n);
            r->inpos += n;
            return (gssize)n;
        }
        return arc_raw_read(r, buf, len);
    }
    for (int stalls = 0; !r->z_end;) {
        gssize n = fill_in(r);
        if (n < 0)
            return n;
        size_t inpos = r->inpos;
        gssize made = codec_step(r, buf, len);
        if (made < 0)
            return made;
        if (made > 0) {
            uint64_t max = r->budget->lim.max_total;
            r->budget->total += (uint64_t)made;
            if (r->budget->total > max)
                return arc_fail(r, -EFBIG, NULL, "decompresses to more than the limit of %"
                                G_GUINT64_FORMAT " bytes (a compression bomb?)", max);
            return made;
        }
        /* neither input taken nor output made twice running: the decompressor is stuck */
        stalls = r->inpos == inpos ? stalls + 1 : 0;
        if (stalls > 2 && !r->z_end)
            return corrupt(r, "no progress");
    }
    return 0;
}

void arc_codec_free(struct archive_reader *r)
{
    if (r->z) {
        switch (r->codec) {
        case ARCHIVE_GZIP: inflateEnd(r->z); break;
        case ARCHIVE_XZ: lzma_end(r->z); break;
        case ARCHIVE_ZSTD: ZSTD_freeDStream(r->z); r->z = NULL; break;
#ifdef ARCHIVE_HAVE_BZIP2
        case ARCHIVE_BZIP2: BZ2_bzDecompressEnd(r->z); break;
#endif
        default: break;
        }
        g_free(r->z);
        r->z = NULL;
    }
    g_free(r->in);
    r->in = NULL;
}
