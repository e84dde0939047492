/* fs-creds — each real-filesystem call judged as for its caller: fsuid/fsgid, groups and
 * capabilities in root mode, the caller's umask, set-user-ID clearing (see fs-creds.h). */
#include "fs-internal.h"

/* The bits a write or truncate by a caller without CAP_FSETID drops: set-user-ID, and
 * set-group-ID when the group may execute (without it the bit marks mandatory locking). */
static mode_t suidgid_to_kill(const struct stat *st)
{
    if (!S_ISREG(st->st_mode))
        return 0;
    mode_t kill = st->st_mode & S_ISUID;
    if ((st->st_mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP))
        kill |= S_ISGID;
    return kill;
}

/* Drop them when the kernel flagged this request: from the file open as `fd`, or (fd < 0) the
 * file named `path` (truncate(2); never a symlink here).  Only a root daemon has to: it holds
 * CAP_FSETID, so the real filesystem keeps the bits for it; an unprivileged daemon's own write
 * or truncate makes the real filesystem drop them (even on a file it does not own, where a
 * chmod of ours would fail).  Returns 0 or -errno. */
int fs_creds_kill_suidgid(struct fs *fs, int fd, const char *path)
{
    if (!fs->is_root || !wire_request_kills_suidgid())
        return 0;
    struct stat st;
    if (fd >= 0 ? fstat(fd, &st) : stat(path, &st))
        return -errno;
    mode_t kill = suidgid_to_kill(&st);
    if (!kill)
        return 0;
    mode_t mode = st.st_mode & 07777 & ~kill;
    return (fd >= 0 ? fchmod(fd, mode) : chmod(path, mode)) ? -errno : 0;
}

/* A root daemon calls the real filesystem with the caller's credentials, set on the calling
 * thread only (kernel credentials are per thread: raw syscalls, not glibc's process-wide
 * wrappers): its fsuid, fsgid, supplementary groups and effective capabilities.  The real
 * filesystem then decides every permission as it would natively — mode bits, POSIX ACLs, a
 * chmod made a moment ago outside the build, CAP_DAC_OVERRIDE of a step that kept it, CAP_MKNOD
 * for a device node, CAP_SYS_ADMIN for trusted.* attributes — and files are created with the
 * caller's owner and the directory's default ACL.  Only the real filesystem's calls are made
 * so: /proc reads, hashing and the recorder keep the daemon's own credentials.
 * A FUSE request carries the caller's uid, gid and pid; its groups and capabilities are read
 * from /proc/TID/status once per process image and kept by image id; the capabilities only for
 * a caller in the daemon's own user namespace (those of one in a namespace below, `unshare -U
 * -r`, are its namespace's, none over the real filesystem).  A change within one
 * image (setgroups() or capset() without exec, keeping uid and gid) is noticed when a call
 * made with the kept ones is refused: fs_creds_retry() reads the status again and, if it
 * changed, the call is made once more with the new ones.  A group or capability dropped that
 * way is judged by the kernel, which checks first with the caller's live credentials when
 * the connection has kernel checks (fs.h, fs_config.kernel_checks).  A caller with
 * uid and gid 0 is taken to hold every capability, as the daemon does, without that read: root
 * builds run thousands of short processes, and a read per new image slowed the daemon enough
 * to expose a lost exit event in the attribution ground truth (t5100) under load.  Not under
 * run --vary user_group (fs_set_root_callers_read): the build is root's uid outside without
 * root's capabilities, and a chown it asks for must be refused as the kernel would. */

struct fs_caller_creds {
    uid_t uid;
    gid_t gid;
    uint64_t cap_eff;
    int n;
    gid_t groups[];
};

/* Parse "Groups:" and "CapEff:" of a /proc status file.  Returns the number of groups. */
static int parse_status_creds(const char *buf, gid_t *groups, uint64_t *cap_eff)
{
    int n = 0;
    *cap_eff = 0;
    const char *g = strstr(buf, "\nGroups:");
    if (g) {
        char *at = (char *)g + 8;
        while (n < FS_MAX_GROUPS) {
            while (*at == ' ' || *at == '\t')
                at++;
            if (*at < '0' || *at > '9')
                break;
            groups[n++] = (gid_t)strtoul(at, &at, 10);
        }
    }
    const char *c = strstr(buf, "\nCapEff:");
    if (c)
        *cap_eff = strtoull(c + 8, NULL, 16);
    return n;
}

/* Is `pid` in the daemon's user namespace?  The capabilities /proc shows are held in the
 * process's own namespace: one in a namespace below ours (`unshare -U -r`, run --vary
 * user_group's build, a container) shows them all yet holds none over the real filesystem,
 * so they count only for a caller in ours.  False when it cannot be told. */
static bool caller_in_own_userns(const struct fs *fs, pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/ns/user", (int)pid);
    struct stat st;
    return fs->own_userns_known && stat(path, &st) == 0 && st.st_dev == fs->own_userns.st_dev &&
           st.st_ino == fs->own_userns.st_ino;
}

/* The caller's groups and capabilities as /proc/TID/status says now (no capability when it is
 * in another user namespace); false if it is gone. */
static bool read_caller_creds(const struct fs *fs, pid_t pid, uint64_t *cap_eff, gid_t *groups,
                              int *n_groups)
{
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t len = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (len <= 0)
        return false;
    buf[len] = '\0';
    *n_groups = parse_status_creds(buf, groups, cap_eff);
    if (*cap_eff && !caller_in_own_userns(fs, pid))
        *cap_eff = 0;
    return true;
}

/* Keep them for the image `caller` (seen with uid/gid). */
static void keep_caller_creds(struct fs *fs, int64_t caller, uid_t uid, gid_t gid,
                              uint64_t cap_eff, const gid_t *groups, int n_groups)
{
    struct fs_caller_creds *g = g_malloc(sizeof *g + (size_t)n_groups * sizeof(gid_t));
    g->uid = uid;
    g->gid = gid;
    g->cap_eff = cap_eff;
    g->n = n_groups;
    memcpy(g->groups, groups, (size_t)n_groups * sizeof *groups);
    int64_t *key = g_new(int64_t, 1);
    *key = caller;
    pthread_mutex_lock(&fs->caller_creds_lock);
    if (g_hash_table_size(fs->caller_creds) > 16384) /* bounded: refilled on demand */
        g_hash_table_remove_all(fs->caller_creds);
    g_hash_table_replace(fs->caller_creds, key, g);
    pthread_mutex_unlock(&fs->caller_creds_lock);
}

/* The caller's groups and capabilities (cached by image) into *cap_eff, groups and *n_groups;
 * false if the caller is gone. */
static bool fs_creds_of_caller(struct fs *fs, fuse_req_t req, int64_t caller, uint64_t *cap_eff,
                               gid_t *groups, int *n_groups)
{
    const struct fuse_ctx *ctx = fuse_req_ctx(req);
    if (caller > 0) {
        pthread_mutex_lock(&fs->caller_creds_lock);
        struct fs_caller_creds *g = g_hash_table_lookup(fs->caller_creds, &caller);
        bool hit = g && g->uid == ctx->uid && g->gid == ctx->gid;
        if (hit) {
            *cap_eff = g->cap_eff;
            *n_groups = g->n;
            memcpy(groups, g->groups, (size_t)g->n * sizeof *groups);
        }
        pthread_mutex_unlock(&fs->caller_creds_lock);
        if (hit)
            return true;
    }
    if (!read_caller_creds(fs, ctx->pid, cap_eff, groups, n_groups))
        return false;
    if (caller > 0)
        keep_caller_creds(fs, caller, ctx->uid, ctx->gid, *cap_eff, groups, *n_groups);
    return true;
}

/* This thread's effective capabilities := `eff` (within the daemon's permitted set). */
static int set_thread_caps(const struct fs *fs, uint64_t eff)
{
    struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct d[2];
    memcpy(d, fs->own_caps, sizeof d);
    d[0].effective = (uint32_t)eff & d[0].permitted;
    d[1].effective = (uint32_t)(eff >> 32) & d[1].permitted;
    return (int)syscall(SYS_capset, &h, d);
}

void fs_creds_enter(struct fs *fs, fuse_req_t req, struct fs_creds *c)
{
    c->switched = c->caps_changed = c->refreshed = false;
    if (!fs->is_root)
        return; /* unprivileged: the daemon is the caller's own user already */
    const struct fuse_ctx *ctx = fuse_req_ctx(req);
    if (ctx->uid == 0 && ctx->gid == 0 && !fs->root_callers_read)
        return; /* root: taken to hold every capability (see the comment above) */
    c->n_groups = 0;
    c->cap_eff = fs->own_cap_eff;
    if (!fs_creds_of_caller(fs, req, fs_req_caller(fs, req), &c->cap_eff, c->groups,
                            &c->n_groups)) {
        /* Gone (its request is being interrupted): no privilege at all. */
        c->cap_eff = 0;
        c->n_groups = 0;
        c->refreshed = true; /* nothing to read again */
    }
    syscall(SYS_setgroups, (size_t)c->n_groups, c->groups);
    syscall(SYS_setfsgid, ctx->gid);
    syscall(SYS_setfsuid, ctx->uid);
    c->switched = true;
    /* setfsuid() dropped (or kept) the filesystem capabilities by the uid alone; make the
     * thread's effective set the caller's. */
    if (set_thread_caps(fs, c->cap_eff) == 0)
        c->caps_changed = true;
}

/* A call made as the caller failed with `err` (a positive errno).  When that is a refusal and
 * the caller's groups or capabilities are no longer those kept for its image (it called
 * setgroups() or capset() since, without exec), keep the new ones, make them this thread's and
 * say so: the call is then to be made once more.  Reads /proc/TID/status at most once per
 * fs_creds_enter, and only after a refusal (the caller's own status and user namespace: read
 * with the caller's fsuid and the daemon's capabilities, the only /proc reads made so). */
static bool creds_reread(struct fs *fs, fuse_req_t req, struct fs_creds *c);

bool fs_creds_retry(struct fs *fs, fuse_req_t req, struct fs_creds *c, int err)
{
    if (!c->switched || c->refreshed || (err != EACCES && err != EPERM))
        return false;
    c->refreshed = true;
    int saved_errno = errno; /* callers read errno after a refusal that stands */
    bool changed = creds_reread(fs, req, c);
    errno = saved_errno;
    return changed;
}

static bool creds_reread(struct fs *fs, fuse_req_t req, struct fs_creds *c)
{
    const struct fuse_ctx *ctx = fuse_req_ctx(req);
    gid_t groups[FS_MAX_GROUPS];
    int n = 0;
    uint64_t cap_eff = 0;
    /* With the daemon's own capabilities: the caller's user namespace is read as ptrace would
     * (read_caller_creds), and setgroups() needs CAP_SETGID, which the caller's set may lack. */
    if (set_thread_caps(fs, fs->own_cap_eff) < 0)
        return false;
    c->caps_changed = true;
    if (!read_caller_creds(fs, ctx->pid, &cap_eff, groups, &n) ||
        (cap_eff == c->cap_eff && n == c->n_groups &&
         memcmp(groups, c->groups, (size_t)n * sizeof *groups) == 0)) {
        set_thread_caps(fs, c->cap_eff);
        return false;
    }
    if (syscall(SYS_setgroups, (size_t)n, groups) < 0) {
        set_thread_caps(fs, c->cap_eff);
        return false; /* the refusal stands (cannot happen: the daemon is root) */
    }
    set_thread_caps(fs, cap_eff);
    int64_t caller = fs_req_caller(fs, req);
    if (caller > 0)
        keep_caller_creds(fs, caller, ctx->uid, ctx->gid, cap_eff, groups, n);
    c->cap_eff = cap_eff;
    c->n_groups = n;
    memcpy(c->groups, groups, (size_t)n * sizeof *groups);
    return true;
}

void fs_creds_leave(struct fs *fs, struct fs_creds *c)
{
    if (!c->switched)
        return;
    syscall(SYS_setfsuid, 0);
    syscall(SYS_setfsgid, 0);
    syscall(SYS_setgroups, (size_t)fs->n_own_groups, fs->own_groups);
    if (c->caps_changed)
        set_thread_caps(fs, fs->own_cap_eff);
}

/* The caller's umask for a create, on this thread only: with FUSE_CAP_DONT_MASK the kernel
 * sends the mode unmasked and the umask apart, and the real filesystem applies the umask or,
 * when the directory has a default ACL, the ACL instead (as natively).  A thread gets its own
 * umask by unsharing CLONE_FS once. */
static __thread int thread_fs_unshared; /* 0 not yet, 1 done, -1 failed */

mode_t fs_umask_enter(struct fs *fs, fuse_req_t req, mode_t mode)
{
    if (!fs->dont_mask)
        return mode; /* the kernel masked it already */
    mode_t um = fuse_req_ctx(req)->umask;
    if (thread_fs_unshared == 0)
        thread_fs_unshared = unshare(CLONE_FS) == 0 ? 1 : -1;
    if (thread_fs_unshared < 0)
        return mode & ~um; /* no umask of our own: mask here (default ACLs then see it too) */
    umask(um);
    return mode;
}

void fs_umask_leave(struct fs *fs)
{
    if (fs->dont_mask && thread_fs_unshared > 0)
        umask(0);
}

void fs_set_kernel_checks(struct fs *fs, bool on)
{
    if (fs)
        fs->want_kernel_checks = on;
}

void fs_set_root_callers_read(struct fs *fs, bool on)
{
    if (fs)
        fs->root_callers_read = on;
}

void fs_set_inside_ids(struct fs *fs, const struct fs_id_range *uids, int n_uids,
                       const struct fs_id_range *gids, int n_gids)
{
    if (!fs)
        return;
    fs->n_inside_uids = MIN(n_uids, FS_MAX_ID_RANGES);
    fs->n_inside_gids = MIN(n_gids, FS_MAX_ID_RANGES);
    memcpy(fs->inside_uids, uids, (size_t)fs->n_inside_uids * sizeof *uids);
    memcpy(fs->inside_gids, gids, (size_t)fs->n_inside_gids * sizeof *gids);
    fs->inside_ids_known = true;
}

bool fs_inside_id_held(const struct fs *fs, bool is_group, uint32_t id)
{
    const struct fs_id_range *r = is_group ? fs->inside_gids : fs->inside_uids;
    int n = is_group ? fs->n_inside_gids : fs->n_inside_uids;
    for (int i = 0; i < n; i++)
        if (id >= r[i].first && id - r[i].first < r[i].count)
            return true;
    return false;
}

bool fs_kernel_checks(struct fs *fs)
{
    return fs && __atomic_load_n(&fs->kernel_checks, __ATOMIC_ACQUIRE);
}
