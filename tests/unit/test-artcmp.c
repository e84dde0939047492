/* Unit tests of artcmp (query/lib/artcmp.c) on artifacts made by the real tools: .debs built
 * twice (identical; a changed file; another compression level), tars whose members differ in
 * order, mode, mtime, owner, type or link target or are in one only, a static library with
 * one object changed, members of one name, plain and compressed files, damaged input. */
#include "artcmp.h"
#include "unit-archive.h"

#include <errno.h>
#include <glib.h>
#include <grp.h>
#include <pwd.h>
#include <string.h>
#include <unistd.h>

static GPtrArray *compare(const char *dir, const char *a, const char *b)
{
    g_autofree char *pa = ua_path(dir, a), *pb = ua_path(dir, b);
    g_autofree char *why = NULL;
    GPtrArray *d = NULL;
    int rc = artcmp_compare(pa, pb, NULL, &d, &why);
    if (rc < 0)
        g_error("artcmp_compare(%s, %s): %d %s", a, b, rc, why);
    g_assert_null(why);
    return d;
}

/* The differences as lines "MEMBER|KIND|A|B|NOTE", to compare whole. */
static char *show(GPtrArray *d)
{
    GString *s = g_string_new(NULL);
    for (guint i = 0; i < d->len; i++) {
        const struct artcmp_diff *x = d->pdata[i];
        g_autofree char *joined = g_strjoinv(" ", x->parts);
        g_assert_cmpstr(joined, ==, x->member);
        g_string_append_printf(s, "%s|%s|%s|%s|%s\n", x->member, artcmp_kind_name(x->kind),
                               x->a ? x->a : "-", x->b ? x->b : "-", x->note ? x->note : "-");
    }
    return g_string_free(s, FALSE);
}

static void expect(const char *dir, const char *a, const char *b, const char *want)
{
    GPtrArray *d = compare(dir, a, b);
    g_autofree char *got = show(d);
    g_assert_cmpstr(got, ==, want);
    g_ptr_array_unref(d);
}

#define CONTROL "printf 'Package: x\\nVersion: 1\\nArchitecture: all\\nMaintainer: m " \
                "<m@example.org>\\nDescription: d\\n d\\n' > $1/DEBIAN/control"

/* pkg DIR: a package tree; deb DIR OUT ARGS: built reproducibly. */
static const char debfns[] =
    "pkg() { mkdir -p $1/DEBIAN $1/usr/bin $1/usr/share/doc/x && "
    "printf '#!/bin/sh\\necho x\\n' > $1/usr/bin/x && chmod 0755 $1/usr/bin/x && "
    "seq 1 500 > $1/usr/share/doc/x/notes && " CONTROL "; }; "
    "deb() { d=$1 o=$2; shift 2; SOURCE_DATE_EPOCH=1700000000 dpkg-deb --root-owner-group "
    "\"$@\" --build $d $o >/dev/null; }; ";

static void sh_deb(const char *dir, const char *cmd)
{
    g_autofree char *full = g_strconcat(debfns, cmd, NULL);
    ua_sh(dir, full);
}

/* Two builds of one tree: no difference, for xz and zstd alike. */
static void test_identical_debs(void)
{
    if (!ua_have("dpkg-deb"))
        return;
    char *dir = ua_dir_new();
    sh_deb(dir, "pkg p && pkg q && deb p a.deb -Zxz && deb q b.deb -Zxz && "
                "deb p c.deb -Zzstd && deb q d.deb -Zzstd");
    expect(dir, "a.deb", "b.deb", "");
    expect(dir, "c.deb", "d.deb", "");
    ua_dir_free(dir);
}

/* One file changed: the member named, both SHA-256s; nothing else. */
static void test_changed_file(void)
{
    if (!ua_have("dpkg-deb"))
        return;
    char *dir = ua_dir_new();
    sh_deb(dir, "pkg p && pkg q && printf '#!/bin/sh\\necho y\\n' > q/usr/bin/x && "
                "deb p a.deb -Zxz && deb q b.deb -Zxz && deb p c.deb -Zzstd && deb q d.deb -Zzstd");
    g_autofree char *sa = ua_sha(dir, "p/usr/bin/x"), *sb = ua_sha(dir, "q/usr/bin/x");
    g_autofree char *want_xz = g_strdup_printf("data.tar.xz ./usr/bin/x|content|%s|%s|-\n", sa, sb);
    expect(dir, "a.deb", "b.deb", want_xz);
    g_autofree char *want_zst = g_strdup_printf("data.tar.zst ./usr/bin/x|content|%s|%s|-\n", sa, sb);
    expect(dir, "c.deb", "d.deb", want_zst);
    /* the parts, for a caller that must not split on spaces */
    GPtrArray *d = compare(dir, "a.deb", "b.deb");
    const struct artcmp_diff *x = d->pdata[0];
    g_assert_cmpstr(x->parts[0], ==, "data.tar.xz");
    g_assert_cmpstr(x->parts[1], ==, "./usr/bin/x");
    g_assert_null(x->parts[2]);
    g_ptr_array_unref(d);
    ua_dir_free(dir);
}

/* The same members compressed otherwise: the compressed member differs, its members do not. */
static void test_recompressed(void)
{
    if (!ua_have("dpkg-deb"))
        return;
    char *dir = ua_dir_new();
    sh_deb(dir, "pkg p && deb p a.deb -Zxz -z0 && deb p b.deb -Zxz -z9");
    GPtrArray *d = compare(dir, "a.deb", "b.deb");
    g_autofree char *got = show(d);
    g_assert_cmpuint(d->len, >=, 1);
    for (guint i = 0; i < d->len; i++) {
        const struct artcmp_diff *x = d->pdata[i];
        g_assert_cmpint(x->kind, ==, ARTCMP_CONTENT);
        g_assert_true(g_str_has_prefix(x->member, "control.tar.xz") ||
                      g_str_has_prefix(x->member, "data.tar.xz"));
        g_assert_null(x->parts[1]);
        g_assert_cmpstr(x->note, ==, "the members are identical; the archive's bytes differ (tar, xz)");
    }
    g_ptr_array_unref(d);
    ua_dir_free(dir);
}

#define TAROPTS "--owner=0 --group=0 --numeric-owner --mtime=@1600000000 --format=gnu "

/* The same members in another order (readdir's): one difference, naming the archive. */
static void test_order(void)
{
    if (!ua_have("tar"))
        return;
    char *dir = ua_dir_new();
    ua_sh(dir, "for f in a b c d; do echo $f > $f; done && "
               "tar " TAROPTS "-cf x.tar a b c d && tar " TAROPTS "-cf y.tar a c b d && "
               "mkdir o1 o2 && cp x.tar o1/x.tar && cp y.tar o2/x.tar && "
               "tar " TAROPTS "-C o1 -cf outer1.tar x.tar && tar " TAROPTS "-C o2 -cf outer2.tar x.tar");
    expect(dir, "x.tar", "y.tar", "|order|b\nc\nd|c\nb\nd|-\n");
    expect(dir, "outer1.tar", "outer2.tar", "x.tar|order|b\nc\nd|c\nb\nd|-\n");
    ua_dir_free(dir);
}

/* Mode, mtime, owner: each named, with both values. */
static void test_metadata(void)
{
    if (!ua_have("tar"))
        return;
    char *dir = ua_dir_new();
    ua_sh(dir, "echo f > f && echo g > g && o='--sort=name --format=gnu' && "
               "tar $o --owner=root:0 --group=root:0 --mode=0644 --mtime=@1600000000 -cf base.tar f g && "
               "tar $o --owner=root:0 --group=root:0 --mode=0644 --mtime=@1600000000 -cf mode.tar g && "
               "tar $o --owner=root:0 --group=root:0 --mode=0600 --mtime=@1600000000 -rf mode.tar f && "
               "tar $o --owner=root:0 --group=root:0 --mode=0644 --mtime=@1600000001 -cf time.tar f g && "
               "tar $o --owner=bin:2 --group=root:0 --mode=0644 --mtime=@1600000000 -cf own.tar f g");
    /* mode.tar holds g then f: an order difference as well */
    expect(dir, "base.tar", "mode.tar", "|order|f\ng|g\nf|-\nf|mode|0644|0600|-\n");
    expect(dir, "base.tar", "time.tar", "f|mtime|1600000000|1600000001|-\ng|mtime|1600000000|1600000001|-\n");
    expect(dir, "base.tar", "own.tar", "f|owner|0/0 root/root|2/0 bin/root|-\n"
                                       "g|owner|0/0 root/root|2/0 bin/root|-\n");
    ua_dir_free(dir);
}

/* A type change, a link target, members in one only; sorted by member. */
static void test_type_link_only(void)
{
    if (!ua_have("tar"))
        return;
    char *dir = ua_dir_new();
    ua_sh(dir, "mkdir A B A/d && echo f > A/f && ln -s x A/s && echo e > B/e && ln -s f B/f && "
               "ln -s y B/s && (cd A && tar " TAROPTS "--sort=name -cf ../a.tar d f s) && "
               "(cd B && tar " TAROPTS "--sort=name -cf ../b.tar e f s)");
    expect(dir, "a.tar", "b.tar", "d/|only in A|dir|-|-\ne|only in B|-|file|-\n"
                                  "f|type|file|symlink|-\ns|link target|x|y|-\n");
    ua_dir_free(dir);
}

/* A static library with one object changed: that member, and not its neighbour. */
static void test_library(void)
{
    if (!ua_have("ar cc"))
        return;
    char *dir = ua_dir_new();
    ua_sh(dir, "echo 'int one(void) { return 1; }' > one.c && "
               "echo 'int two(void) { return 2; }' > two.c && cc -O1 -c one.c two.c && "
               "ar rcsD a.a one.o two.o && cp two.o two-a.o && "
               "echo 'int two(void) { return 3; }' > two.c && cc -O1 -c two.c && "
               "ar rcsD b.a one.o two.o && ar qD a.a two-a.o && ar qD b.a two.o && "
               "mv two-a.o keep.o");
    /* a.a: /, one.o, two.o, two-a.o; b.a: /, one.o, two.o (changed), two.o (the second) */
    g_autofree char *s1 = ua_sha(dir, "keep.o"), *s2 = ua_sha(dir, "two.o");
    g_autofree char *want = g_strdup_printf("two-a.o|only in A|file|-|-\n"
                                            "two.o|content|%s|%s|-\n"
                                            "two.o [2]|only in B|-|file|-\n", s1, s2);
    expect(dir, "a.a", "b.a", want);
    ua_dir_free(dir);
}

/* A member that only looks compressed (a test suite's corrupt .gz): compared by its bytes,
 * with the reason; the same member on both sides: no difference, no error. */
static void test_unreadable_member(void)
{
    if (!ua_have("tar gzip head"))
        return;
    char *dir = ua_dir_new();
    ua_sh(dir, "mkdir A B C && seq 1 1000 | gzip -9n > bad.gz && "
               "head -c 100 bad.gz > A/cut.gz && head -c 120 bad.gz > B/cut.gz && "
               "echo 1 > A/f && echo 2 > B/f && cp A/cut.gz B/f C/ && "
               "(cd A && tar " TAROPTS "-cf ../a.tar cut.gz f) && (cd B && tar " TAROPTS "-cf ../b.tar cut.gz f) && "
               "(cd C && tar " TAROPTS "-cf ../c.tar cut.gz f)");
    g_autofree char *s1 = ua_sha(dir, "A/cut.gz"), *s2 = ua_sha(dir, "B/cut.gz");
    g_autofree char *f1 = ua_sha(dir, "A/f"), *f2 = ua_sha(dir, "B/f");
    /* (how far zlib gets into the cut stream is zlib's business: "*") */
    g_autofree char *want = g_strdup_printf(
        "cut.gz|content|%s|%s|compared as bytes: A's and B's unreadable (cut.gz: gzip data is "
        "damaged (truncated) after * decompressed bytes)\nf|content|%s|%s|-\n", s1, s2, f1, f2);
    GPtrArray *d = compare(dir, "a.tar", "b.tar");
    g_autofree char *got = show(d);
    if (!g_pattern_match_simple(want, got))
        g_error("got %s, want %s", got, want);
    g_ptr_array_unref(d);
    g_autofree char *want2 = g_strdup_printf("f|content|%s|%s|-\n", f1, f2);
    expect(dir, "a.tar", "c.tar", want2);
    ua_dir_free(dir);
}

/* Without --root-owner-group, a file's owner goes into the package: named. */
static void test_owner_deb(void)
{
    if (!ua_have("dpkg-deb chown"))
        return;
    if (geteuid() != 0) {
        g_test_skip("giving a file away needs root");
        return;
    }
    char *dir = ua_dir_new();
    sh_deb(dir, "pkg p && pkg q && chown 1234:5678 q/usr/bin/x && deb p a.deb -Zzstd && "
                "SOURCE_DATE_EPOCH=1700000000 dpkg-deb -Zzstd --build q b.deb >/dev/null");
    GPtrArray *d = compare(dir, "a.deb", "b.deb");
    g_assert_cmpuint(d->len, ==, 1);
    const struct artcmp_diff *x = d->pdata[0];
    g_assert_cmpint(x->kind, ==, ARTCMP_OWNER);
    g_assert_cmpstr(x->member, ==, "data.tar.zst ./usr/bin/x");
    g_assert_cmpstr(x->a, ==, "0/0 root/root");
    /* dpkg-deb names the ids as this machine does (usually not at all) */
    struct passwd *pw = getpwuid(1234);
    struct group *gr = getgrgid(5678);
    g_autofree char *want = pw || gr ? g_strdup_printf("1234/5678 %s/%s", pw ? pw->pw_name : "-",
                                                       gr ? gr->gr_name : "-")
                                     : g_strdup("1234/5678");
    g_assert_cmpstr(x->b, ==, want);
    g_ptr_array_unref(d);
    ua_dir_free(dir);
}

/* Devices (crafted: no tool makes one without root): the numbers compared, in memory. */
static void test_device(void)
{
    GByteArray *t[2];
    for (int i = 0; i < 2; i++) {
        uint8_t h[512];
        t[i] = g_byte_array_new();
        ua_tar_header(h, "dev/null", '3', 0);
        memcpy(h + 329, "0000001", 7);
        memcpy(h + 337, i ? "0000004" : "0000003", 7);
        ua_tar_add(t[i], h, NULL, 0);
        ua_tar_end(t[i]);
    }
    GPtrArray *d = NULL;
    g_assert_cmpint(artcmp_compare_memory(t[0]->data, t[0]->len, t[1]->data, t[1]->len, NULL,
                                          &d, NULL), ==, 0);
    g_autofree char *got = show(d);
    g_assert_cmpstr(got, ==, "dev/null|device|1,3|1,4|-\n");
    g_ptr_array_unref(d);
    for (int i = 0; i < 2; i++)
        g_byte_array_unref(t[i]);
}

/* Files that are no archives: by SHA-256, a gzip header's difference said to be only that. */
static void test_plain(void)
{
    if (!ua_have("gzip touch"))
        return;
    char *dir = ua_dir_new();
    ua_sh(dir, "echo one > a && echo two > b && echo one > c && "
               "seq 1 100 > n && cp n m && touch -d @1 n && touch -d @2 m && "
               "gzip -c n > n.gz && gzip -c m > m.gz");
    g_autofree char *sa = ua_sha(dir, "a"), *sb = ua_sha(dir, "b");
    g_autofree char *want = g_strdup_printf("|content|%s|%s|-\n", sa, sb);
    expect(dir, "a", "b", want);
    expect(dir, "a", "c", "");
    g_autofree char *gn = ua_sha(dir, "n.gz"), *gm = ua_sha(dir, "m.gz");
    g_autofree char *want_gz = g_strdup_printf("|content|%s|%s|the uncompressed contents are "
                                               "identical (gzip)\n", gn, gm);
    expect(dir, "n.gz", "m.gz", want_gz);
    ua_dir_free(dir);
}

/* Damaged or missing input: an error naming the file and the member, no list. */
static void test_errors(void)
{
    if (!ua_have("dpkg-deb head"))
        return;
    char *dir = ua_dir_new();
    sh_deb(dir, "pkg p && seq 1 20000 > p/usr/share/doc/x/notes && deb p a.deb -Zxz && "
                "head -c 3000 a.deb > cut.deb");
    g_autofree char *pa = ua_path(dir, "a.deb"), *pc = ua_path(dir, "cut.deb");
    g_autofree char *pm = ua_path(dir, "missing.deb");
    GPtrArray *d = NULL;
    g_autofree char *why = NULL;
    g_assert_cmpint(artcmp_compare(pa, pc, NULL, &d, &why), ==, -EINVAL);
    g_assert_null(d);
    g_autofree char *prefix = g_strdup_printf("%s: data.tar.xz", pc);
    if (!g_str_has_prefix(why, prefix))
        g_error("%s does not start with %s", why, prefix);
    g_clear_pointer(&why, g_free);
    g_assert_cmpint(artcmp_compare(pa, pm, NULL, &d, &why), ==, -ENOENT);
    g_assert_nonnull(strstr(why, "missing.deb: cannot open"));
    /* a limit, from the options */
    sh_deb(dir, "cp -a p q && seq 1 20001 > q/usr/share/doc/x/notes && deb q b.deb -Zxz");
    g_autofree char *pb = ua_path(dir, "b.deb");
    struct artcmp_opts o = {.limits = {.max_total = 50000}};
    g_clear_pointer(&why, g_free);
    g_assert_cmpint(artcmp_compare(pa, pb, &o, &d, &why), ==, -EFBIG);
    g_assert_nonnull(strstr(why, "data.tar.xz: decompresses to more than the limit of 50000"));
    ua_dir_free(dir);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/artcmp/identical-debs", test_identical_debs);
    g_test_add_func("/artcmp/changed-file", test_changed_file);
    g_test_add_func("/artcmp/recompressed", test_recompressed);
    g_test_add_func("/artcmp/order", test_order);
    g_test_add_func("/artcmp/metadata", test_metadata);
    g_test_add_func("/artcmp/type-link-only", test_type_link_only);
    g_test_add_func("/artcmp/library", test_library);
    g_test_add_func("/artcmp/unreadable-member", test_unreadable_member);
    g_test_add_func("/artcmp/owner-deb", test_owner_deb);
    g_test_add_func("/artcmp/device", test_device);
    g_test_add_func("/artcmp/plain", test_plain);
    g_test_add_func("/artcmp/errors", test_errors);
    return g_test_run();
}
