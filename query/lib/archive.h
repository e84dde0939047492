/* archive — read an archive member by member, streaming: `ar` (a .deb's container, static
 * libraries: the GNU long-name table "//", the symbol index "/" or "/SYM64/", BSD "#1/N"
 * names) and `tar` (v7, ustar with its prefix, GNU long names and links 'L'/'K', pax
 * extended headers 'x' and global ones 'g': path, linkpath, mtime with its fraction, uid,
 * gid, uname, gname, size), either of them raw or compressed with gzip (zlib), xz (liblzma),
 * zstd (libzstd) or bzip2 (libbz2, when built with it: ARCHIVE_HAVE_BZIP2).  A member that is
 * itself an archive (a .deb's data.tar.xz, a .a inside a package) is opened in turn with
 * archive_open_member, as a stream: nothing is ever held whole in memory, so a 4 GiB package
 * costs its headers and a few buffers.
 *
 * Contract
 *   - archive_open_file / archive_open_memory open any bytes: the compression is told from
 *     its magic, then the archive kind from the first 512 (decompressed) bytes.  Not an
 *     archive is no error: archive_kind() says ARCHIVE_NONE and archive_next() ends at once
 *     (the bytes can still be read with archive_read_raw for a whole-content hash).  The
 *     memory form borrows `data` (it must outlive the reader).
 *   - archive_next gives the next member (1), the end (0) or an error (<0, sticky: every
 *     later call returns it).  The member and all its strings belong to the reader and stay
 *     valid until the next archive_next or archive_free.  Names are the stored bytes (tar:
 *     "./usr/bin/dash" as the archive has it; ar: without GNU's trailing '/'), never with a
 *     NUL, but possibly with newlines, spaces or invalid UTF-8: a caller that prints one
 *     escapes it (common/textout).
 *   - archive_read reads the current member's content (returns the bytes read, 0 at its end,
 *     <0 error).  archive_member_sha256 drains whatever of it was not read and gives the
 *     SHA-256 of the whole content, read or not (every byte is hashed as it passes, also those
 *     a nested reader consumed).
 *   - archive_open_member opens the current member's content as an archive (the parent must
 *     not be advanced, read or freed while the child is open; free the child first).  Its
 *     errors name the path through the archives: "data.tar.xz ./usr/lib/libx.a: x.o: ...".
 *   - Limits (struct archive_limits, 0 fields taking the defaults) are shared by a reader and
 *     every reader nested in it: the bytes all decompressors produce together (default
 *     4 GiB: a gzip bomb stops there), the nesting depth (default 8, each compression layer
 *     and each archive counting one), the headers read (default 1 Mi), and the size of one
 *     name, link, pax header or long-name table (default 1 MiB); fixed ones bound a
 *     decompressor's memory (xz: 256 MiB; zstd: a 128 MiB window, zstd's own default, which
 *     `zstd --long=31` data exceeds).  A limit reached is an error (-EFBIG, -ELOOP) naming
 *     the member; so is damaged input (-EINVAL, "truncated tar header
 *     at offset N", "bad checksum", an octal or base-256 number out of range, a size past the
 *     end: -EINVAL naming the member and the offset of its header in its (decompressed)
 *     archive).  A `cancel` flag found set stops the next read (-EINTR, "interrupted"): a
 *     caller's Ctrl-C need not wait for gigabytes to inflate.  Memory stays bounded by the
 *     limits whatever the bytes say; no input makes it crash or loop (fuzzed:
 *     tests/fuzz/fuzz-archive.c).
 *   - archive_open_file reads regular files only (archive_open_regular): a FIFO, a device or
 *     a directory is -EINVAL at once, never a wait or an endless read.
 *   - `why` (when non-NULL) receives one g_strdup'd line on error (the caller frees it);
 *     nothing is printed or logged.  A reader is not thread-safe.
 */
#pragma once

#include <glib.h>
#include <signal.h>
#include <stdint.h>

enum archive_kind { ARCHIVE_NONE, ARCHIVE_AR, ARCHIVE_TAR };
enum archive_codec { ARCHIVE_RAW, ARCHIVE_GZIP, ARCHIVE_XZ, ARCHIVE_ZSTD, ARCHIVE_BZIP2 };
enum archive_type {
    ARCHIVE_FILE,     /* a regular file (tar '0', '\0', '7'; every ar member) */
    ARCHIVE_DIR,
    ARCHIVE_SYMLINK,  /* link: the target */
    ARCHIVE_HARDLINK, /* link: the member it is linked to */
    ARCHIVE_CHARDEV,  /* devmajor, devminor */
    ARCHIVE_BLOCKDEV,
    ARCHIVE_FIFO,
    ARCHIVE_INDEX,    /* an ar symbol index ("/", "/SYM64/", "__.SYMDEF"): content only */
    ARCHIVE_OTHER,    /* another tar type (GNU sparse 'S', volume 'V', ...): raw content */
};

struct archive_member {
    const char *name;
    enum archive_type type;
    const char *link;        /* symlink or hardlink target, else NULL */
    uint32_t mode;           /* the permission bits and setuid/setgid/sticky (07777) */
    int64_t uid, gid;
    const char *uname, *gname; /* NULL when the archive has none (ar, v7 tar) */
    int64_t mtime;           /* seconds since the epoch */
    uint32_t mtime_nsec;     /* a pax mtime's fraction, else 0 */
    uint64_t size;           /* content bytes */
    uint32_t devmajor, devminor;
    uint64_t offset;         /* of its header in the (decompressed) archive */
};

struct archive_limits {
    uint64_t max_total;    /* decompressed bytes, all layers together (0: 4 GiB) */
    unsigned max_depth;    /* nesting, compression layers included (0: 8) */
    uint64_t max_members;  /* headers read, nested ones included (0: 1 Mi) */
    uint64_t max_name;     /* one name, link, pax header or "//" table (0: 1 MiB) */
    const volatile sig_atomic_t *cancel; /* non-NULL and set (a signal handler's flag):
                                          * -EINTR at the next read (NULL: never) */
};

struct archive_reader;

int archive_open_file(const char *path, const struct archive_limits *lim,
                      struct archive_reader **out, char **why);
/* The descriptor archive_open_file reads: `path` opened read-only without waiting (a FIFO
 * with no writer does not block), or a negative errno with *why (when non-NULL) one line
 * without the path: "cannot open: ...", or -EINVAL "not a regular file (a FIFO)" for anything
 * but a regular file (a FIFO, a device such as /dev/zero that never ends, a directory). */
int archive_open_regular(const char *path, char **why);
int archive_open_memory(const void *data, size_t len, const struct archive_limits *lim,
                        struct archive_reader **out, char **why);
int archive_open_member(struct archive_reader *parent, struct archive_reader **out, char **why);
void archive_free(struct archive_reader *r);

enum archive_kind archive_kind(const struct archive_reader *r);
/* The outermost compression of the reader's bytes (ARCHIVE_RAW: none). */
enum archive_codec archive_codec(const struct archive_reader *r);

int archive_next(struct archive_reader *r, const struct archive_member **m, char **why);
gssize archive_read(struct archive_reader *r, void *buf, size_t len, char **why);
/* hex: 64 lowercase hex digits and a NUL. */
int archive_member_sha256(struct archive_reader *r, char hex[65], char **why);
/* For an ARCHIVE_NONE reader: its (decompressed) bytes, 0 at the end. */
gssize archive_read_raw(struct archive_reader *r, void *buf, size_t len, char **why);

/* "ar", "tar", "none"; "raw", "gzip", "xz", "zstd", "bzip2"; "file", "dir", "symlink",
 * "hardlink", "chardev", "blockdev", "fifo", "index", "other". */
const char *archive_kind_name(enum archive_kind k);
const char *archive_codec_name(enum archive_codec c);
const char *archive_type_name(enum archive_type t);
