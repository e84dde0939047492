/* plan — see plan.h. */
#include "plan.h"

#include "lines.h"

#include <errno.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>

static const char *const system_tops[] = {"usr", "etc", "opt", "bin", "sbin", "lib", "lib32",
                                          "lib64", "libx32", "boot"};
static const char *const never_tops[] = {"proc", "sys", "dev", "run"};

/* --- the running system ----------------------------------------------------------------- */

static bool real_is_dir(void *ctx, const char *path, bool follow)
{
    struct stat st;
    return (follow ? stat(path, &st) : lstat(path, &st)) == 0 && S_ISDIR(st.st_mode);
}

static unsigned long real_fs_type(void *ctx, const char *path)
{
    struct statfs sf;
    return statfs(path, &sf) == 0 ? (unsigned long)sf.f_type : 0;
}

static unsigned long real_mount_flags(void *ctx, const char *path)
{
    struct statvfs v;
    if (statvfs(path, &v) < 0)
        return 0;
    return (v.f_flag & ST_NOSUID ? MS_NOSUID : 0) | (v.f_flag & ST_NODEV ? MS_NODEV : 0) |
           (v.f_flag & ST_NOEXEC ? MS_NOEXEC : 0) | (v.f_flag & ST_RDONLY ? MS_RDONLY : 0);
}

const struct plan_probe *plan_probe_real(void)
{
    static const struct plan_probe real = {real_is_dir, real_fs_type, real_mount_flags, NULL};
    return &real;
}

/* --- small answers ---------------------------------------------------------------------- */

bool plan_path_under(const char *path, const char *dir)
{
    size_t l = strlen(dir);
    return strncmp(path, dir, l) == 0 && (path[l] == '/' || path[l] == '\0' || !strcmp(dir, "/"));
}

static bool name_in(const char *name, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(name, list[i]))
            return true;
    return false;
}

bool plan_is_system_top(const char *name)
{
    return name_in(name, system_tops, G_N_ELEMENTS(system_tops));
}

/* The kernel's own trees (/proc, /sys, /dev and the pseudo-filesystems mounted anywhere) do
 * not behave as files: a passthrough of them would fail late or lie. */
const char *plan_untraceable(const char *real, const struct plan_probe *probe)
{
    static const char *const kernel_trees[] = {"/proc", "/sys", "/dev"};
    for (size_t i = 0; i < G_N_ELEMENTS(kernel_trees); i++)
        if (plan_path_under(real, kernel_trees[i]))
            return "it is the kernel's, not files a build makes";
    switch (probe->fs_type(probe->ctx, real)) {
    case 0x9fa0:     /* proc */
    case 0x62656572: /* sysfs */
    case 0x1cd1:     /* devpts */
    case 0x27e0eb:   /* cgroup */
    case 0x63677270: /* cgroup2 */
    case 0x64626720: /* debugfs */
    case 0x74726163: /* tracefs */
    case 0x73636673: /* securityfs */
    case 0xcafe4a11: /* bpf */
    case 0x65735546: /* fuse control */
        return "it is a kernel pseudo-filesystem, not files a build makes";
    default:
        return NULL;
    }
}

const char *plan_tree_of(const struct plan *p, const char *path)
{
    const char *best = NULL;
    for (guint k = 0; k < p->trees->len; k++) {
        const char *t = g_array_index(p->trees, struct plan_tree, k).path;
        if (plan_path_under(path, t) && (!best || strlen(t) > strlen(best)))
            best = t;
    }
    return best;
}

bool plan_watched(const struct plan *p, const char *path)
{
    for (guint k = 0; k < p->watched->len; k++)
        if (plan_path_under(path, p->watched->pdata[k]))
            return true;
    return false;
}

static gint compare_names(gconstpointer a, gconstpointer b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int compare_tree_depth(const void *a, const void *b, void *data)
{
    const struct plan *p = data;
    size_t la = strlen(plan_tree(p, *(const int *)a)->path);
    size_t lb = strlen(plan_tree(p, *(const int *)b)->path);
    return la < lb ? -1 : la > lb;
}

void plan_mount_order(const struct plan *p, int *order)
{
    for (int i = 0; i < plan_n_trees(p); i++)
        order[i] = i;
    g_qsort_with_data(order, plan_n_trees(p), sizeof(int), compare_tree_depth, (void *)p);
}

/* --- mountinfo -------------------------------------------------------------------------- */

/* A mountinfo field with its octal escapes (\040 for a space, ...) undone, in place. */
static void unescape_mountinfo(char *s)
{
    char *out = s;
    for (char *in = s; *in; in++) {
        if (in[0] == '\\' && in[1] >= '0' && in[1] <= '3' && in[2] >= '0' && in[2] <= '7' &&
            in[3] >= '0' && in[3] <= '7') {
            *out++ = (char)((in[1] - '0') * 64 + (in[2] - '0') * 8 + (in[3] - '0'));
            in += 3;
        } else {
            *out++ = *in;
        }
    }
    *out = '\0';
}

/* Up to `max` space-separated words of `s` (runs of spaces are one), cut in place. */
static int split_words(char *s, char **w, int max)
{
    char *save = NULL;
    int n = 0;
    for (char *t = strtok_r(s, " ", &save); t && n < max; t = strtok_r(NULL, " ", &save))
        w[n++] = t;
    return n;
}

GArray *plan_mountinfo_parse(const char *text)
{
    GArray *mounts = g_array_new(FALSE, TRUE, sizeof(struct plan_mount));
    struct lines it = {text, text ? strlen(text) : 0, 0};
    const char *l;
    size_t len;
    while (lines_next(&it, &l, &len)) {
        g_autofree char *line = g_strndup(l, len); /* a NUL in it ends it, as strtok did */
        char *dash = strstr(line, " - ");
        char *f[5], *t[3];
        int m = 0;
        if (dash) {
            *dash = '\0';
            m = split_words(dash + 3, t, 3); /* type, source, super options */
        }
        if (split_words(line, f, 5) < 5)
            continue;
        unescape_mountinfo(f[4]);
        struct plan_mount mt = {g_strdup(f[4]), m == 3 ? g_strdup(t[0]) : NULL,
                                m == 3 ? g_strdup(t[2]) : NULL};
        g_array_append_val(mounts, mt);
    }
    return mounts;
}

void plan_mountinfo_free(GArray *mounts)
{
    if (!mounts)
        return;
    for (guint i = 0; i < mounts->len; i++) {
        struct plan_mount *m = &g_array_index(mounts, struct plan_mount, i);
        g_free(m->point);
        g_free(m->type);
        g_free(m->super_opts);
    }
    g_array_free(mounts, TRUE);
}

/* --- the plan --------------------------------------------------------------------------- */

static void add_tree(struct plan *p, const char *path, const char *backing, enum plan_role role)
{
    struct plan_tree t = {g_strdup(path), g_strdup(backing), role};
    g_array_append_val(p->trees, t);
}

void plan_add_tree(struct plan *p, const char *path, const char *backing, enum plan_role role)
{
    add_tree(p, path, backing, role);
}

static void plan_tops(struct plan *p, const struct plan_input *in, const struct plan_probe *pr)
{
    g_autoptr(GPtrArray) names = g_ptr_array_new();
    for (int i = 0; i < in->n_top; i++)
        if (strcmp(in->top_names[i], ".") && strcmp(in->top_names[i], ".."))
            g_ptr_array_add(names, (char *)in->top_names[i]);
    g_ptr_array_sort(names, compare_names);
    for (guint i = 0; i < names->len; i++) {
        const char *name = names->pdata[i];
        g_autofree char *path = g_strconcat("/", name, NULL);
        if (!pr->is_dir(pr->ctx, path, false))
            continue;
        if (name_in(name, never_tops, G_N_ELEMENTS(never_tops)) ||
            (!in->system && plan_is_system_top(name)) ||
            (p->private_tmp && !strcmp(name, "tmp")) || plan_untraceable(path, pr))
            continue;
        if (in->watch && plan_is_system_top(name)) {
            g_ptr_array_add(p->watched, g_steal_pointer(&path));
            continue;
        }
        if ((int)p->trees->len >= p->max_trees) {
            g_ptr_array_add(p->not_traced, g_strdup(path));
            continue;
        }
        add_tree(p, path, path, PLAN_TRACE);
    }
}

/* A filesystem mounted inside a tree is reached through it, but a tree is one mount with one
 * set of flags: one mounted with other restrictions becomes a tree of its own.  Inside a
 * watched tree, every mount is marked. */
static void plan_mounts(struct plan *p, const char *mountinfo, const struct plan_probe *pr)
{
    if (!mountinfo)
        return;
    GArray *mounts = plan_mountinfo_parse(mountinfo);
    g_autoptr(GPtrArray) points = g_ptr_array_new();
    for (guint i = 0; i < mounts->len; i++)
        g_ptr_array_add(points, g_array_index(mounts, struct plan_mount, i).point);
    g_ptr_array_sort(points, compare_names); /* parents before their children */
    for (guint i = 0; i < points->len && (int)p->trees->len < p->max_trees; i++) {
        const char *mp = points->pdata[i];
        const char *tree = plan_tree_of(p, mp);
        if (!tree || !strcmp(tree, mp) || plan_untraceable(mp, pr))
            continue;
        if (!pr->is_dir(pr->ctx, mp, true) ||
            pr->mount_flags(pr->ctx, mp) == pr->mount_flags(pr->ctx, tree))
            continue;
        add_tree(p, mp, mp, PLAN_TRACE);
    }
    /* A watched tree's mark covers its own mount only: every mount inside it is marked too. */
    for (guint i = 0; i < p->watched->len; i++)
        g_ptr_array_add(p->watch_marks, g_strdup(p->watched->pdata[i]));
    for (guint i = 0; i < points->len; i++) {
        const char *mp = points->pdata[i];
        if (!plan_watched(p, mp) ||
            name_in(mp, (const char *const *)p->watched->pdata, p->watched->len) ||
            plan_untraceable(mp, pr) || (i > 0 && !strcmp(mp, points->pdata[i - 1])))
            continue;
        g_ptr_array_add(p->watch_marks, g_strdup(mp));
    }
    plan_mountinfo_free(mounts);
}

struct plan *plan_new(const struct plan_input *in, const struct plan_probe *probe)
{
    struct plan *p = g_new0(struct plan, 1);
    p->trees = g_array_new(FALSE, TRUE, sizeof(struct plan_tree));
    p->watched = g_ptr_array_new_with_free_func(g_free);
    p->watch_marks = g_ptr_array_new_with_free_func(g_free);
    p->not_traced = g_ptr_array_new_with_free_func(g_free);
    p->private_tmp = in->private_tmp;
    p->max_trees = in->max_trees;
    plan_tops(p, in, probe);
    plan_mounts(p, in->mountinfo, probe);
    return p;
}

void plan_free(struct plan *p)
{
    if (!p)
        return;
    for (guint k = 0; k < p->trees->len; k++) {
        g_free(g_array_index(p->trees, struct plan_tree, k).path);
        g_free(g_array_index(p->trees, struct plan_tree, k).backing);
    }
    g_array_free(p->trees, TRUE);
    g_ptr_array_free(p->watched, TRUE);
    g_ptr_array_free(p->watch_marks, TRUE);
    g_ptr_array_free(p->not_traced, TRUE);
    g_free(p);
}

int plan_add_trace_dir(struct plan *p, const char *real)
{
    if (!strcmp(real, "/tmp"))
        p->private_tmp = false; /* /tmp itself, as it is */
    if (plan_tree_of(p, real))
        return 0;
    if ((int)p->trees->len >= p->max_trees)
        return -ENOSPC;
    add_tree(p, real, real, PLAN_TRACE);
    return 0;
}

void plan_set_workspace(struct plan *p, const char *cwd)
{
    p->workspace_nested = plan_tree_of(p, cwd) != NULL;
    if (!p->workspace_nested)
        add_tree(p, cwd, cwd, PLAN_WORKSPACE);
}

/* --- filesystems that judge permissions themselves --------------------------------------- */

/* Whether a mount (its type and super options) decides permissions by rules of its own that
 * the modes and owners it shows do not tell: a network filesystem's server (NFS whose id
 * mapping shows files as nobody's, NFSv4 or SMB ACLs, CIFS `noperm`), a FUSE daemon without
 * default_permissions (sshfs, virtiofs); and an automount point, which may become any of those
 * during the build.  The kernel's checks on the traced mount would refuse there what the
 * filesystem allows natively. */
static bool judges_itself(const char *type, const char *super_opts)
{
    static const char *const remote[] = {"nfs", "nfs4", "cifs", "smb3", "smbfs", "9p", "ceph",
                                         "afs", "coda", "lustre", "gpfs", "beegfs", "vboxsf",
                                         "orangefs", "pvfs2", "ncpfs", "virtiofs", "autofs"};
    if (name_in(type, remote, G_N_ELEMENTS(remote)))
        return true;
    if (strcmp(type, "fuse") && strcmp(type, "fuseblk") && strncmp(type, "fuse.", 5) &&
        strncmp(type, "fuseblk.", 8))
        return false;
    g_auto(GStrv) opts = g_strsplit(super_opts, ",", -1);
    return !g_strv_contains((const char *const *)opts, "default_permissions");
}

char *plan_own_judge(const struct plan *p, const char *mountinfo)
{
    if (!mountinfo)
        return NULL;
    GArray *mounts = plan_mountinfo_parse(mountinfo);
    GString *found = g_string_new(NULL);
    for (guint i = 0; i < mounts->len; i++) {
        const struct plan_mount *m = &g_array_index(mounts, struct plan_mount, i);
        if (!m->type || !judges_itself(m->type, m->super_opts))
            continue;
        bool reached = plan_tree_of(p, m->point) != NULL;
        for (int k = 0; k < plan_n_trees(p) && !reached; k++)
            reached = plan_path_under(plan_tree(p, k)->backing, m->point);
        if (reached)
            g_string_append_printf(found, "%s%s (%s)", found->len ? ", " : "", m->point, m->type);
    }
    plan_mountinfo_free(mounts);
    return found->len ? g_string_free(found, FALSE) : (g_string_free(found, TRUE), NULL);
}
