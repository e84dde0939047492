/* Unit tests: aclx.c hides the POSIX ACL entries naming ids a user namespace does not hold. */
#include "aclx.h"

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

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/aclx/drops-unmapped-named-entries", test_drops_unmapped_named_entries);
    g_test_add_func("/aclx/leaves-other-values", test_leaves_other_values);
    g_test_add_func("/aclx/names", test_names);
    return g_test_run();
}
