/* archive-internal — what archive.c (streams, compression, members' content) shares with the
 * two format readers, archive-tar.c and archive-ar.c.  Not for other modules. */
#pragma once

#include "archive.h"

#include <glib.h>
#include <stdint.h>

#define ARC_BLOCK 512

/* The limits and what they have counted so far: the root reader's, borrowed by the nested. */
struct arc_budget {
    struct archive_limits lim;
    uint64_t total;   /* decompressed bytes */
    uint64_t members; /* headers read */
};

/* pax extended header values (local 'x' for the next member, global 'g' for the rest). */
struct arc_pax {
    gboolean has_path, has_linkpath, has_mtime, has_uid, has_gid, has_uname, has_gname, has_size;
    GString *path, *linkpath, *uname, *gname;
    int64_t mtime, uid, gid;
    uint32_t mtime_nsec;
    uint64_t size;
};

struct archive_reader {
    struct arc_budget *budget;
    gboolean own_budget;
    struct archive_reader *parent; /* its current member is our bytes, or NULL */
    unsigned depth;
    char *label;                   /* the path through the archives to here; "" at the top */
    /* the raw bytes: the parent's member, a file, or memory */
    int fd;
    const uint8_t *mem;
    size_t memlen, mempos;
    /* compression: the raw bytes go through `in` (for RAW, the pushed-back magic) */
    enum archive_codec codec;
    void *z;
    uint8_t *in;
    size_t inlen, inpos;
    gboolean in_eof, z_end;
    gboolean z_between;            /* zstd: a frame just ended */
    /* the decompressed bytes: the first block, read to tell the kind, served again */
    uint8_t head[ARC_BLOCK];
    size_t headlen, headpos;
    uint64_t pos;                  /* decompressed bytes consumed */
    enum archive_kind kind;
    gboolean started, ended;
    int err;                       /* sticky */
    char *errwhy;
    /* the current member */
    struct archive_member m;
    GString *name, *link, *uname, *gname;
    gboolean in_member, child_open;
    uint64_t left, pad;
    GChecksum *sum;
    char hex[65];
    /* ar: the GNU long-name table */
    GString *longnames;
    /* tar: pending 'L'/'K' names and pax values */
    GString *gnu_name, *gnu_link;
    gboolean has_gnu_name, has_gnu_link;
    struct arc_pax pax, gpax;
};

/* Records the sticky error `err` with a message naming the reader's path and, when non-NULL,
 * the member; returns err. */
int arc_fail(struct archive_reader *r, int err, const char *member, const char *fmt, ...)
    G_GNUC_PRINTF(4, 5);
/* Reads up to len decompressed bytes (fewer only at the end); <0 on error. */
gssize arc_read_full(struct archive_reader *r, void *buf, size_t len);
/* Counts one header against max_members; <0 (recorded) when past it. */
int arc_count_member(struct archive_reader *r, const char *member);
/* Reads `len` bytes (bounded by max_name, `what` naming them) into s. */
int arc_read_blob(struct archive_reader *r, GString *s, uint64_t len, const char *what,
                  const char *member);
/* Starts the member r->m (filled in by the format) with `len` bytes of content then `pad`. */
void arc_begin_member(struct archive_reader *r, uint64_t len, uint64_t pad);

/* archive-codec.c: raw bytes (parent member, file, memory) and their decompression. */
gssize arc_raw_read(struct archive_reader *r, void *buf, size_t len);
int arc_codec_start(struct archive_reader *r);  /* tells r->codec from the magic, sets it up */
gssize arc_codec_read(struct archive_reader *r, void *buf, size_t len);
void arc_codec_free(struct archive_reader *r);

int arc_tar_next(struct archive_reader *r);
int arc_ar_next(struct archive_reader *r);
gboolean arc_tar_header_ok(const uint8_t *h);
void arc_pax_clear(struct arc_pax *p);
void arc_pax_free(struct arc_pax *p);
