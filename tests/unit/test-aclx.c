/* Unit tests: aclx.c hides the POSIX ACL entries naming ids a user namespace does not hold. */
#include "aclx.h"
#include "fs.h"

#include <glib.h>
#include <string.h>

struct entry {
    uint16_t tag, perm;
    uint32_t id;
};

/* A value: version 2, then the entries. */
static size_t make(unsigned char *buf, const struct entry *e, size_t n)
{
    uint32_t version = 2;
    memcpy(buf, &version, 4);
    memcpy(buf + 4, e, n * sizeof *e);
    return 4 + n * sizeof *e;
}

/* Ids below 65536 exist (users and groups alike). */
static bool below_65536(void *ctx, bool is_group, uint32_t id)
{
    (void)ctx;
    (void)is_group;
    return id < 65536;
}

static void test_drops_unmapped_named_entries(void)
{
    const struct entry in[] = {{1, 6, 0xffffffff}, {2, 6, 70000}, {2, 4, 1001}, {4, 4, 0xffffffff},
                               {8, 4, 100},        {8, 6, 99999}, {0x10, 6, 0xffffffff},
                               {0x20, 4, 0xffffffff}};
    const struct entry want[] = {{1, 6, 0xffffffff}, {2, 4, 1001}, {4, 4, 0xffffffff},
                                 {8, 4, 100}, {0x10, 6, 0xffffffff}, {0x20, 4, 0xffffffff}};
    unsigned char v[128], w[128];
    size_t len = make(v, in, G_N_ELEMENTS(in));
    g_assert_cmpuint(aclx_count_unmapped(v, len, below_65536, NULL), ==, 2);
    size_t out = aclx_drop_unmapped(v, len, below_65536, NULL);
    size_t want_len = make(w, want, G_N_ELEMENTS(want));
    g_assert_cmpuint(out, ==, want_len);
    g_assert_cmpmem(v, out, w, want_len);
}

static void test_leaves_other_values(void)
{
    /* The owner, group and other entries carry no id of their own (0xffffffff is unmapped
     * here, and still kept). */
    const struct entry base[] = {{1, 6, 0xffffffff}, {4, 4, 0xffffffff}, {0x20, 4, 0xffffffff}};
    unsigned char v[64];
    size_t len = make(v, base, G_N_ELEMENTS(base));
    g_assert_cmpuint(aclx_drop_unmapped(v, len, below_65536, NULL), ==, len);
    /* Not an ACL: wrong version, a length between entries, too short. */
    uint32_t version = 3;
    memcpy(v, &version, 4);
    g_assert_cmpuint(aclx_count_unmapped(v, len, below_65536, NULL), ==, 0);
    g_assert_cmpuint(aclx_drop_unmapped(v, len, below_65536, NULL), ==, len);
    version = 2;
    memcpy(v, &version, 4);
    g_assert_cmpuint(aclx_drop_unmapped(v, len - 1, below_65536, NULL), ==, len - 1);
    g_assert_cmpuint(aclx_drop_unmapped(v, 3, below_65536, NULL), ==, 3);
    g_assert_cmpuint(aclx_drop_unmapped(NULL, 0, below_65536, NULL), ==, 0);
}

static void test_names(void)
{
    g_assert_true(aclx_is_acl_name("system.posix_acl_access"));
    g_assert_true(aclx_is_acl_name("system.posix_acl_default"));
    g_assert_false(aclx_is_acl_name("security.capability"));
    g_assert_false(aclx_is_acl_name("system.posix_acl_access2"));
}

/* The gid map of a user in ten supplementary groups, each mapped to itself by a subgid line
 * (what kernel checks need, launcher/idmap.h): 0..65535 to the range but those eleven ids,
 * which keep theirs: 23 ranges.  Every one of them is held, ids beyond are not. */
static void test_inside_ids_of_many_groups(void)
{
    static const uint32_t own[] = {4, 24, 27, 30, 46, 100, 110, 120, 131, 999, 1000};
    struct fs_id_range g[2 * G_N_ELEMENTS(own) + 1];
    int n = 0;
    uint32_t next = 0;
    for (size_t i = 0; i < G_N_ELEMENTS(own); i++) {
        g[n++] = (struct fs_id_range){next, own[i] - next};
        g[n++] = (struct fs_id_range){own[i], 1};
        next = own[i] + 1;
    }
    g[n++] = (struct fs_id_range){next, 65536 - next};
    struct fs_id_range u[] = {{0, 1000}, {1000, 1}, {1001, 64535}};
    struct fs_config cfg = {.out_fd = -1, .err_fd = -1};
    struct fs *fs = fs_new(&cfg);
    fs_set_inside_ids(fs, u, G_N_ELEMENTS(u), g, n);
    for (size_t i = 0; i < G_N_ELEMENTS(own); i++)
        g_assert_true(fs_inside_id_held(fs, true, own[i]));
    g_assert_true(fs_inside_id_held(fs, true, 5000));
    g_assert_true(fs_inside_id_held(fs, true, 65535));
    g_assert_false(fs_inside_id_held(fs, true, 65536));
    g_assert_true(fs_inside_id_held(fs, false, 1000));
    g_assert_false(fs_inside_id_held(fs, false, 70000));
    fs_free(fs);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/aclx/drops-unmapped-named-entries", test_drops_unmapped_named_entries);
    g_test_add_func("/aclx/leaves-other-values", test_leaves_other_values);
    g_test_add_func("/aclx/names", test_names);
    g_test_add_func("/aclx/inside-ids-of-many-groups", test_inside_ids_of_many_groups);
    return g_test_run();
}
