/* Unit tests of archive (query/lib/archive.c): tars in GNU, pax and ustar formats made by
 * GNU tar (every member type, long names and links, owners, times), compressed with gzip,
 * xz, zstd and bzip2; static libraries made by ar (the symbol index, the long-name table);
 * .debs made by dpkg-deb; and crafted bytes: truncated and damaged headers, sizes out of
 * range in octal and base-256, pax records (a name with a newline and invalid UTF-8), GNU
 * long names past the limit, a gzip bomb, nesting too deep, every truncation of a .deb. */
#include "archive.h"
#include "unit-archive.h"

#include <errno.h>
#include <glib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct rec {
    char *name, *link, *uname, *gname;
    enum archive_type type;
    uint32_t mode;
    int64_t uid, gid, mtime;
    uint32_t nsec;
    uint64_t size;
    char sha[65];
};

static void rec_free(gpointer p)
{
    struct rec *r = p;
    g_free(r->name);
    g_free(r->link);
    g_free(r->uname);
    g_free(r->gname);
    g_free(r);
}

/* Every member of r (its content hashed, none opened); *rc the end's result. */
static GPtrArray *collect(struct archive_reader *r, int *rc, char **why)
{
    GPtrArray *a = g_ptr_array_new_with_free_func(rec_free);
    const struct archive_member *m;
    while ((*rc = archive_next(r, &m, why)) > 0) {
        struct rec *x = g_new0(struct rec, 1);
        x->name = g_strdup(m->name);
        x->link = g_strdup(m->link);
        x->uname = g_strdup(m->uname);
        x->gname = g_strdup(m->gname);
        x->type = m->type;
        x->mode = m->mode;
        x->uid = m->uid;
        x->gid = m->gid;
        x->mtime = m->mtime;
        x->nsec = m->mtime_nsec;
        x->size = m->size;
        g_ptr_array_add(a, x);
        if ((*rc = archive_member_sha256(r, x->sha, why)) < 0)
            break;
    }
    return a;
}

static const struct rec *find(GPtrArray *a, const char *name)
{
    for (guint i = 0; i < a->len; i++)
        if (strcmp(((struct rec *)a->pdata[i])->name, name) == 0)
            return a->pdata[i];
    g_error("no member %s", name);
    return NULL;
}

static GPtrArray *collect_file(const char *dir, const char *name, enum archive_kind kind,
                               enum archive_codec codec)
{
    g_autofree char *p = ua_path(dir, name);
    g_autofree char *why = NULL;
    struct archive_reader *r = NULL;
    g_assert_cmpint(archive_open_file(p, NULL, &r, &why), ==, 0);
    g_assert_cmpint(archive_kind(r), ==, kind);
    g_assert_cmpint(archive_codec(r), ==, codec);
    int rc = 0;
    GPtrArray *a = collect(r, &rc, &why);
    g_assert_cmpstr(why, ==, NULL);
    g_assert_cmpint(rc, ==, 0);
    archive_free(r);
    return a;
}

#define LONG60 "dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd"
#define LONGNAME "t/" LONG60 "/" LONG60 ".txt"

/* The tree every format test archives: a file, a dir, a symlink, a hard link, a fifo, a
 * name too long for the 100-byte field. */
static void make_tree(const char *dir, gboolean very_long)
{
    ua_sh(dir, "mkdir -p t/sub t/" LONG60 " && printf hello > t/sub/f && chmod 0640 t/sub/f && "
               "ln -s sub/f t/link && ln t/sub/f t/zhard && mkfifo t/fifo && "
               "echo long > " LONGNAME);
    if (very_long)
        ua_sh(dir, "d=t/" LONG60 "/" LONG60 "/" LONG60 "/" LONG60 "/" LONG60 " && mkdir -p $d && "
                   "echo deep > $d/deepfile && ln -s ../../$d/deepfile t/longlink");
}

static void check_tree(GPtrArray *a, gboolean very_long)
{
    g_autofree char *hello = g_compute_checksum_for_string(G_CHECKSUM_SHA256, "hello", 5);
    const struct rec *f = find(a, "t/sub/f");
    g_assert_cmpint(f->type, ==, ARCHIVE_FILE);
    g_assert_cmpuint(f->size, ==, 5);
    g_assert_cmpstr(f->sha, ==, hello);
    g_assert_cmpuint(f->mode, ==, 0640);
    g_assert_cmpint(f->uid, ==, 1234);
    g_assert_cmpint(f->gid, ==, 5678);
    g_assert_cmpstr(f->uname, ==, "alice");
    g_assert_cmpstr(f->gname, ==, "staff");
    g_assert_cmpint(f->mtime, ==, 1600000000);
    const struct rec *l = find(a, "t/link");
    g_assert_cmpint(l->type, ==, ARCHIVE_SYMLINK);
    g_assert_cmpstr(l->link, ==, "sub/f");
    g_assert_cmpuint(l->size, ==, 0);
    const struct rec *h = find(a, "t/zhard");
    g_assert_cmpint(h->type, ==, ARCHIVE_HARDLINK);
    g_assert_cmpstr(h->link, ==, "t/sub/f");
    g_assert_cmpint(find(a, "t/fifo")->type, ==, ARCHIVE_FIFO);
    g_assert_cmpint(find(a, "t/sub/")->type, ==, ARCHIVE_DIR);
    g_autofree char *longsum = g_compute_checksum_for_string(G_CHECKSUM_SHA256, "long\n", 5);
    g_assert_cmpstr(find(a, LONGNAME)->sha, ==, longsum);
    if (very_long) {
        const char *d = LONG60 "/" LONG60 "/" LONG60 "/" LONG60 "/" LONG60;
        g_autofree char *deep = g_strdup_printf("t/%s/deepfile", d);
        g_autofree char *target = g_strdup_printf("../../t/%s/deepfile", d);
        g_assert_cmpuint(find(a, deep)->size, ==, 5);
        g_assert_cmpstr(find(a, "t/longlink")->link, ==, target);
    }
}

static void test_tar_formats(void)
{
    if (!ua_have("tar mkfifo"))
        return;
    const char *formats[] = {"gnu", "pax", "ustar"};
    for (unsigned i = 0; i < G_N_ELEMENTS(formats); i++) {
        char *dir = ua_dir_new();
        gboolean very_long = i < 2; /* ustar has no room for a 300-byte name */
        make_tree(dir, very_long);
        g_autofree char *cmd = g_strdup_printf(
            "tar --format=%s --owner=alice:1234 --group=staff:5678 --mtime=@1600000000 "
            "--sort=name -cf x.tar t", formats[i]);
        ua_sh(dir, cmd);
        GPtrArray *a = collect_file(dir, "x.tar", ARCHIVE_TAR, ARCHIVE_RAW);
        check_tree(a, very_long);
        g_ptr_array_unref(a);
        ua_dir_free(dir);
    }
}

/* pax keeps the time's fraction. */
static void test_pax_mtime(void)
{
    if (!ua_have("tar touch"))
        return;
    char *dir = ua_dir_new();
    ua_sh(dir, "echo hi > f && touch -d @1600000000.25 f && tar --format=pax -cf p.tar f");
    GPtrArray *a = collect_file(dir, "p.tar", ARCHIVE_TAR, ARCHIVE_RAW);
    g_assert_cmpuint(a->len, ==, 1);
    g_assert_cmpint(find(a, "f")->mtime, ==, 1600000000);
    g_assert_cmpuint(find(a, "f")->nsec, ==, 250000000);
    g_ptr_array_unref(a);
    ua_dir_free(dir);
}

/* Is the program installed?  (no skip: the codecs without one are left out) */
static gboolean have(const char *program)
{
    g_autofree char *p = g_find_program_in_path(program);
    return p != NULL;
}

static const struct { const char *tool, *tar, *ext; enum archive_codec codec; } codecs[] = {
    {"gzip", "-z", "gz", ARCHIVE_GZIP}, {"xz", "-J", "xz", ARCHIVE_XZ},
    {"zstd", "--zstd", "zst", ARCHIVE_ZSTD},
#ifdef ARCHIVE_HAVE_BZIP2
    {"bzip2", "-j", "bz2", ARCHIVE_BZIP2},
#endif
};

static void test_compressed(void)
{
    if (!ua_have("tar gzip mkfifo"))
        return;
    char *dir = ua_dir_new();
    make_tree(dir, TRUE);
    for (unsigned i = 0; i < G_N_ELEMENTS(codecs); i++) {
        if (!have(codecs[i].tool))
            continue;
        g_autofree char *cmd = g_strdup_printf(
            "tar --owner=alice:1234 --group=staff:5678 --mtime=@1600000000 --sort=name %s "
            "-cf x.tar.%s t", codecs[i].tar, codecs[i].ext);
        ua_sh(dir, cmd);
        g_autofree char *name = g_strdup_printf("x.tar.%s", codecs[i].ext);
        GPtrArray *a = collect_file(dir, name, ARCHIVE_TAR, codecs[i].codec);
        check_tree(a, TRUE);
        g_ptr_array_unref(a);
    }
    /* two gzip members one after the other are one stream (the tar's end blocks stop it) */
    ua_sh(dir, "cat x.tar.gz x.tar.gz > twice.gz");
    GPtrArray *a = collect_file(dir, "twice.gz", ARCHIVE_TAR, ARCHIVE_GZIP);
    check_tree(a, TRUE);
    g_ptr_array_unref(a);
    ua_dir_free(dir);
}

/* A compressed file that is no archive: no members, its bytes through archive_read_raw. */
static void test_compressed_plain(void)
{
    char *dir = ua_dir_new();
    ua_sh(dir, "seq 1 20000 > n");
    g_autofree char *want = ua_sha(dir, "n");
    for (int i = -1; i < (int)G_N_ELEMENTS(codecs); i++) {
        if (i >= 0 && !have(codecs[i].tool))
            continue;
        g_autofree char *cmd = i < 0 ? NULL : g_strdup_printf("%s -c n > n.%s", codecs[i].tool,
                                                              codecs[i].ext);
        if (cmd)
            ua_sh(dir, cmd);
        g_autofree char *name = i < 0 ? g_strdup("n") : g_strdup_printf("n.%s", codecs[i].ext);
        g_autofree char *p = ua_path(dir, name);
        struct archive_reader *r = NULL;
        g_assert_cmpint(archive_open_file(p, NULL, &r, NULL), ==, 0);
        g_assert_cmpint(archive_kind(r), ==, ARCHIVE_NONE);
        g_assert_cmpint(archive_codec(r), ==, i < 0 ? ARCHIVE_RAW : codecs[i].codec);
        const struct archive_member *m;
        g_assert_cmpint(archive_next(r, &m, NULL), ==, 0);
        g_autoptr(GChecksum) sum = g_checksum_new(G_CHECKSUM_SHA256);
        uint8_t buf[1000];
        gssize n;
        while ((n = archive_read_raw(r, buf, sizeof buf, NULL)) > 0)
            g_checksum_update(sum, buf, n);
        g_assert_cmpint(n, ==, 0);
        g_assert_cmpstr(g_checksum_get_string(sum), ==, want);
        archive_free(r);
    }
    ua_dir_free(dir);
}

/* A static library: GNU's symbol index "/", the long-name table (names over 15 bytes). */
static void test_ar_library(void)
{
    if (!ua_have("ar cc"))
        return;
    char *dir = ua_dir_new();
    ua_sh(dir, "echo 'int first_fn(void) { return 1; }' > a.c && "
               "echo 'int second_fn(void) { return 2; }' > b.c && cc -c a.c b.c && "
               "mv a.o a_member_name_longer_than_sixteen.o && "
               "ar rcsD lib.a a_member_name_longer_than_sixteen.o b.o");
    GPtrArray *a = collect_file(dir, "lib.a", ARCHIVE_AR, ARCHIVE_RAW);
    g_assert_cmpuint(a->len, ==, 3);
    const struct rec *idx = a->pdata[0];
    g_assert_cmpstr(idx->name, ==, "/");
    g_assert_cmpint(idx->type, ==, ARCHIVE_INDEX);
    g_assert_cmpstr(((struct rec *)a->pdata[1])->name, ==, "a_member_name_longer_than_sixteen.o");
    g_assert_cmpstr(((struct rec *)a->pdata[2])->name, ==, "b.o");
    g_autofree char *bsha = ua_sha(dir, "b.o");
    g_assert_cmpstr(find(a, "b.o")->sha, ==, bsha);
    g_autofree char *asha = ua_sha(dir, "a_member_name_longer_than_sixteen.o");
    g_assert_cmpstr(find(a, "a_member_name_longer_than_sixteen.o")->sha, ==, asha);
    g_assert_cmpint(find(a, "b.o")->mtime, ==, 0); /* D: deterministic */
    g_assert_cmpuint(find(a, "b.o")->mode, ==, 0644);
    g_ptr_array_unref(a);
    ua_dir_free(dir);
}

/* A .deb (xz and zstd): its ar members, then data.tar.* opened as a member. */
static void test_deb(void)
{
    if (!ua_have("dpkg-deb"))
        return;
    char *dir = ua_dir_new();
    ua_sh(dir, "mkdir -p p/DEBIAN p/usr/bin && printf '#!/bin/sh\\necho x\\n' > p/usr/bin/x && "
               "chmod 0755 p/usr/bin/x && printf 'Package: x\\nVersion: 1\\nArchitecture: all\\n"
               "Maintainer: m <m@example.org>\\nDescription: d\\n d\\n' > p/DEBIAN/control && "
               "SOURCE_DATE_EPOCH=1700000000 dpkg-deb -Zxz --root-owner-group --build p x.deb "
               ">/dev/null && SOURCE_DATE_EPOCH=1700000000 dpkg-deb -Zzstd --root-owner-group "
               "--build p z.deb >/dev/null");
    g_autofree char *xsha = ua_sha(dir, "p/usr/bin/x");
    const char *debs[] = {"x.deb", "z.deb"};
    for (unsigned i = 0; i < 2; i++) {
        g_autofree char *p = ua_path(dir, debs[i]);
        struct archive_reader *r = NULL;
        g_assert_cmpint(archive_open_file(p, NULL, &r, NULL), ==, 0);
        g_assert_cmpint(archive_kind(r), ==, ARCHIVE_AR);
        const struct archive_member *m;
        g_assert_cmpint(archive_next(r, &m, NULL), ==, 1);
        g_assert_cmpstr(m->name, ==, "debian-binary");
        g_assert_cmpint(m->mtime, ==, 1700000000);
        g_assert_cmpint(archive_next(r, &m, NULL), ==, 1);
        g_assert_true(g_str_has_prefix(m->name, "control.tar."));
        g_assert_cmpint(archive_next(r, &m, NULL), ==, 1);
        g_assert_cmpstr(m->name, ==, i ? "data.tar.zst" : "data.tar.xz");
        struct archive_reader *c = NULL;
        g_assert_cmpint(archive_open_member(r, &c, NULL), ==, 0);
        g_assert_cmpint(archive_kind(c), ==, ARCHIVE_TAR);
        g_assert_cmpint(archive_codec(c), ==, i ? ARCHIVE_ZSTD : ARCHIVE_XZ);
        /* the parent is busy while the child is open */
        g_autofree char *busy = NULL;
        g_assert_cmpint(archive_next(r, &m, &busy), ==, -EBUSY);
        int rc = 0;
        GPtrArray *a = collect(c, &rc, NULL);
        g_assert_cmpint(rc, ==, 0);
        const struct rec *x = find(a, "./usr/bin/x");
        g_assert_cmpstr(x->sha, ==, xsha);
        g_assert_cmpuint(x->mode, ==, 0755);
        g_assert_cmpstr(x->uname, ==, "root");
        g_assert_cmpint(x->uid, ==, 0);
        g_assert_cmpint(find(a, "./usr/bin/")->type, ==, ARCHIVE_DIR);
        g_ptr_array_unref(a);
        archive_free(c);
        archive_free(r);
    }
    ua_dir_free(dir);
}

/* Reads every member of the bytes, nested archives too; the first error's code. */
static int walk_all(struct archive_reader *r, char **why, unsigned *members)
{
    const struct archive_member *m;
    int rc;
    while ((rc = archive_next(r, &m, why)) > 0) {
        (*members)++;
        struct archive_reader *c = NULL;
        if (m->type == ARCHIVE_FILE && (rc = archive_open_member(r, &c, why)) < 0)
            return rc;
        if (c) {
            rc = archive_kind(c) != ARCHIVE_NONE ? walk_all(c, why, members) : 0;
            archive_free(c);
            if (rc < 0)
                return rc;
        }
        char hex[65];
        if ((rc = archive_member_sha256(r, hex, why)) < 0)
            return rc;
    }
    return rc;
}

static int walk_bytes(const void *data, size_t len, const struct archive_limits *lim, char **why)
{
    struct archive_reader *r = NULL;
    int rc = archive_open_memory(data, len, lim, &r, why);
    if (rc < 0)
        return rc;
    unsigned members = 0;
    rc = walk_all(r, why, &members);
    archive_free(r);
    return rc;
}

static void assert_fails(GByteArray *b, int err, const char *part1, const char *part2)
{
    g_autofree char *why = NULL;
    g_assert_cmpint(walk_bytes(b->data, b->len, NULL, &why), ==, err);
    g_assert_nonnull(why);
    if (!strstr(why, part1) || (part2 && !strstr(why, part2)))
        g_error("\"%s\" does not say %s and %s", why, part1, part2 ? part2 : "-");
}

/* A tar of one member "a" (5 bytes) and a second header that is damaged in one way. */
static void test_damaged_tar(void)
{
    uint8_t h[512];
    GByteArray *b = g_byte_array_new();
    ua_tar_header(h, "a", '0', 5);
    ua_tar_add(b, h, "hello", 5);
    guint base = b->len;
    /* a header cut short */
    ua_tar_header(h, "b", '0', 0);
    ua_tar_sum(h);
    g_byte_array_append(b, h, 200);
    assert_fails(b, -EINVAL, "truncated tar header at offset 1024", NULL);
    /* a header whose checksum is wrong */
    g_byte_array_set_size(b, base);
    ua_tar_header(h, "b", '0', 0);
    ua_tar_sum(h);
    h[0] = 'c';
    g_byte_array_append(b, h, 512);
    assert_fails(b, -EINVAL, "bad tar header checksum at offset 1024", NULL);
    /* sizes: garbage octal, base-256 negative, base-256 past 63 bits */
    const uint8_t sizes[][12] = {
        {'1', '2', 'x', '4', 0},
        {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe},
        {0x80, 0, 0, 0x80, 0, 0, 0, 0, 0, 0, 0, 0},
    };
    for (unsigned i = 0; i < G_N_ELEMENTS(sizes); i++) {
        g_byte_array_set_size(b, base);
        ua_tar_header(h, "b", '0', 0);
        memcpy(h + 124, sizes[i], 12);
        ua_tar_add(b, h, NULL, 0);
        ua_tar_end(b);
        assert_fails(b, -EINVAL, "bad size field in the tar header at offset 1024", NULL);
    }
    /* a member claiming 8 GiB (octal) and 2^62 bytes (base-256) with 5 bytes there */
    for (int base256 = 0; base256 < 2; base256++) {
        g_byte_array_set_size(b, base);
        ua_tar_header(h, "huge", '0', UINT64_C(077777777777));
        if (base256) {
            memset(h + 124, 0, 12);
            h[124] = 0x80;
            h[128] = 0x40; /* 2^62 */
        }
        ua_tar_add(b, h, "hello", 5);
        assert_fails(b, -EINVAL, "huge: truncated", "missing at offset");
    }
    g_byte_array_unref(b);
}

/* base-256 numbers read right (uid 2^40), v7 headers without magic read. */
static void test_base256(void)
{
    uint8_t h[512];
    GByteArray *b = g_byte_array_new();
    ua_tar_header(h, "u", '0', 0);
    memset(h + 108, 0, 8);
    h[108] = 0x80;
    h[110] = 0x01; /* 2^40 */
    ua_tar_add(b, h, NULL, 0);
    ua_tar_header(h, "v7", '0', 3);
    memset(h + 257, 0, 255 - 0); /* no magic, names, devices or prefix */
    ua_tar_add(b, h, "abc", 3);
    ua_tar_end(b);
    struct archive_reader *r = NULL;
    g_assert_cmpint(archive_open_memory(b->data, b->len, NULL, &r, NULL), ==, 0);
    g_assert_cmpint(archive_kind(r), ==, ARCHIVE_TAR);
    int rc = 0;
    GPtrArray *a = collect(r, &rc, NULL);
    g_assert_cmpint(rc, ==, 0);
    g_assert_cmpint(find(a, "u")->uid, ==, INT64_C(1) << 40);
    g_assert_cmpstr(find(a, "u")->uname, ==, "root");
    g_assert_cmpstr(find(a, "v7")->uname, ==, NULL);
    g_assert_cmpuint(find(a, "v7")->size, ==, 3);
    g_ptr_array_unref(a);
    archive_free(r);
    g_byte_array_unref(b);
}

static void pax_record(GString *s, const char *kv, size_t kvlen)
{
    /* the length counts itself: try widths until it fits */
    for (size_t digits = 1; digits < 8; digits++) {
        size_t len = digits + 1 + kvlen + 1;
        g_autofree char *n = g_strdup_printf("%zu", len);
        if (strlen(n) == digits) {
            g_string_append_printf(s, "%s ", n);
            g_string_append_len(s, kv, (gssize)kvlen);
            g_string_append_c(s, '\n');
            return;
        }
    }
}

/* pax: a path with a newline and invalid UTF-8, a link path, numbers, a negative fraction. */
static void test_pax(void)
{
    static const char path[] = "path=dir/new\nline\xff\xfe";
    GString *x = g_string_new(NULL);
    pax_record(x, path, sizeof path - 1);
    pax_record(x, "linkpath=target/\xc3", 17);
    pax_record(x, "uid=70000", 9);
    pax_record(x, "gname=wheel", 11);
    pax_record(x, "mtime=-1.5", 10);
    pax_record(x, "SCHILY.xattr.user.k=v", 21);
    uint8_t h[512];
    GByteArray *b = g_byte_array_new();
    ua_tar_header(h, "PaxHeaders/x", 'x', x->len);
    ua_tar_add(b, h, x->str, x->len);
    ua_tar_header(h, "short", '2', 0);
    ua_tar_add(b, h, NULL, 0);
    ua_tar_header(h, "after", '0', 0);
    ua_tar_add(b, h, NULL, 0);
    ua_tar_end(b);
    struct archive_reader *r = NULL;
    g_assert_cmpint(archive_open_memory(b->data, b->len, NULL, &r, NULL), ==, 0);
    int rc = 0;
    GPtrArray *a = collect(r, &rc, NULL);
    g_assert_cmpint(rc, ==, 0);
    g_assert_cmpuint(a->len, ==, 2);
    const struct rec *m = a->pdata[0];
    g_assert_cmpstr(m->name, ==, "dir/new\nline\xff\xfe");
    g_assert_cmpstr(m->link, ==, "target/\xc3");
    g_assert_cmpint(m->type, ==, ARCHIVE_SYMLINK);
    g_assert_cmpint(m->uid, ==, 70000);
    g_assert_cmpstr(m->gname, ==, "wheel");
    g_assert_cmpint(m->mtime, ==, -2);
    g_assert_cmpuint(m->nsec, ==, 500000000);
    /* the pax values were for that member only */
    m = a->pdata[1];
    g_assert_cmpstr(m->name, ==, "after");
    g_assert_cmpint(m->uid, ==, 0);
    g_assert_cmpstr(m->gname, ==, "root");
    g_ptr_array_unref(a);
    archive_free(r);

    /* a global header: for every member after it, a local one still first */
    g_byte_array_set_size(b, 0);
    g_string_truncate(x, 0);
    pax_record(x, "uname=everyone", 14);
    pax_record(x, "mtime=7", 7);
    ua_tar_header(h, "GlobalHead", 'g', x->len);
    ua_tar_add(b, h, x->str, x->len);
    ua_tar_header(h, "one", '0', 0);
    ua_tar_add(b, h, NULL, 0);
    g_string_truncate(x, 0);
    pax_record(x, "uname=me", 8);
    ua_tar_header(h, "PaxHeaders/two", 'x', x->len);
    ua_tar_add(b, h, x->str, x->len);
    ua_tar_header(h, "two", '0', 0);
    ua_tar_add(b, h, NULL, 0);
    ua_tar_end(b);
    g_assert_cmpint(archive_open_memory(b->data, b->len, NULL, &r, NULL), ==, 0);
    a = collect(r, &rc, NULL);
    g_assert_cmpint(rc, ==, 0);
    g_assert_cmpstr(find(a, "one")->uname, ==, "everyone");
    g_assert_cmpint(find(a, "one")->mtime, ==, 7);
    g_assert_cmpstr(find(a, "two")->uname, ==, "me");
    g_assert_cmpint(find(a, "two")->mtime, ==, 7);
    g_ptr_array_unref(a);
    archive_free(r);

    /* damaged records: a length past the header, a NUL in a path, a bad number */
    const struct { const char *rec; size_t len; } bad[] = {
        {"99 path=x\n", 10}, {"12 path=a\0b\n", 12}, {"13 uid=12x45\n", 13}, {"5 =\n", 4}};
    for (unsigned i = 0; i < G_N_ELEMENTS(bad); i++) {
        g_byte_array_set_size(b, 0);
        ua_tar_header(h, "PaxHeaders/x", 'x', bad[i].len);
        ua_tar_add(b, h, bad[i].rec, bad[i].len);
        ua_tar_header(h, "after", '0', 0);
        ua_tar_add(b, h, NULL, 0);
        ua_tar_end(b);
        assert_fails(b, -EINVAL, "bad pax", "at offset 0");
    }
    g_string_free(x, TRUE);
    g_byte_array_unref(b);
}

/* GNU 'L' and 'K': names of any length, up to the limit. */
static void test_gnu_long(void)
{
    GString *name = g_string_new(NULL);
    for (int i = 0; i < 300; i++)
        g_string_append(name, "0123456789");
    uint8_t h[512];
    GByteArray *b = g_byte_array_new();
    ua_tar_header(h, "././@LongLink", 'L', name->len + 1);
    ua_tar_add(b, h, name->str, name->len + 1);
    ua_tar_header(h, "././@LongLink", 'K', 5);
    ua_tar_add(b, h, "dest", 5);
    ua_tar_header(h, "trunc", '1', 0);
    ua_tar_add(b, h, NULL, 0);
    ua_tar_end(b);
    struct archive_reader *r = NULL;
    g_assert_cmpint(archive_open_memory(b->data, b->len, NULL, &r, NULL), ==, 0);
    int rc = 0;
    GPtrArray *a = collect(r, &rc, NULL);
    g_assert_cmpint(rc, ==, 0);
    g_assert_cmpuint(a->len, ==, 1);
    g_assert_cmpstr(((struct rec *)a->pdata[0])->name, ==, name->str);
    g_assert_cmpstr(((struct rec *)a->pdata[0])->link, ==, "dest");
    g_ptr_array_unref(a);
    archive_free(r);
    struct archive_limits lim = {.max_name = 1024};
    g_autofree char *why = NULL;
    g_assert_cmpint(walk_bytes(b->data, b->len, &lim, &why), ==, -EFBIG);
    g_assert_nonnull(strstr(why, "GNU long name of 3001 bytes at offset 512"));
    g_string_free(name, TRUE);
    g_byte_array_unref(b);
}

/* A gzip bomb (64 MiB of zeros in 64 KiB) as a tar member: stopped at the limit, named. */
static void test_bomb(void)
{
    if (!ua_have("tar gzip head"))
        return;
    char *dir = ua_dir_new();
    ua_sh(dir, "head -c 67108864 /dev/zero | gzip -9 > bomb.gz && tar -cf b.tar bomb.gz && "
               "head -c 67108864 /dev/zero > zeros && tar -czf z.tar.gz zeros && rm zeros");
    g_autofree char *p = ua_path(dir, "b.tar");
    g_autofree char *bytes = NULL;
    gsize len = 0;
    g_assert_true(g_file_get_contents(p, &bytes, &len, NULL));
    g_assert_cmpuint(len, <, 200000);
    struct archive_limits lim = {.max_total = 1 << 20};
    /* walk_all opens the member but reads only its kind: read it through */
    struct archive_reader *r = NULL, *c = NULL;
    g_assert_cmpint(archive_open_memory(bytes, len, &lim, &r, NULL), ==, 0);
    const struct archive_member *m;
    g_assert_cmpint(archive_next(r, &m, NULL), ==, 1);
    g_assert_cmpint(archive_open_member(r, &c, NULL), ==, 0);
    g_assert_cmpint(archive_codec(c), ==, ARCHIVE_GZIP);
    uint8_t buf[65536];
    gssize n;
    g_autofree char *why = NULL;
    while ((n = archive_read_raw(c, buf, sizeof buf, &why)) > 0)
        ;
    g_assert_cmpint(n, ==, -EFBIG);
    g_assert_cmpstr(why, ==, "bomb.gz: decompresses to more than the limit of 1048576 bytes "
                    "(a compression bomb?)");
    archive_free(c);
    archive_free(r);
    /* a compressed tar whose one member is too big to read within the limit */
    g_autofree char *z = ua_path(dir, "z.tar.gz");
    g_autofree char *why2 = NULL;
    g_assert_cmpint(archive_open_file(z, &lim, &r, NULL), ==, 0);
    unsigned members = 0;
    g_assert_cmpint(walk_all(r, &why2, &members), ==, -EFBIG);
    g_assert_nonnull(strstr(why2, "more than the limit"));
    archive_free(r);
    ua_dir_free(dir);
}

/* tars nested 10 deep: the 9th level is one too many for the default limit of 8. */
static void test_nesting(void)
{
    uint8_t h[512];
    GByteArray *inner = g_byte_array_new();
    g_byte_array_append(inner, (const guint8 *)"leaf", 4);
    for (int level = 0; level < 10; level++) {
        GByteArray *outer = g_byte_array_new();
        g_autofree char *name = g_strdup_printf("t%d.tar", level);
        ua_tar_header(h, level ? name : "leaf", '0', inner->len);
        ua_tar_add(outer, h, inner->data, inner->len);
        ua_tar_end(outer);
        g_byte_array_unref(inner);
        inner = outer;
    }
    g_autofree char *why = NULL;
    g_assert_cmpint(walk_bytes(inner->data, inner->len, NULL, &why), ==, -ELOOP);
    g_assert_cmpstr(why, ==, "t9.tar t8.tar t7.tar t6.tar t5.tar t4.tar t3.tar t2.tar: nested "
                    "more than 8 deep (tar)");
    struct archive_limits lim = {.max_depth = 12};
    g_assert_cmpint(walk_bytes(inner->data, inner->len, &lim, NULL), ==, 0);
    g_byte_array_unref(inner);
}

/* ar damage: a header without its "`\n", a long name not in the table, a header cut short. */
static void test_damaged_ar(void)
{
    GString *s = g_string_new("!<arch>\n");
    g_string_append_printf(s, "%-16s%-12s%-6s%-6s%-8s%-10s`\n", "a.o/", "0", "0", "0", "644", "2");
    g_string_append(s, "hi");
    gsize good = s->len;
    GByteArray b = {(guint8 *)s->str, (guint)s->len};
    g_assert_cmpint(walk_bytes(s->str, s->len, NULL, NULL), ==, 0);
    g_string_append_printf(s, "%-16s%-12s%-6s%-6s%-8s%-10s`x", "b.o/", "0", "0", "0", "644", "2");
    b = (GByteArray){(guint8 *)s->str, (guint)s->len};
    assert_fails(&b, -EINVAL, "bad ar header at offset 70", NULL);
    g_string_truncate(s, good);
    g_string_append_printf(s, "%-16s%-12s%-6s%-6s%-8s%-10s`\n", "/99", "0", "0", "0", "644", "0");
    b = (GByteArray){(guint8 *)s->str, (guint)s->len};
    assert_fails(&b, -EINVAL, "ar name 99 at offset 70 is not in the long-name table", NULL);
    g_string_truncate(s, good);
    g_string_append(s, "c.o/    ");
    b = (GByteArray){(guint8 *)s->str, (guint)s->len};
    assert_fails(&b, -EINVAL, "truncated ar header at offset 70", NULL);
    /* a BSD name and a member cut short */
    g_string_truncate(s, good);
    g_string_append_printf(s, "%-16s%-12s%-6s%-6s%-8s%-10s`\n", "#1/20", "0", "0", "0", "644", "30");
    g_string_append_len(s, "a_bsd_long_name.o\0\0\0" "0123", 24);
    b = (GByteArray){(guint8 *)s->str, (guint)s->len};
    assert_fails(&b, -EINVAL, "a_bsd_long_name.o: truncated: 6 bytes of its 10 missing", NULL);
    g_string_free(s, TRUE);
}

/* Every cut of a .deb (xz) ends in an error or the end, never a crash or a hang. */
static void test_truncations(void)
{
    if (!ua_have("dpkg-deb"))
        return;
    char *dir = ua_dir_new();
    ua_sh(dir, "mkdir -p p/DEBIAN p/usr/share/doc/x && seq 1 3000 > p/usr/share/doc/x/f && "
               "gzip -9n p/usr/share/doc/x/f && printf 'Package: x\\nVersion: 1\\n"
               "Architecture: all\\nMaintainer: m <m@example.org>\\nDescription: d\\n d\\n' > "
               "p/DEBIAN/control && dpkg-deb -Zxz --build p x.deb >/dev/null");
    g_autofree char *p = ua_path(dir, "x.deb");
    g_autofree char *bytes = NULL;
    gsize len = 0;
    g_assert_true(g_file_get_contents(p, &bytes, &len, NULL));
    g_assert_cmpint(walk_bytes(bytes, len, NULL, NULL), ==, 0);
    unsigned errors = 0;
    for (gsize cut = 0; cut < len; cut += 7) {
        g_autofree char *why = NULL;
        int rc = walk_bytes(bytes, cut, NULL, &why);
        g_assert_cmpint(rc, <=, 0);
        if (rc < 0) {
            g_assert_nonnull(why);
            errors++;
        }
    }
    g_assert_cmpuint(errors, >, len / 7 / 2); /* most cuts are noticed */
    ua_dir_free(dir);
}

/* archive_open_file on what is not a regular file: -EINVAL naming its type, at once (a FIFO
 * with no writer must not block the open). */
static void test_not_regular(void)
{
    char *dir = ua_dir_new();
    g_autofree char *pf = ua_path(dir, "fifo");
    g_assert_cmpint(mkfifo(pf, 0600), ==, 0);
    const char *path[] = {pf, "/dev/null", dir};
    const char *want[] = {"not a regular file (a FIFO)", "not a regular file (a character device)",
                          "not a regular file (a directory)"};
    alarm(20); /* (a hang fails the test) */
    for (int i = 0; i < 3; i++) {
        struct archive_reader *r = NULL;
        g_autofree char *why = NULL;
        g_assert_cmpint(archive_open_file(path[i], NULL, &r, &why), ==, -EINVAL);
        g_assert_null(r);
        g_assert_cmpstr(why, ==, want[i]);
    }
    alarm(0);
    ua_dir_free(dir);
}

/* A zstd frame asking for a 2 GiB window (zstd --long=31, its input's size unknown): a limit
 * reached (-EFBIG, saying so), not damage: the data is valid, as xz's memory limit is. */
static void test_zstd_window(void)
{
    static const unsigned char long31[] = {0x28, 0xb5, 0x2f, 0xfd, 0x04, 0xa8, 0x09,
                                           0x00, 0x00, 0x78, 0x23, 0x11, 0x04, 0x83};
    g_autofree char *why = NULL;
    g_assert_cmpint(walk_bytes(long31, sizeof long31, NULL, &why), ==, -EFBIG);
    g_assert_nonnull(strstr(why, "zstd data needs a window of more than 128 MiB"));
}

/* A cancel flag (a signal handler's) stops a member's read where it is: -EINTR, said; until
 * it is set, the read goes on as without one. */
static void test_cancel(void)
{
    static uint8_t zeros[200000];
    uint8_t h[512], buf[4096];
    GByteArray *b = g_byte_array_new();
    ua_tar_header(h, "big", '0', sizeof zeros);
    ua_tar_add(b, h, zeros, sizeof zeros);
    ua_tar_end(b);
    volatile sig_atomic_t stop = 0;
    struct archive_limits lim = {.cancel = &stop};
    struct archive_reader *r = NULL;
    const struct archive_member *m;
    g_assert_cmpint(archive_open_memory(b->data, b->len, &lim, &r, NULL), ==, 0);
    g_assert_cmpint(archive_next(r, &m, NULL), ==, 1);
    g_assert_cmpint(archive_read(r, buf, sizeof buf, NULL), ==, (gssize)sizeof buf);
    stop = SIGINT; /* the handler ran */
    g_autofree char *why = NULL;
    g_assert_cmpint(archive_read(r, buf, sizeof buf, &why), ==, -EINTR);
    g_assert_nonnull(strstr(why, "interrupted"));
    archive_free(r);
    g_byte_array_unref(b);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/archive/tar-formats", test_tar_formats);
    g_test_add_func("/archive/pax-mtime", test_pax_mtime);
    g_test_add_func("/archive/compressed", test_compressed);
    g_test_add_func("/archive/compressed-plain", test_compressed_plain);
    g_test_add_func("/archive/ar-library", test_ar_library);
    g_test_add_func("/archive/deb", test_deb);
    g_test_add_func("/archive/damaged-tar", test_damaged_tar);
    g_test_add_func("/archive/base256", test_base256);
    g_test_add_func("/archive/pax", test_pax);
    g_test_add_func("/archive/gnu-long", test_gnu_long);
    g_test_add_func("/archive/bomb", test_bomb);
    g_test_add_func("/archive/nesting", test_nesting);
    g_test_add_func("/archive/damaged-ar", test_damaged_ar);
    g_test_add_func("/archive/truncations", test_truncations);
    g_test_add_func("/archive/not-regular", test_not_regular);
    g_test_add_func("/archive/zstd-window", test_zstd_window);
    g_test_add_func("/archive/cancel", test_cancel);
    return g_test_run();
}
