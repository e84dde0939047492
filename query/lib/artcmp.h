/* artcmp — how two artifacts differ, member by member: two .debs, tars (compressed or not),
 * static libraries, or any two files.  `repro` (#36) says with it which member of a package
 * differs ("data.tar.xz ./usr/bin/dash: content") rather than "the .deb differs".
 *
 * Each file is read with archive.h, as a stream, into a summary: per member its metadata and
 * the SHA-256 of its content, and, for a member that is itself an archive (a .deb's
 * control.tar.* and data.tar.*, a .a or .tar.gz inside a package), the summary of its own
 * members, recursively.  Members pair by name (the n-th of several with one name with the
 * other's n-th); then:
 *   - a pair whose content differs: ARTCMP_CONTENT on the member, unless both are archives
 *     whose members show differences, which are reported instead (the differing member is
 *     named, not its container); both archives with no member differing yet other bytes
 *     (another compression level, a gzip header's time, tar padding): ARTCMP_CONTENT on the
 *     archive member with a note saying so;
 *   - type, mode, owner (uid/gid and names), mtime, link target, device numbers: one
 *     difference each; content is compared only between two files (or indexes, or "other");
 *   - the members both have, in another order (a tar made from readdir's order): one
 *     ARTCMP_ORDER naming the archive;
 *   - a member in one only: ARTCMP_ONLY_A / ARTCMP_ONLY_B;
 *   - a member that looks like an archive or compressed data but cannot be read as such (a
 *     test suite's corrupt .gz, nesting past the limit) is compared by its bytes alone, its
 *     ARTCMP_CONTENT noting why; damage in the files themselves, in a member they need
 *     read (a .deb's data.tar.xz cut short), or the decompression limit is an error.
 * Two files that are not both archives of the same kind (ar or tar, compression aside) are
 * compared as wholes by SHA-256 (ARTCMP_CONTENT with member ""); the same for two archives
 * that are byte-identical (no member is read).
 *
 * Contract
 *   - artcmp_compare(path_a, path_b, opts, &diffs, &why): 0 and *diffs a new GPtrArray of
 *     struct artcmp_diff * (free with g_ptr_array_unref: it frees the diffs), empty when the
 *     two are the same; or a negative errno (-ENOENT, -EACCES: a file; -EINVAL: damaged
 *     input; -EFBIG, -ELOOP: a limit of opts->limits reached) with *why one line naming the
 *     file, the member path and the offset ("b.deb: data.tar.xz: ./usr/bin/x: truncated ...")
 *     and *diffs untouched.  opts may be NULL (the archive.h defaults).
 *   - Differences are sorted by member path (strcmp of the parts, an archive before its own
 *     members), then by kind (enum order).
 *   - A difference's member names the path through the archives as people read it: the
 *     parts joined by one space, the file the caller named left out ("data.tar.xz
 *     ./usr/bin/dash", "libx.a x.o"; "" for the file itself; the n-th of several members
 *     of one name, n > 1, "x.o [n]"), `parts` the same as a NULL-terminated vector (names
 *     may hold spaces).  The names are the archives' bytes:
 *     a caller escapes them to print (common/textout).
 *   - a / b (either may be NULL), per kind: CONTENT: the SHA-256 (64 hex digits); ONLY_A,
 *     ONLY_B: the member's type name (archive_type_name) on its side; TYPE: the type names;
 *     MODE: octal ("0755"); OWNER: "uid/gid" and, when the archive names either,
 *     " uname/gname" ("0/0 root/root", "-" for a name left empty); MTIME: seconds since the epoch, with ".NNNNNNNNN"
 *     when either has a fraction; LINK: the targets; DEVICE: "major,minor"; ORDER: the
 *     common members in each order from the first place the orders part, at most 8 names,
 *     one per line, then "..." when more.  `note` (may be NULL) adds a sentence
 *     ("the members are identical; the archive's bytes differ (xz)", "the uncompressed
 *     contents are identical (gzip)").
 *   - Pure apart from reading the two files; prints nothing; thread-safe (no shared state).
 */
#pragma once

#include "archive.h"

#include <glib.h>

enum artcmp_kind {
    ARTCMP_ONLY_A,   /* in A only */
    ARTCMP_ONLY_B,   /* in B only */
    ARTCMP_TYPE,     /* file / dir / symlink / ... differ (nothing else compared) */
    ARTCMP_CONTENT,
    ARTCMP_LINK,
    ARTCMP_MODE,
    ARTCMP_OWNER,
    ARTCMP_MTIME,
    ARTCMP_DEVICE,
    ARTCMP_ORDER,    /* the archive `member` holds the same members in another order */
};

struct artcmp_diff {
    enum artcmp_kind kind;
    char *member;   /* "data.tar.xz ./usr/bin/dash"; "" for the file itself */
    char **parts;   /* { "data.tar.xz", "./usr/bin/dash", NULL } */
    char *a, *b;    /* what each side has (see the contract), or NULL */
    char *note;     /* or NULL */
};

struct artcmp_opts {
    struct archive_limits limits;
};

int artcmp_compare(const char *path_a, const char *path_b, const struct artcmp_opts *opts,
                   GPtrArray **diffs, char **why);
/* The same for two artifacts in memory (borrowed for the call); a why names "the bytes". */
int artcmp_compare_memory(const void *data_a, size_t len_a, const void *data_b, size_t len_b,
                          const struct artcmp_opts *opts, GPtrArray **diffs, char **why);

/* "only in A", "only in B", "type", "content", "link target", "mode", "owner", "mtime",
 * "device", "order". */
const char *artcmp_kind_name(enum artcmp_kind k);
void artcmp_diff_free(struct artcmp_diff *d);
