/* plan — what `buildtrail run` traces: from the names at the top of the filesystem, the mount
 * table (mountinfo text) and the options, the trees to mount, the system trees to watch, and
 * what is left out (docs/architecture.md, "What is traced").
 *
 * The policy
 *   - plan_new: every directory in / (in.top_names; lstat: links are never trees, so a merged
 *     /usr's /bin, /lib ... are not) is a tree, in name order, path and backing the same
 *     (PLAN_TRACE), except
 *       . /proc, /sys, /dev, /run, and whatever plan_untraceable() refuses (under /proc, /sys,
 *         /dev, or on a kernel pseudo-filesystem: proc, sysfs, devpts, cgroup(2), debugfs,
 *         tracefs, securityfs, bpf, the fuse control filesystem): never;
 *       . the system tops (usr etc opt bin sbin lib lib32 lib64 libx32 boot): only with
 *         in.system; with in.watch (as root, --system watches them with fanotify) they go to
 *         `watched` instead of the trees;
 *       . /tmp with in.private_tmp (the build gets a private one: plan_add_tree, PLAN_TMP);
 *       . past in.max_trees trees, a top directory goes to `not_traced` (the summary says so).
 *     Then every mount point of the mountinfo strictly inside a tree, traceable, a directory
 *     (stat), whose restricting flags (nosuid, nodev, noexec, ro) differ from its tree's, in
 *     byte order of the points (parents first), becomes a tree of its own, while there are
 *     fewer than in.max_trees: the build keeps exactly the powers it has natively there.
 *     watch_marks: every watched tree, then every other mount point inside one (traceable,
 *     each once), in that order.  Without mountinfo (NULL) there are neither, not even the
 *     watched trees' marks.
 *   - plan_add_trace_dir (--trace, a real path the caller has resolved and checked): /tmp
 *     itself turns private_tmp off; a path inside a tree adds nothing; else a new tree, or
 *     -ENOSPC past in.max_trees.
 *   - plan_set_workspace (the real current directory): inside a tree it is only named
 *     (workspace_nested: a trees row, no mount); elsewhere a tree of its own (PLAN_WORKSPACE).
 *   - plan_own_judge: the filesystems the build reaches through a tree (holding one's backing,
 *     or mounted inside one) that judge permissions by rules of their own (network
 *     filesystems, autofs, FUSE without default_permissions): "POINT (TYPE), ...", or NULL.
 *
 * What the machine is asked (is this a directory, which filesystem, which mount flags) goes
 * through struct plan_probe: plan_probe_real() asks the running system, a test a made-up one.
 * Mountinfo lines are read as the kernel writes them: space-separated fields (runs of spaces
 * are one), the mount point the fifth, with its octal escapes (\040 space, \012 newline, \134
 * backslash) undone; the filesystem type and super options after " - "; a line of fewer than
 * five fields before " - " is skipped.
 *
 * Contract: no output and no errors but the ones returned; every string is the plan's (freed
 * by plan_free).  Not thread-safe: one thread plans.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>

enum plan_role { PLAN_WORKSPACE, PLAN_TRACE, PLAN_TMP };

struct plan_tree {
    char *path;    /* as the build sees it */
    char *backing; /* the real directory served there */
    enum plan_role role;
};

struct plan_probe {
    /* Whether PATH is a directory: with `follow`, as stat(2) sees it; without, lstat(2).  A
     * failure is false. */
    bool (*is_dir)(void *ctx, const char *path, bool follow);
    /* statfs(2)'s f_type of PATH, or 0 when it cannot be read. */
    unsigned long (*fs_type)(void *ctx, const char *path);
    /* MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY of the filesystem holding PATH (0 when it
     * cannot be read). */
    unsigned long (*mount_flags)(void *ctx, const char *path);
    void *ctx;
};

struct plan_input {
    const char *const *top_names; /* the entries of / but . and .. (any order) */
    int n_top;
    const char *mountinfo;        /* /proc/self/mountinfo's text, or NULL */
    bool system;                  /* --system */
    bool watch;                   /* the system trees are watched, not mounted */
    bool private_tmp;             /* --private-tmp */
    int max_trees;                /* how many trees may be mounted */
};

struct plan {
    GArray *trees;          /* struct plan_tree, in the order planned */
    GPtrArray *watched;     /* char*: system trees watched instead of mounted */
    GPtrArray *watch_marks; /* char*: those trees and every mount point inside them */
    GPtrArray *not_traced;  /* char*: top directories left out for want of room */
    bool private_tmp;       /* the build gets a private /tmp */
    bool workspace_nested;  /* the workspace lies in a tree: a row, no mount */
    int max_trees;
};

/* The running system's answers (stat, statfs, statvfs). */
const struct plan_probe *plan_probe_real(void);

struct plan *plan_new(const struct plan_input *in, const struct plan_probe *probe);
void plan_free(struct plan *p);

/* --trace REAL: 0, or -ENOSPC when no tree can be added. */
int plan_add_trace_dir(struct plan *p, const char *real);
void plan_set_workspace(struct plan *p, const char *cwd);
/* A tree planned elsewhere (the private /tmp and its backing), whatever the count. */
void plan_add_tree(struct plan *p, const char *path, const char *backing, enum plan_role role);

static inline int plan_n_trees(const struct plan *p) { return (int)p->trees->len; }
static inline const struct plan_tree *plan_tree(const struct plan *p, int i)
{
    return &g_array_index(p->trees, struct plan_tree, i);
}

/* The deepest tree holding PATH (its path), or NULL. */
const char *plan_tree_of(const struct plan *p, const char *path);
/* Whether PATH is inside (or is) a watched system tree. */
bool plan_watched(const struct plan *p, const char *path);
/* Whether NAME ("usr") is one of the system tops. */
bool plan_is_system_top(const char *name);
/* Whether PATH is DIR or lies below it (every path lies below "/"). */
bool plan_path_under(const char *path, const char *dir);
/* Why REAL (absolute, links resolved) cannot be traced, or NULL if it can. */
const char *plan_untraceable(const char *real, const struct plan_probe *probe);
/* The trees' indices in mount order, shortest path first (parents before their children);
 * `order` holds plan_n_trees(p) of them. */
void plan_mount_order(const struct plan *p, int *order);
/* See above; g_free the result. */
char *plan_own_judge(const struct plan *p, const char *mountinfo);

/* The mountinfo's lines, as read above (for the plan, its tests and its fuzzer). */
struct plan_mount {
    char *point;      /* unescaped */
    char *type;       /* after " - ", or NULL */
    char *super_opts; /* after " - ", or NULL */
};
GArray *plan_mountinfo_parse(const char *text); /* struct plan_mount; plan_mountinfo_free */
void plan_mountinfo_free(GArray *mounts);
