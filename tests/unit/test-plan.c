/* What `buildtrail run` traces (launcher/plan.h), on made-up machines: the top of the
 * filesystem, --system and its watched variant, --private-tmp, mounts with other flags inside
 * a tree, odd mountinfo lines, bind mounts, a mount point that is a file, overlapping --trace
 * dirs, the workspace, the kernel's trees, the limit on trees, and the filesystems that judge
 * permissions themselves. */
#include "plan.h"

#include <errno.h>
#include <glib.h>
#include <string.h>
#include <sys/mount.h>

/* --- a made-up machine ------------------------------------------------------------------- */

enum kind { DIR_, LINK_TO_DIR, FILE_ };

struct entry {
    const char *path;
    enum kind kind;
    unsigned long fs_type; /* 0: the one of the filesystem holding it */
    unsigned long flags;   /* of the filesystem holding it (with fs_type or mounted: `mounted`) */
    bool mounted;          /* a filesystem of its own: its flags are its own */
};

#define PROC_MAGIC 0x9fa0
#define CGROUP2_MAGIC 0x63677270
#define EXT4_MAGIC 0xef53

static const struct entry machine[] = {
    {"/", DIR_, EXT4_MAGIC, 0, true},
    {"/bin", LINK_TO_DIR, 0, 0, false},   /* merged /usr */
    {"/lib", LINK_TO_DIR, 0, 0, false},
    {"/lib64", LINK_TO_DIR, 0, 0, false},
    {"/sbin", LINK_TO_DIR, 0, 0, false},
    {"/boot", DIR_, 0, 0, false},
    {"/dev", DIR_, 0, MS_NOSUID, true},
    {"/etc", DIR_, 0, 0, false},
    {"/home", DIR_, 0, MS_NODEV, true},
    {"/home/alice/nfs", DIR_, 0x6969, MS_NOSUID | MS_NODEV, true},
    {"/home/alice/same", DIR_, 0, MS_NODEV, true},        /* same flags as /home */
    {"/home/alice/ro", DIR_, 0, MS_NODEV | MS_RDONLY, true}, /* a read-only bind mount */
    {"/home/alice/x.conf", FILE_, 0, MS_RDONLY, true},   /* a bind-mounted file */
    {"/home/my disk", DIR_, 0, MS_NOEXEC, true},
    {"/home/cg", DIR_, CGROUP2_MAGIC, MS_NOSUID, true},  /* a cgroup2 mounted in a tree */
    {"/media", DIR_, 0, 0, false},
    {"/mnt", DIR_, 0, 0, false},
    {"/opt", DIR_, 0, 0, false},
    {"/proc", DIR_, PROC_MAGIC, MS_NOSUID, true},
    {"/root", DIR_, 0, 0, false},
    {"/run", DIR_, 0, MS_NOSUID, true},
    {"/srv", DIR_, 0, 0, false},
    {"/srv/a\nb", DIR_, 0, MS_NOEXEC, true},
    {"/sys", DIR_, 0x62656572, MS_NOSUID, true},
    {"/tmp", DIR_, 0, MS_NOSUID | MS_NODEV, true},
    {"/usr", DIR_, 0, 0, false},
    {"/usr/local", DIR_, 0, MS_NODEV, true},
    {"/usr/lib/modules", DIR_, 0, MS_RDONLY, true},
    {"/usr/lib/kernel-proc", DIR_, PROC_MAGIC, 0, true},
    {"/usr/src", DIR_, 0, 0, false},
    {"/usr/src/proj", DIR_, 0, 0, false},
    {"/var", DIR_, 0, 0, false},
    {"/vmlinuz", FILE_, 0, 0, false},       /* a file at the top */
    {"/initrd.img", LINK_TO_DIR, 0, 0, false},
};

static const struct entry *find(const char *path)
{
    const struct entry *best = NULL;
    for (size_t i = 0; i < G_N_ELEMENTS(machine); i++)
        if (plan_path_under(path, machine[i].path) &&
            (!best || strlen(machine[i].path) > strlen(best->path)))
            best = &machine[i];
    return best;
}

/* The filesystem holding `path`: the deepest mounted entry above it. */
static const struct entry *holder(const char *path)
{
    const struct entry *best = NULL;
    for (size_t i = 0; i < G_N_ELEMENTS(machine); i++)
        if (machine[i].mounted && plan_path_under(path, machine[i].path) &&
            (!best || strlen(machine[i].path) > strlen(best->path)))
            best = &machine[i];
    return best;
}

static bool fake_is_dir(void *ctx, const char *path, bool follow)
{
    const struct entry *e = find(path);
    if (!e || strcmp(e->path, path))
        return false;
    return e->kind == DIR_ || (follow && e->kind == LINK_TO_DIR);
}

static unsigned long fake_fs_type(void *ctx, const char *path)
{
    const struct entry *e = holder(path);
    return e && e->fs_type ? e->fs_type : EXT4_MAGIC;
}

static unsigned long fake_mount_flags(void *ctx, const char *path)
{
    const struct entry *e = holder(path);
    return e ? e->flags : 0;
}

static const struct plan_probe probe = {fake_is_dir, fake_fs_type, fake_mount_flags, NULL};

static const char *const tops[] = {".", "..", "var", "usr", "tmp", "sys", "srv", "sbin", "run",
                                   "root", "proc", "opt", "mnt", "media", "lib64", "lib",
                                   "home", "etc", "dev", "boot", "bin", "vmlinuz", "initrd.img",
                                   "lost"};

/* As the kernel writes it, with two odd lines the parser must skip. */
static const char *const mountinfo =
    "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
    "23 22 0:5 / /dev rw,nosuid shared:2 - devtmpfs udev rw\n"
    "24 22 0:22 / /proc rw,nosuid,nodev,noexec shared:12 - proc proc rw\n"
    "25 22 0:23 / /sys rw,nosuid shared:7 - sysfs sysfs rw\n"
    "26 22 0:24 / /run rw,nosuid shared:3 - tmpfs tmpfs rw\n"
    "27 22 8:2 / /home rw,nodev shared:30 - ext4 /dev/sda2 rw\n"
    "28 27 0:50 / /home/alice/nfs rw,nosuid,nodev shared:31 - nfs4 srv:/export rw,vers=4.2\n"
    "29 27 8:2 /alice/data /home/alice/same rw,nodev shared:30 - ext4 /dev/sda2 rw\n"
    "30 27 8:2 /alice/data /home/alice/ro ro,nodev shared:30 - ext4 /dev/sda2 rw\n"
    "31 27 8:1 /etc/x.conf /home/alice/x.conf ro shared:1 - ext4 /dev/sda1 rw\n"
    "32 27 8:3 / /home/my\\040disk rw,noexec - ext4 /dev/sdb1 rw\n"
    "33 27 0:30 / /home/cg rw,nosuid - cgroup2 cgroup2 rw\n"
    "\n"
    "34 22 8:4 / /srv/a\\012b rw,noexec - ext4 /dev/sdc1 rw\n"
    "35 22 0:31 / /tmp rw,nosuid,nodev - tmpfs tmpfs rw\n"
    "36 22 8:5 / /usr/local rw,nodev - ext4 /dev/sdd1 rw\n"
    "37 22 8:6 / /usr/lib/modules ro - squashfs /dev/loop0 ro\n"
    "38 22 8:6 / /usr/lib/modules ro - squashfs /dev/loop0 ro\n"
    "39 22 0:32 / /usr/lib/kernel-proc rw - proc proc rw\n"
    "garbage\n"
    "40 22 8:7 /\n";

static struct plan *plan_with(bool system, bool watch, bool private_tmp, int max_trees,
                              const char *info)
{
    struct plan_input in = {tops, G_N_ELEMENTS(tops), info, system, watch, private_tmp,
                            max_trees};
    return plan_new(&in, &probe);
}

/* The trees' paths, one per line, as planned. */
static char *trees_of(const struct plan *p)
{
    GString *s = g_string_new(NULL);
    for (int i = 0; i < plan_n_trees(p); i++) {
        const struct plan_tree *t = plan_tree(p, i);
        g_string_append_printf(s, "%s%s%s\n", t->path,
                               t->role == PLAN_WORKSPACE ? " (workspace)"
                               : t->role == PLAN_TMP     ? " (tmp)"
                                                         : "",
                               strcmp(t->path, t->backing) ? " *" : "");
    }
    return g_string_free(s, FALSE);
}

static char *list_of(const GPtrArray *a)
{
    GString *s = g_string_new(NULL);
    for (guint i = 0; i < a->len; i++)
        g_string_append_printf(s, "%s\n", (const char *)a->pdata[i]);
    return g_string_free(s, FALSE);
}

/* --- the policy -------------------------------------------------------------------------- */

/* Every real directory at the top but the system trees and the kernel's and runtime's; no
 * link, no file; in name order; nothing watched. */
static void test_default_trees(void)
{
    struct plan *p = plan_with(false, false, false, 62, NULL);
    g_autofree char *t = trees_of(p);
    g_assert_cmpstr(t, ==, "/home\n/media\n/mnt\n/root\n/srv\n/tmp\n/var\n");
    g_assert_cmpuint(p->watched->len, ==, 0);
    g_assert_cmpuint(p->watch_marks->len, ==, 0);
    g_assert_cmpuint(p->not_traced->len, ==, 0);
    g_assert_true(p->private_tmp == false);
    plan_free(p);
}

/* --system serves the system trees (but links: a merged /usr's /bin, /lib ...). */
static void test_system_served(void)
{
    struct plan *p = plan_with(true, false, false, 62, NULL);
    g_autofree char *t = trees_of(p);
    g_assert_cmpstr(t, ==, "/boot\n/etc\n/home\n/media\n/mnt\n/opt\n/root\n/srv\n/tmp\n/usr\n/var\n");
    g_assert_cmpuint(p->watched->len, ==, 0);
    plan_free(p);
}

/* --system as root: the system trees watched, not mounted; each marked, with every mount
 * inside them (once, not the kernel's); a duplicated mount line marked once. */
static void test_system_watched(void)
{
    struct plan *p = plan_with(true, true, false, 62, mountinfo);
    g_autofree char *w = list_of(p->watched);
    g_assert_cmpstr(w, ==, "/boot\n/etc\n/opt\n/usr\n");
    g_autofree char *m = list_of(p->watch_marks);
    g_assert_cmpstr(m, ==, "/boot\n/etc\n/opt\n/usr\n/usr/lib/modules\n/usr/local\n");
    g_autofree char *t = trees_of(p);
    g_assert_null(strstr(t, "/usr"));
    g_assert_null(strstr(t, "/etc"));
    plan_free(p);
}

/* Without mountinfo there are neither mounts of their own nor marks, not even the watched
 * trees' (as today: a run then watches nothing it marks). */
static void test_no_mountinfo(void)
{
    struct plan *p = plan_with(true, true, false, 62, NULL);
    g_assert_cmpuint(p->watched->len, ==, 4);
    g_assert_cmpuint(p->watch_marks->len, ==, 0);
    plan_free(p);
}

/* --private-tmp: no /tmp tree (the private one comes later, as PLAN_TMP). */
static void test_private_tmp(void)
{
    struct plan *p = plan_with(false, false, true, 62, mountinfo);
    g_autofree char *t = trees_of(p);
    g_assert_null(strstr(t, "/tmp"));
    g_assert_true(p->private_tmp);
    plan_add_tree(p, "/tmp", "/tmp/buildtrail-x/tmp", PLAN_TMP);
    g_autofree char *t2 = trees_of(p);
    g_assert_nonnull(strstr(t2, "/tmp (tmp) *\n"));
    plan_free(p);
}

/* A mount inside a tree with other flags is a tree of its own (escaped names undone, parents
 * first); one with the same flags is reached through its tree; a bind-mounted file, a
 * kernel pseudo-filesystem, a mount outside every tree (/usr/local without --system) and
 * the tree's own mount point are not. */
static void test_nested_mounts(void)
{
    struct plan *p = plan_with(false, false, false, 62, mountinfo);
    g_autofree char *t = trees_of(p);
    g_assert_cmpstr(t, ==, "/home\n/media\n/mnt\n/root\n/srv\n/tmp\n/var\n"
                           "/home/alice/nfs\n/home/alice/ro\n/home/my disk\n/srv/a\nb\n");
    plan_free(p);
}

/* Past max_trees: top directories are left out and said; no mount becomes a tree. */
static void test_too_many(void)
{
    struct plan *p = plan_with(false, false, false, 3, mountinfo);
    g_autofree char *t = trees_of(p);
    g_assert_cmpstr(t, ==, "/home\n/media\n/mnt\n");
    g_autofree char *n = list_of(p->not_traced);
    g_assert_cmpstr(n, ==, "/root\n/srv\n/tmp\n/var\n");
    g_assert_cmpint(plan_add_trace_dir(p, "/usr/src"), ==, -ENOSPC);
    g_assert_cmpint(plan_add_trace_dir(p, "/home/x"), ==, 0); /* inside a tree: nothing */
    plan_free(p);
}

/* --trace: inside a tree adds nothing; elsewhere a tree; /tmp itself undoes --private-tmp.
 * Mounts inside a --trace dir are not split out (they are planned before it, as today). */
static void test_trace_dirs(void)
{
    struct plan *p = plan_with(false, false, true, 62, mountinfo);
    int n = plan_n_trees(p);
    g_assert_cmpint(plan_add_trace_dir(p, "/home/alice"), ==, 0);
    g_assert_cmpint(plan_n_trees(p), ==, n);
    g_assert_cmpint(plan_add_trace_dir(p, "/usr/src"), ==, 0);
    g_assert_cmpstr(plan_tree(p, n)->path, ==, "/usr/src");
    g_assert_cmpint(plan_add_trace_dir(p, "/usr/src/proj"), ==, 0); /* overlapping: nothing */
    g_assert_cmpint(plan_n_trees(p), ==, n + 1);
    g_assert_true(p->private_tmp);
    g_assert_cmpint(plan_add_trace_dir(p, "/tmp"), ==, 0);
    g_assert_false(p->private_tmp);
    g_assert_cmpstr(plan_tree(p, n + 1)->path, ==, "/tmp");
    g_assert_cmpstr(plan_tree_of(p, "/usr/src/proj/a.c"), ==, "/usr/src");
    g_assert_null(plan_tree_of(p, "/usr/srcx"));
    plan_free(p);
}

/* The workspace: named where it lies in a tree, a tree of its own elsewhere. */
static void test_workspace(void)
{
    struct plan *p = plan_with(false, false, false, 62, mountinfo);
    int n = plan_n_trees(p);
    plan_set_workspace(p, "/home/alice/nfs/proj");
    g_assert_true(p->workspace_nested);
    g_assert_cmpint(plan_n_trees(p), ==, n);
    g_assert_cmpstr(plan_tree_of(p, "/home/alice/nfs/proj"), ==, "/home/alice/nfs");
    plan_free(p);

    p = plan_with(false, false, false, 62, mountinfo);
    plan_set_workspace(p, "/usr/src/proj");
    g_assert_false(p->workspace_nested);
    g_assert_cmpint(plan_n_trees(p), ==, n + 1);
    g_assert_cmpstr(plan_tree(p, n)->path, ==, "/usr/src/proj");
    g_assert_cmpint(plan_tree(p, n)->role, ==, PLAN_WORKSPACE);
    plan_free(p);

    /* watched: /usr/src lies in a watched tree, not a traced one */
    p = plan_with(true, true, false, 62, mountinfo);
    plan_set_workspace(p, "/usr/src/proj");
    g_assert_false(p->workspace_nested);
    g_assert_true(plan_watched(p, "/usr/src/proj"));
    g_assert_false(plan_watched(p, "/usrx"));
    plan_free(p);
}

/* The kernel's trees, by path and by filesystem; a name that only starts like one is not. */
static void test_untraceable(void)
{
    g_assert_nonnull(plan_untraceable("/proc", &probe));
    g_assert_nonnull(plan_untraceable("/proc/self", &probe));
    g_assert_nonnull(plan_untraceable("/sys/kernel", &probe));
    g_assert_nonnull(plan_untraceable("/dev/shm", &probe));
    g_assert_nonnull(plan_untraceable("/home/cg/x", &probe));            /* cgroup2 */
    g_assert_nonnull(plan_untraceable("/usr/lib/kernel-proc", &probe)); /* proc elsewhere */
    g_assert_null(plan_untraceable("/procfoo", &probe));
    g_assert_null(plan_untraceable("/devices", &probe));
    g_assert_null(plan_untraceable("/home/alice", &probe));
    g_assert_null(plan_untraceable("/run/user", &probe)); /* /run: never a top, but traceable */
}

/* Mountinfo fields: octal escapes undone (space, newline, backslash), anything else kept;
 * type and super options after " - "; short lines and empty lines skipped. */
static void test_mountinfo_parse(void)
{
    GArray *m = plan_mountinfo_parse("1 2 3:4 / /a\\040b\\134c\\9z\\477 rw - fuse.sshfs u@h:/ rw,x\n"
                                     "\n"
                                     "too short\n"
                                     "1 2 3:4 /  /no-dash   rw\n"
                                     "1 2 3:4 / /d rw - ext4\n"
                                     "1 2 3:4 / /e\\012f rw - nfs s:/x rw");
    g_assert_cmpuint(m->len, ==, 4);
    struct plan_mount *a = &g_array_index(m, struct plan_mount, 0);
    g_assert_cmpstr(a->point, ==, "/a b\\c\\9z\\477");
    g_assert_cmpstr(a->type, ==, "fuse.sshfs");
    g_assert_cmpstr(a->super_opts, ==, "rw,x");
    struct plan_mount *b = &g_array_index(m, struct plan_mount, 1);
    g_assert_cmpstr(b->point, ==, "/no-dash");
    g_assert_null(b->type);
    struct plan_mount *c = &g_array_index(m, struct plan_mount, 2);
    g_assert_cmpstr(c->point, ==, "/d");
    g_assert_null(c->type); /* no source, no options */
    struct plan_mount *d = &g_array_index(m, struct plan_mount, 3);
    g_assert_cmpstr(d->point, ==, "/e\nf");
    g_assert_cmpstr(d->type, ==, "nfs");
    plan_mountinfo_free(m);
    m = plan_mountinfo_parse(NULL);
    g_assert_cmpuint(m->len, ==, 0);
    plan_mountinfo_free(m);
}

/* Filesystems that judge permissions themselves, reached through a tree (inside one, or
 * holding a tree's backing); FUSE with default_permissions does not. */
static void test_own_judge(void)
{
    struct plan *p = plan_with(false, false, true, 62, NULL);
    plan_add_tree(p, "/tmp", "/scratch/tmp", PLAN_TMP);
    g_autofree char *j = plan_own_judge(
        p, "27 22 8:2 / /home/alice/nfs rw - nfs4 s:/e rw\n"
           "28 22 8:2 / /home/bob/sshfs rw - fuse.sshfs u@h:/ rw,user_id=0\n"
           "29 22 8:2 / /home/bob/ok rw - fuse.x x rw,default_permissions\n"
           "30 22 8:2 / /usr/share/nfs rw - nfs s:/u rw\n"
           "31 22 8:2 / /scratch rw - autofs auto rw\n");
    g_assert_cmpstr(j, ==, "/home/alice/nfs (nfs4), /home/bob/sshfs (fuse.sshfs), /scratch (autofs)");
    g_assert_null(plan_own_judge(p, NULL));
    g_assert_null(plan_own_judge(p, "27 22 8:2 / /home rw - ext4 /dev/sda rw\n"));
    plan_free(p);
}

/* Mount order: shorter paths first, so nested trees are mounted after their parents. */
static void test_mount_order(void)
{
    struct plan *p = plan_with(false, false, false, 62, mountinfo);
    int order[64];
    plan_mount_order(p, order);
    for (int k = 1; k < plan_n_trees(p); k++)
        g_assert_cmpuint(strlen(plan_tree(p, order[k - 1])->path), <=,
                         strlen(plan_tree(p, order[k])->path));
    for (int k = 0; k < plan_n_trees(p); k++)
        for (int l = k + 1; l < plan_n_trees(p); l++)
            g_assert_false(plan_path_under(plan_tree(p, order[k])->path,
                                           plan_tree(p, order[l])->path) &&
                           strcmp(plan_tree(p, order[k])->path, plan_tree(p, order[l])->path));
    plan_free(p);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/plan/default", test_default_trees);
    g_test_add_func("/plan/system-served", test_system_served);
    g_test_add_func("/plan/system-watched", test_system_watched);
    g_test_add_func("/plan/no-mountinfo", test_no_mountinfo);
    g_test_add_func("/plan/private-tmp", test_private_tmp);
    g_test_add_func("/plan/nested-mounts", test_nested_mounts);
    g_test_add_func("/plan/too-many", test_too_many);
    g_test_add_func("/plan/trace-dirs", test_trace_dirs);
    g_test_add_func("/plan/workspace", test_workspace);
    g_test_add_func("/plan/untraceable", test_untraceable);
    g_test_add_func("/plan/mountinfo", test_mountinfo_parse);
    g_test_add_func("/plan/own-judge", test_own_judge);
    g_test_add_func("/plan/mount-order", test_mount_order);
    return g_test_run();
}
