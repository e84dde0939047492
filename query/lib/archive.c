/* archive — opening a reader (a file, memory, a member of another), telling its kind, and
 * the members' content with its SHA-256 (archive.h).  The formats are archive-tar.c and
 * archive-ar.c; the raw bytes and their decompression archive-codec.c. */
#include "archive-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ARC_DEFAULT_TOTAL (UINT64_C(4) << 30)
#define ARC_DEFAULT_DEPTH 8
#define ARC_DEFAULT_MEMBERS (UINT64_C(1) << 20)
#define ARC_DEFAULT_NAME (UINT64_C(1) << 20)

int arc_fail(struct archive_reader *r, int err, const char *member, const char *fmt, ...)
{
    if (r->err)
        return r->err; /* the first error is the one that explains */
    va_list ap;
    va_start(ap, fmt);
    g_autofree char *what = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    GString *s = g_string_new(r->label);
    if (member)
        g_string_append_printf(s, "%s%s", s->len ? " " : "", member);
    g_string_append_printf(s, "%s%s", s->len ? ": " : "", what);
    r->err = err;
    g_free(r->errwhy);
    r->errwhy = g_string_free(s, FALSE);
    return err;
}

static int give_error(const struct archive_reader *r, char **why)
{
    if (why) {
        g_free(*why);
        *why = g_strdup(r->errwhy ? r->errwhy : "damaged archive");
    }
    return r->err;
}

static void pax_init(struct arc_pax *p)
{
    p->path = g_string_new(NULL);
    p->linkpath = g_string_new(NULL);
    p->uname = g_string_new(NULL);
    p->gname = g_string_new(NULL);
}

static struct archive_reader *reader_new(struct archive_reader *parent,
                                         const struct archive_limits *lim)
{
    struct archive_reader *r = g_new0(struct archive_reader, 1);
    r->fd = -1;
    r->parent = parent;
    if (parent) {
        r->budget = parent->budget;
        r->depth = parent->depth;
    } else {
        r->own_budget = TRUE;
        r->budget = g_new0(struct arc_budget, 1);
        if (lim)
            r->budget->lim = *lim;
        struct archive_limits *l = &r->budget->lim;
        l->max_total = l->max_total ? l->max_total : ARC_DEFAULT_TOTAL;
        l->max_depth = l->max_depth ? l->max_depth : ARC_DEFAULT_DEPTH;
        l->max_members = l->max_members ? l->max_members : ARC_DEFAULT_MEMBERS;
        l->max_name = l->max_name ? l->max_name : ARC_DEFAULT_NAME;
    }
    r->name = g_string_new(NULL);
    r->link = g_string_new(NULL);
    r->uname = g_string_new(NULL);
    r->gname = g_string_new(NULL);
    r->longnames = g_string_new(NULL);
    r->gnu_name = g_string_new(NULL);
    r->gnu_link = g_string_new(NULL);
    pax_init(&r->pax);
    pax_init(&r->gpax);
    r->sum = g_checksum_new(G_CHECKSUM_SHA256);
    return r;
}

/* Tells the compression and the kind; r's raw source is set. */
static int reader_start(struct archive_reader *r, char **why)
{
    if (arc_codec_start(r) < 0)
        return give_error(r, why);
    gssize n = arc_read_full(r, r->head, ARC_BLOCK);
    if (n < 0)
        return give_error(r, why);
    r->headlen = (size_t)n;
    r->pos = 0;
    if (r->headlen >= 8 && memcmp(r->head, "!<arch>\n", 8) == 0)
        r->kind = ARCHIVE_AR;
    else if (r->headlen == ARC_BLOCK && arc_tar_header_ok(r->head))
        r->kind = ARCHIVE_TAR;
    if (r->kind != ARCHIVE_NONE && ++r->depth > r->budget->lim.max_depth) {
        arc_fail(r, -ELOOP, NULL, "nested more than %u deep (%s)", r->budget->lim.max_depth,
                 archive_kind_name(r->kind));
        return give_error(r, why);
    }
    return 0;
}

/* Starts r and hands it out, or frees it. */
static int reader_open(struct archive_reader *r, struct archive_reader **out, char **why)
{
    int rc = reader_start(r, why);
    if (rc < 0) {
        archive_free(r);
        return rc;
    }
    *out = r;
    return 0;
}

int archive_open_memory(const void *data, size_t len, const struct archive_limits *lim,
                        struct archive_reader **out, char **why)
{
    struct archive_reader *r = reader_new(NULL, lim);
    r->label = g_strdup("");
    r->mem = data;
    r->memlen = len;
    return reader_open(r, out, why);
}

static const char *file_type_name(mode_t m)
{
    return S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device"
         : S_ISBLK(m) ? "a block device" : S_ISDIR(m) ? "a directory"
         : S_ISSOCK(m) ? "a socket" : "not a file";
}

int archive_open_regular(const char *path, char **why)
{
    /* O_NONBLOCK: opening a FIFO must not wait for a writer (a regular file ignores it) */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    int e = fd < 0 || fstat(fd, &st) < 0 ? errno : S_ISREG(st.st_mode) ? 0 : EINVAL;
    if (!e)
        return fd;
    if (why) {
        g_free(*why);
        *why = e == EINVAL && fd >= 0
                   ? g_strdup_printf("not a regular file (%s)", file_type_name(st.st_mode))
                   : g_strdup_printf("cannot open: %s", g_strerror(e));
    }
    if (fd >= 0)
        close(fd);
    return -e;
}

int archive_open_file(const char *path, const struct archive_limits *lim,
                      struct archive_reader **out, char **why)
{
    int fd = archive_open_regular(path, why);
    if (fd < 0)
        return fd;
    struct archive_reader *r = reader_new(NULL, lim);
    r->label = g_strdup("");
    r->fd = fd;
    return reader_open(r, out, why);
}

int archive_open_member(struct archive_reader *parent, struct archive_reader **out, char **why)
{
    if (parent->err)
        return give_error(parent, why);
    if (!parent->in_member || parent->child_open) {
        if (why) {
            g_free(*why);
            *why = g_strdup(parent->child_open ? "a member is open already" : "no member");
        }
        return -EINVAL;
    }
    struct archive_reader *r = reader_new(parent, NULL);
    r->label = *parent->label ? g_strdup_printf("%s %s", parent->label, parent->m.name)
                              : g_strdup(parent->m.name);
    parent->child_open = TRUE;
    return reader_open(r, out, why);
}

void arc_pax_clear(struct arc_pax *p)
{
    GString *path = p->path, *linkpath = p->linkpath, *uname = p->uname, *gname = p->gname;
    memset(p, 0, sizeof *p);
    p->path = path;
    p->linkpath = linkpath;
    p->uname = uname;
    p->gname = gname;
}

void arc_pax_free(struct arc_pax *p)
{
    g_string_free(p->path, TRUE);
    g_string_free(p->linkpath, TRUE);
    g_string_free(p->uname, TRUE);
    g_string_free(p->gname, TRUE);
}

void archive_free(struct archive_reader *r)
{
    if (!r)
        return;
    if (r->parent)
        r->parent->child_open = FALSE;
    arc_codec_free(r);
    if (r->fd >= 0)
        close(r->fd);
    g_string_free(r->name, TRUE);
    g_string_free(r->link, TRUE);
    g_string_free(r->uname, TRUE);
    g_string_free(r->gname, TRUE);
    g_string_free(r->longnames, TRUE);
    g_string_free(r->gnu_name, TRUE);
    g_string_free(r->gnu_link, TRUE);
    arc_pax_free(&r->pax);
    arc_pax_free(&r->gpax);
    g_checksum_free(r->sum);
    if (r->own_budget)
        g_free(r->budget);
    g_free(r->label);
    g_free(r->errwhy);
    g_free(r);
}

enum archive_kind archive_kind(const struct archive_reader *r)
{
    return r->kind;
}

enum archive_codec archive_codec(const struct archive_reader *r)
{
    return r->codec;
}

/* Reads decompressed bytes, the sniffed first block first. */
static gssize stream_read(struct archive_reader *r, void *buf, size_t len)
{
    if (r->err)
        return r->err;
    const volatile sig_atomic_t *cancel = r->budget->lim.cancel;
    if (cancel && *cancel)
        return arc_fail(r, -EINTR, NULL, "interrupted");
    gssize n;
    if (r->headpos < r->headlen) {
        n = (gssize)MIN(len, r->headlen - r->headpos);
        memcpy(buf, r->head + r->headpos, (size_t)n);
        r->headpos += (size_t)n;
    } else {
        n = arc_codec_read(r, buf, len);
        if (n < 0)
            return n;
    }
    r->pos += (uint64_t)n;
    return n;
}

gssize arc_read_full(struct archive_reader *r, void *buf, size_t len)
{
    size_t got = 0;
    while (got < len) {
        gssize n = stream_read(r, (uint8_t *)buf + got, len - got);
        if (n < 0)
            return n;
        if (n == 0)
            break;
        got += (size_t)n;
    }
    return (gssize)got;
}

int arc_count_member(struct archive_reader *r, const char *member)
{
    if (++r->budget->members > r->budget->lim.max_members)
        return arc_fail(r, -EFBIG, member, "more than %" G_GUINT64_FORMAT " members",
                        r->budget->lim.max_members);
    return 0;
}

int arc_read_blob(struct archive_reader *r, GString *s, uint64_t len, const char *what,
                  const char *member)
{
    uint64_t at = r->pos;
    if (len > r->budget->lim.max_name)
        return arc_fail(r, -EFBIG, member, "%s of %" G_GUINT64_FORMAT " bytes at offset %"
                        G_GUINT64_FORMAT " is over the limit of %" G_GUINT64_FORMAT,
                        what, len, at, r->budget->lim.max_name);
    g_string_set_size(s, (gsize)len);
    gssize n = arc_read_full(r, s->str, (size_t)len);
    if (n < 0)
        return (int)n;
    if ((uint64_t)n < len)
        return arc_fail(r, -EINVAL, member, "truncated %s at offset %" G_GUINT64_FORMAT, what, at);
    return 0;
}

void arc_begin_member(struct archive_reader *r, uint64_t len, uint64_t pad)
{
    r->in_member = TRUE;
    r->left = len;
    r->pad = pad;
    r->hex[0] = 0;
    g_checksum_reset(r->sum);
}

gssize archive_read(struct archive_reader *r, void *buf, size_t len, char **why)
{
    if (r->err)
        return give_error(r, why);
    if (!r->in_member || r->left == 0)
        return 0;
    uint64_t at = r->pos;
    gssize n = stream_read(r, buf, (size_t)MIN((uint64_t)len, r->left));
    if (n < 0)
        return give_error(r, why);
    if (n == 0) {
        arc_fail(r, -EINVAL, r->m.name, "truncated: %" G_GUINT64_FORMAT " bytes of its %"
                 G_GUINT64_FORMAT " missing at offset %" G_GUINT64_FORMAT, r->left, r->m.size, at);
        return give_error(r, why);
    }
    g_checksum_update(r->sum, buf, (gssize)n);
    r->left -= (uint64_t)n;
    return n;
}

static int drain(struct archive_reader *r, char **why)
{
    uint8_t buf[16384];
    while (r->in_member && r->left > 0) {
        gssize n = archive_read(r, buf, sizeof buf, why);
        if (n < 0)
            return (int)n;
    }
    return 0;
}

int archive_member_sha256(struct archive_reader *r, char hex[65], char **why)
{
    if (r->child_open) {
        arc_fail(r, -EBUSY, r->m.name, "a nested reader is still open");
        return give_error(r, why);
    }
    int rc = drain(r, why);
    if (rc < 0)
        return rc;
    if (!r->in_member) {
        arc_fail(r, -EINVAL, NULL, "no current member");
        return give_error(r, why);
    }
    if (!r->hex[0])
        g_strlcpy(r->hex, g_checksum_get_string(r->sum), sizeof r->hex);
    memcpy(hex, r->hex, 65);
    return 0;
}

int archive_next(struct archive_reader *r, const struct archive_member **m, char **why)
{
    if (r->err)
        return give_error(r, why);
    if (r->child_open) {
        arc_fail(r, -EBUSY, r->m.name, "a nested reader is still open");
        return give_error(r, why);
    }
    if (drain(r, why) < 0)
        return r->err;
    if (r->in_member && r->pad) {
        uint8_t pad[ARC_BLOCK];
        if (arc_read_full(r, pad, (size_t)r->pad) < 0)
            return give_error(r, why);
    }
    r->in_member = FALSE;
    if (r->ended || r->kind == ARCHIVE_NONE)
        return 0;
    int rc = r->kind == ARCHIVE_TAR ? arc_tar_next(r) : arc_ar_next(r);
    if (rc < 0)
        return give_error(r, why);
    if (rc == 0) {
        r->ended = TRUE;
        return 0;
    }
    *m = &r->m;
    return 1;
}

gssize archive_read_raw(struct archive_reader *r, void *buf, size_t len, char **why)
{
    if (r->kind != ARCHIVE_NONE) {
        arc_fail(r, -EINVAL, NULL, "an archive is read by member");
        return give_error(r, why);
    }
    gssize n = stream_read(r, buf, len);
    return n < 0 ? give_error(r, why) : n;
}

const char *archive_kind_name(enum archive_kind k)
{
    static const char *const names[] = {"none", "ar", "tar"};
    return (unsigned)k < G_N_ELEMENTS(names) ? names[k] : "?";
}

const char *archive_codec_name(enum archive_codec c)
{
    static const char *const names[] = {"raw", "gzip", "xz", "zstd", "bzip2"};
    return (unsigned)c < G_N_ELEMENTS(names) ? names[c] : "?";
}

const char *archive_type_name(enum archive_type t)
{
    static const char *const names[] = {"file", "dir", "symlink", "hardlink", "chardev",
                                        "blockdev", "fifo", "index", "other"};
    return (unsigned)t < G_N_ELEMENTS(names) ? names[t] : "?";
}
