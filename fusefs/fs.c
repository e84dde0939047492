/* fs — see fs.h for the contract. */
#include "fs.h"

#include "inokey.h"
#include "tracedb.h"
#include "versions.h"
#include "wire.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <linux/capability.h>
#include <sys/file.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

/* The kernel marks opens done by execve() with this bit of the open flags (__FMODE_EXEC). */
#define FS_OPEN_EXEC_FLAG 0x20

enum fs_node_type { NODE_REAL, NODE_STDOUT, NODE_STDERR };

struct fs_inode {
    enum fs_node_type type;
    /* O_PATH fd of the real object: directories (and tree roots) always have one; other inodes
     * are reached through their parent's fd and name (fd -1), unless the name they are known
     * by was unlinked or replaced while the kernel still held them: then one is pinned first.
     * Written under fs.lock (pinning); a directory's fd never changes. */
    int fd;
    dev_t dev;
    ino_t ino;
    uint64_t nlookup;        /* protected by fs.lock */
    unsigned child_refs;     /* inodes naming this one as parent; protected by fs.lock */
    struct fs_inode *parent; /* protected by fs.lock; NULL for tree roots */
    char *name;              /* protected by fs.lock; a tree root's absolute path */
    bool tree_root;
};

enum fs_handle_type { HANDLE_FILE, HANDLE_DIR, HANDLE_OUTPUT };

#define FS_ACCT_SLOTS 4

struct fs_acct {
    int64_t process_id;
    int64_t bytes_read, bytes_written;
    int64_t first_ns, last_ns;
    bool read, written;
};

struct fs_handle {
    enum fs_handle_type type;
    int fd;
    int stream;          /* HANDLE_OUTPUT: TRACEDB_STDOUT/ERR */
    DIR *dir;            /* HANDLE_DIR */
    off_t dir_offset;    /* HANDLE_DIR */
    struct dirent *dir_entry; /* HANDLE_DIR: an entry read but not yet returned */
    int64_t file_id;
    int open_flags;
    dev_t dev;           /* HANDLE_FILE: the file, for its versions */
    ino_t ino;
    int64_t version_id;  /* HANDLE_FILE: the version read or being written (0: none) */
    int64_t read_version_id; /* what reads through it see at open: the version read, or for a
                              * writer the one it writes on top of (0: none, it starts empty) */
    struct vers_writer *vw; /* HANDLE_FILE opened to write: its writer (ended at release) */
    bool exec;
    pid_t exec_pid;      /* exec opens: the process that was exec'ing */
    int64_t open_ns;
    pthread_mutex_t acct_lock;
    struct fs_acct acct[FS_ACCT_SLOTS]; /* protected by acct_lock; [0] is the opener */
    int n_acct;                         /* protected by acct_lock */
    struct fs_handle *prev, *next;      /* list of open handles; protected by fs.lock */
};

enum fs_op {
    OP_LOOKUP, OP_FORGET, OP_GETATTR, OP_SETATTR, OP_READLINK, OP_MKNOD, OP_MKDIR, OP_UNLINK,
    OP_RMDIR, OP_SYMLINK, OP_RENAME, OP_LINK, OP_OPEN, OP_READ, OP_WRITE, OP_FLUSH, OP_RELEASE,
    OP_FSYNC, OP_OPENDIR, OP_READDIR, OP_RELEASEDIR, OP_FSYNCDIR, OP_STATFS, OP_SETXATTR,
    OP_GETXATTR, OP_LISTXATTR, OP_REMOVEXATTR, OP_CREATE, OP_FALLOCATE, OP_LSEEK,
    OP_COPY_FILE_RANGE, OP_OUTPUT, OP_ACCESS, OP_COUNT
};

static const char *const op_names[OP_COUNT] = {
    "lookup", "forget", "getattr", "setattr", "readlink", "mknod", "mkdir", "unlink", "rmdir",
    "symlink", "rename", "link", "open", "read", "write", "flush", "release", "fsync", "opendir",
    "readdir", "releasedir", "fsyncdir", "statfs", "setxattr", "getxattr", "listxattr",
    "removexattr", "create", "fallocate", "lseek", "copy_file_range", "output_write", "access",
};

#define FS_MAX_DEVS 4096
/* The inode numbers of the virtual stdout/stderr: a device index no real device gets. */
#define FS_VIRTUAL_INO(n) ((UINT64_C(0xffff) << 48) | (n))

struct fs {
    pthread_mutex_t lock;
    GHashTable *inodes;          /* (dev, ino) -> fs_inode; protected by lock */
    struct fs_inode **tree_roots; /* fixed after fs_new */
    int n_trees;
    struct fs_inode out_node, err_node; /* fixed */
    struct fs_handle *handles;   /* open handles; protected by lock */

    pthread_mutex_t output_lock;
    int out_fd, err_fd;

    struct rec *rec;
    struct proc_table *procs;
    struct vers *vers;
    dev_t hide_dev;
    ino_t hide_ino;
    char *hide_name;
    double timeout;
    bool debug;
    bool is_root;
    bool present_ids_as_own;
    bool cache_lookups;
    uid_t uid;
    gid_t gid;
    uint64_t op_count[OP_COUNT]; /* atomic */
    struct wire wire;            /* see wire.h */

    /* The real devices seen, in order of first sight (the first tree's is index 0): what
     * makes the inode numbers the build sees unique under the mount's one st_dev (see
     * present_ino).  Append-only: readers scan devs[0 .. n_devs) without a lock; devs_lock
     * serialises appends (a leaf lock). */
    dev_t devs[FS_MAX_DEVS];
    atomic_uint n_devs;
    pthread_mutex_t devs_lock;

    /* Root mode: the groups and capabilities of each caller image (see creds_enter). */
    pthread_mutex_t caller_creds_lock; /* a leaf */
    GHashTable *caller_creds;    /* int64 image id -> struct fs_caller_creds; caller_creds_lock */
    gid_t *own_groups;           /* the daemon's own, restored after each call; fixed */
    int n_own_groups;
    struct __user_cap_data_struct own_caps[2]; /* the daemon's capabilities; fixed */
    uint64_t own_cap_eff;
    bool dont_mask;              /* FUSE_CAP_DONT_MASK negotiated (set in op_init) */
};

#define FS_DEBUG(fs, ...)                                                                          \
    do {                                                                                           \
        if ((fs)->debug)                                                                           \
            fprintf(stderr, "buildtrail-fs: " __VA_ARGS__);                                        \
    } while (0)

static struct fs *req_fs(fuse_req_t req)
{
    return fuse_req_userdata(req);
}

static void count_op(struct fs *fs, enum fs_op op)
{
    __atomic_add_fetch(&fs->op_count[op], 1, __ATOMIC_RELAXED);
}

/* ---- inodes ------------------------------------------------------------------------------ */

static struct fs_inode *get_inode(fuse_req_t req, fuse_ino_t ino)
{
    (void)req;
    return (struct fs_inode *)(uintptr_t)ino;
}

/* Drop one reference of kind `lookups` (nlookup) or a child ref; free when both reach zero.
 * Called with fs.lock held. */
static void inode_unref_locked(struct fs *fs, struct fs_inode *in, uint64_t lookups, bool child)
{
    while (in) {
        if (child) {
            in->child_refs--;
        } else {
            in->nlookup = lookups > in->nlookup ? 0 : in->nlookup - lookups;
        }
        if (in->nlookup || in->child_refs || in->tree_root || in->type != NODE_REAL)
            return;
        struct ino_key k = {in->dev, in->ino};
        g_hash_table_remove(fs->inodes, &k);
        struct fs_inode *parent = in->parent;
        if (in->fd >= 0)
            close(in->fd);
        g_free(in->name);
        g_free(in);
        in = parent;
        child = true;
    }
}

/* Set where an inode was last seen.  Called with fs.lock held. */
static void inode_set_name_locked(struct fs_inode *in, struct fs_inode *parent, const char *name)
{
    if (in->tree_root || in == parent)
        return;
    if (in->parent == parent && in->name && strcmp(in->name, name) == 0)
        return;
    if (parent)
        parent->child_refs++;
    struct fs_inode *old_parent = in->parent;
    in->parent = parent;
    g_free(in->name);
    in->name = g_strdup(name);
    if (old_parent)
        old_parent->child_refs--; /* never drops it to zero here: it is still looked up */
}

/* The path the build sees for `in`, plus "/name" when name is given.  g_free() it. */
static char *inode_path(struct fs *fs, struct fs_inode *in, const char *name)
{
    const char *parts[PATH_MAX / 2];
    int n = 0;
    pthread_mutex_lock(&fs->lock);
    for (struct fs_inode *p = in; p && n < (int)G_N_ELEMENTS(parts); p = p->parent)
        parts[n++] = p->name ? p->name : "?";
    GString *s = g_string_sized_new(128);
    for (int i = n - 1; i >= 0; i--) {
        if (i != n - 1 && !(s->len && s->str[s->len - 1] == '/'))
            g_string_append_c(s, '/');
        g_string_append(s, parts[i]);
    }
    pthread_mutex_unlock(&fs->lock);
    if (name) {
        if (!(s->len && s->str[s->len - 1] == '/'))
            g_string_append_c(s, '/');
        g_string_append(s, name);
    }
    return g_string_free(s, FALSE);
}

/* Where an inode's real object is, for *at() calls: its own fd with "" (AT_EMPTY_PATH), or
 * its parent's fd and its name.  loc_get() holds the parent (as a child reference) until
 * loc_put(), so a concurrent rename or forget cannot free it under us. */
struct fs_loc {
    int dirfd;
    const char *name;            /* "" when dirfd is the object itself */
    char namebuf[NAME_MAX + 1];
    struct fs_inode *held;       /* the parent held, or NULL */
    char path[PATH_MAX];         /* the same as a /proc/self/fd path, for path-only calls */
};

static int loc_get(struct fs *fs, struct fs_inode *in, struct fs_loc *l)
{
    l->held = NULL;
    pthread_mutex_lock(&fs->lock);
    if (in->fd >= 0) {
        l->dirfd = in->fd;
        l->name = "";
        snprintf(l->path, sizeof l->path, "/proc/self/fd/%d", in->fd);
    } else if (in->parent && in->name) {
        l->held = in->parent;
        l->held->child_refs++;
        l->dirfd = in->parent->fd;
        g_strlcpy(l->namebuf, in->name, sizeof l->namebuf);
        l->name = l->namebuf;
        snprintf(l->path, sizeof l->path, "/proc/self/fd/%d/%s", l->dirfd, l->namebuf);
    } else {
        pthread_mutex_unlock(&fs->lock);
        return -ESTALE;
    }
    pthread_mutex_unlock(&fs->lock);
    return 0;
}

static void loc_put(struct fs *fs, struct fs_loc *l)
{
    if (!l->held)
        return;
    pthread_mutex_lock(&fs->lock);
    inode_unref_locked(fs, l->held, 0, true);
    pthread_mutex_unlock(&fs->lock);
    l->held = NULL;
}

static bool loc_self(const struct fs_loc *l)
{
    return !l->name[0];
}

/* Flags for *at() calls on a location (AT_EMPTY_PATH when it is the object's own fd). */
static int loc_flags(const struct fs_loc *l, int flags)
{
    return loc_self(l) ? flags | AT_EMPTY_PATH : flags;
}

/* ---- set-user-ID / set-group-ID bits (FUSE_HANDLE_KILLPRIV_V2, see wire.h) ----------------- */

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
static int kill_suidgid(struct fs *fs, int fd, const char *path)
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

/* ---- recording --------------------------------------------------------------------------- */

/* Who sent this request: a process-image id, 0 (unknown), or -1 (the launcher itself);
 * resolved once per request (handlers ask more than once, and creds_enter needs it before the
 * real filesystem is called). */
static __thread uint64_t caller_unique;
static __thread int64_t caller_id;

static int64_t req_caller(struct fs *fs, fuse_req_t req)
{
    uint64_t unique = wire_request_unique();
    if (unique && unique == caller_unique)
        return caller_id;
    const struct fuse_ctx *ctx = fuse_req_ctx(req);
    int64_t id = proc_resolve(fs->procs, ctx->pid);
    caller_unique = unique;
    caller_id = id;
    return id;
}

static void record_v(struct fs *fs, int64_t process_id, int64_t file_id, int kind, int flags,
                     int64_t bytes, int64_t first_ns, int result, int64_t version_id)
{
    if (process_id < 0)
        return; /* the launcher's own setup */
    struct rec_access a = {
        .process_id = process_id,
        .file_id = file_id,
        .kind = kind,
        .open_flags = flags,
        .bytes = bytes,
        .first_ns = first_ns,
        .last_ns = rec_now_ns(),
        .result = result,
        .version_id = result ? 0 : version_id,
    };
    rec_add_access(fs->rec, &a);
}

static void record(struct fs *fs, int64_t process_id, int64_t file_id, int kind, int flags,
                   int64_t bytes, int64_t first_ns, int result)
{
    record_v(fs, process_id, file_id, kind, flags, bytes, first_ns, result, 0);
}

static void record_path_v(struct fs *fs, int64_t process_id, struct fs_inode *dir,
                          const char *name, int kind, int result, int64_t version_id)
{
    if (process_id < 0)
        return;
    g_autofree char *path = inode_path(fs, dir, name);
    int64_t now = rec_now_ns();
    record_v(fs, process_id, rec_file_id(fs->rec, path), kind, -1, -1, now, result, version_id);
}

static void record_path(struct fs *fs, int64_t process_id, struct fs_inode *dir,
                        const char *name, int kind, int result)
{
    record_path_v(fs, process_id, dir, name, kind, result, 0);
}

/* The current version of what `name` in `dir` is (0: none, or not a file). */
static int64_t version_at(struct fs *fs, struct fs_inode *dir, const char *name)
{
    struct stat st;
    if (fstatat(dir->fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
        return 0;
    return vers_current(fs->vers, st.st_dev, st.st_ino);
}

/* A read-only fd of the file open as `fd`, to hash it from (or -errno): a new open file
 * description (never a dup: its flags and offset are the build's, and a writer's fd would make
 * an exec of the file fail with ETXTBSY while it is hashed), without updating the access time. */
static int hash_fd_of(int fd)
{
    char p[64];
    snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
    return vers_open_for_hash(p);
}

static bool is_hidden(struct fs *fs, struct fs_inode *dir, const char *name)
{
    if (!fs->hide_name || dir->type != NODE_REAL || dir->dev != fs->hide_dev ||
        dir->ino != fs->hide_ino)
        return false;
    size_t l = strlen(fs->hide_name);
    if (strncmp(name, fs->hide_name, l) != 0)
        return false;
    const char *rest = name + l;
    return !*rest || !strcmp(rest, "-wal") || !strcmp(rest, "-shm") || !strcmp(rest, "-journal");
}

/* ---- credentials: the real filesystem judges each call as for its caller ---------------- */

/* A root daemon calls the real filesystem with the caller's credentials, set on the calling
 * thread only (kernel credentials are per thread: raw syscalls, not glibc's process-wide
 * wrappers): its fsuid, fsgid, supplementary groups and effective capabilities.  The real
 * filesystem then decides every permission as it would natively — mode bits, POSIX ACLs, a
 * chmod made a moment ago outside the build, CAP_DAC_OVERRIDE of a step that kept it, CAP_MKNOD
 * for a device node, CAP_SYS_ADMIN for trusted.* attributes — and files are created with the
 * caller's owner and the directory's default ACL.  Only the real filesystem's calls are made
 * so: /proc reads, hashing and the recorder keep the daemon's own credentials.
 * A FUSE request carries the caller's uid, gid and pid; its groups and capabilities are read
 * from /proc/TID/status once per process image and kept by image id, so a change of groups or
 * capabilities within one image that changes neither uid nor gid is not seen.  A caller with
 * uid and gid 0 is taken to hold every capability, as the daemon does, without that read: root
 * builds run thousands of short processes, and a read per new image slowed the daemon enough
 * to expose a lost exit event in the attribution ground truth (t5100) under load. */
#define FS_MAX_GROUPS 256

struct fs_creds {
    bool switched;
    bool caps_changed;
};

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

/* The caller's groups and capabilities (cached by image) into *cap_eff, groups and *n_groups;
 * false if the caller is gone. */
static bool caller_creds(struct fs *fs, fuse_req_t req, int64_t caller, uint64_t *cap_eff,
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
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/%d/status", (int)ctx->pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t len = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (len <= 0)
        return false;
    buf[len] = '\0';
    *n_groups = parse_status_creds(buf, groups, cap_eff);
    if (caller > 0) {
        struct fs_caller_creds *g = g_malloc(sizeof *g + (size_t)*n_groups * sizeof(gid_t));
        g->uid = ctx->uid;
        g->gid = ctx->gid;
        g->cap_eff = *cap_eff;
        g->n = *n_groups;
        memcpy(g->groups, groups, (size_t)*n_groups * sizeof *groups);
        int64_t *key = g_new(int64_t, 1);
        *key = caller;
        pthread_mutex_lock(&fs->caller_creds_lock);
        if (g_hash_table_size(fs->caller_creds) > 16384) /* bounded: refilled on demand */
            g_hash_table_remove_all(fs->caller_creds);
        g_hash_table_replace(fs->caller_creds, key, g);
        pthread_mutex_unlock(&fs->caller_creds_lock);
    }
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

static void creds_enter(struct fs *fs, fuse_req_t req, struct fs_creds *c)
{
    c->switched = c->caps_changed = false;
    if (!fs->is_root)
        return; /* unprivileged: the daemon is the caller's own user already */
    const struct fuse_ctx *ctx = fuse_req_ctx(req);
    if (ctx->uid == 0 && ctx->gid == 0)
        return; /* root: taken to hold every capability (see the comment above) */
    gid_t groups[FS_MAX_GROUPS];
    int n = 0;
    uint64_t cap_eff = fs->own_cap_eff;
    if (!caller_creds(fs, req, req_caller(fs, req), &cap_eff, groups, &n)) {
        /* Gone (its request is being interrupted): no privilege at all. */
        cap_eff = 0;
        n = 0;
    }
    syscall(SYS_setgroups, (size_t)n, groups);
    syscall(SYS_setfsgid, ctx->gid);
    syscall(SYS_setfsuid, ctx->uid);
    c->switched = true;
    /* setfsuid() dropped (or kept) the filesystem capabilities by the uid alone; make the
     * thread's effective set the caller's. */
    if (set_thread_caps(fs, cap_eff) == 0)
        c->caps_changed = true;
}

static void creds_leave(struct fs *fs, struct fs_creds *c)
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

static mode_t umask_enter(struct fs *fs, fuse_req_t req, mode_t mode)
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

static void umask_leave(struct fs *fs)
{
    if (fs->dont_mask && thread_fs_unshared > 0)
        umask(0);
}

/* ---- entries ----------------------------------------------------------------------------- */

/* The inode number the build sees for real (dev, ino).  The mount has one st_dev for files of
 * many real devices, so a real inode number alone is not unique (two tmpfs trees both have an
 * inode 2, and stdout/stderr had 2 and 3: `cat a b` said "input file is output file").  The
 * first device's numbers pass through; the k-th device's get k in bits 48..63 (real inode
 * numbers stay below 2^48 on every common filesystem; above, they are folded in and may
 * collide).  Stable for the run, shared by hard links, the same in stat and readdir. */
static uint64_t present_ino(struct fs *fs, dev_t dev, ino_t ino)
{
    unsigned n = atomic_load_explicit(&fs->n_devs, memory_order_acquire);
    unsigned i = 0;
    while (i < n && fs->devs[i] != dev)
        i++;
    if (i == n) {
        pthread_mutex_lock(&fs->devs_lock);
        n = atomic_load_explicit(&fs->n_devs, memory_order_relaxed);
        for (i = 0; i < n && fs->devs[i] != dev; i++)
            ;
        if (i == n && n < FS_MAX_DEVS - 1) {
            fs->devs[n] = dev;
            atomic_store_explicit(&fs->n_devs, n + 1, memory_order_release);
        }
        pthread_mutex_unlock(&fs->devs_lock);
    }
    return i == 0 ? (uint64_t)ino : ((uint64_t)i << 48) ^ (uint64_t)ino;
}

static void virtual_stat(struct fs *fs, struct fs_inode *in, struct stat *st)
{
    memset(st, 0, sizeof *st);
    st->st_ino = in->ino;
    st->st_nlink = 1;
    st->st_uid = fs->uid;
    st->st_gid = fs->gid;
    st->st_mode = S_IFREG | 0666;
    st->st_blksize = 4096;
}

/* What the build sees of a real stat: its inode number made unique (present_ino), and its
 * owner (see fs_config.present_ids_as_own). */
static void present_stat(struct fs *fs, struct stat *st)
{
    st->st_ino = present_ino(fs, st->st_dev, st->st_ino);
    if (!fs->present_ids_as_own)
        return;
    st->st_uid = fs->uid;
    st->st_gid = fs->gid;
}

static int do_getattr(struct fs *fs, fuse_req_t req, struct fs_inode *in, struct stat *st)
{
    if (in->type != NODE_REAL) {
        virtual_stat(fs, in, st);
        return 0;
    }
    struct fs_loc l;
    int r = loc_get(fs, in, &l);
    if (r < 0)
        return r;
    struct fs_creds c = {false};
    if (req)
        creds_enter(fs, req, &c);
    r = fstatat(l.dirfd, l.name, st, loc_flags(&l, AT_SYMLINK_NOFOLLOW)) < 0 ? -errno : 0;
    creds_leave(fs, &c);
    loc_put(fs, &l);
    if (r == 0 && (st->st_dev != in->dev || st->st_ino != in->ino))
        r = -ESTALE; /* the name now holds another file (changed outside the build) */
    if (r == 0)
        present_stat(fs, st);
    return r;
}

/* Find or make the inode for `st`, seen as `name` in `parent`; takes one lookup.  `fd` is an
 * O_PATH fd for a directory (consumed) or -1. */
static struct fs_inode *inode_for_stat(struct fs *fs, int fd, const struct stat *st,
                                       struct fs_inode *parent, const char *name)
{
    struct ino_key k = {st->st_dev, st->st_ino};
    pthread_mutex_lock(&fs->lock);
    struct fs_inode *in = g_hash_table_lookup(fs->inodes, &k);
    if (in) {
        if (in->fd < 0 && fd >= 0)
            in->fd = fd;
        else if (fd >= 0)
            close(fd);
    } else {
        in = g_new0(struct fs_inode, 1);
        in->type = NODE_REAL;
        in->fd = fd;
        in->dev = st->st_dev;
        in->ino = st->st_ino;
        struct ino_key *kk = g_new(struct ino_key, 1);
        *kk = k;
        g_hash_table_insert(fs->inodes, kk, in);
    }
    in->nlookup++;
    inode_set_name_locked(in, parent, name);
    pthread_mutex_unlock(&fs->lock);
    return in;
}

static void fill_entry(struct fs *fs, struct fuse_entry_param *e, struct fs_inode *in,
                       const struct stat *st)
{
    memset(e, 0, sizeof *e);
    e->ino = (fuse_ino_t)(uintptr_t)in;
    e->attr = *st;
    e->attr_timeout = fs->timeout;
    e->entry_timeout = fs->timeout;
}

/* Look `name` up in `dir`; on success *e is filled and one lookup taken.  Returns 0/-errno. */
static int do_lookup(struct fs *fs, fuse_req_t req, struct fs_inode *dir, const char *name,
                     struct fuse_entry_param *e)
{
    if (is_hidden(fs, dir, name))
        return -ENOENT;
    struct stat st;
    struct fs_creds c;
    creds_enter(fs, req, &c); /* searching `dir` is the caller's right, or not */
    int r = fstatat(dir->fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
    creds_leave(fs, &c);
    if (r < 0)
        return r;
    int fd = -1;
    if (S_ISDIR(st.st_mode)) {
        /* Directories keep an fd: they are the parents every other inode is reached from.
         * (O_PATH needs only the search right just checked; the fd is the daemon's.) */
        fd = openat(dir->fd, name, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
            return -errno;
        if (fstatat(fd, "", &st, AT_EMPTY_PATH) < 0) {
            int err = errno;
            close(fd);
            return -err;
        }
    }
    struct fs_inode *in = inode_for_stat(fs, fd, &st, dir, name);
    present_stat(fs, &st);
    fill_entry(fs, e, in, &st);
    return 0;
}

static int root_lookup(struct fs *fs, const char *name, struct fuse_entry_param *e)
{
    struct fs_inode *in = NULL;
    struct stat st;
    if (!strcmp(name, FS_STDOUT_NAME))
        in = &fs->out_node;
    else if (!strcmp(name, FS_STDERR_NAME))
        in = &fs->err_node;
    else if (name[0] == 't') {
        char *end;
        long i = strtol(name + 1, &end, 10);
        if (*end || end == name + 1 || i < 0 || i >= fs->n_trees)
            return -ENOENT;
        in = fs->tree_roots[i];
    } else {
        return -ENOENT;
    }
    int r = do_getattr(fs, NULL, in, &st);
    if (r < 0)
        return r;
    pthread_mutex_lock(&fs->lock);
    in->nlookup++;
    pthread_mutex_unlock(&fs->lock);
    fill_entry(fs, e, in, &st);
    return 0;
}

static void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
    struct fs *fs = req_fs(req);
    count_op(fs, OP_LOOKUP);
    struct fuse_entry_param e;
    int r;
    if (parent == FUSE_ROOT_ID) {
        r = root_lookup(fs, name, &e);
    } else {
        struct fs_inode *dir = get_inode(req, parent);
        r = do_lookup(fs, req, dir, name, &e);
        /* A failed lookup is what the build looked for and did not find (probe). */
        if (r < 0 && r != -ENAMETOOLONG)
            record_path(fs, req_caller(fs, req), dir, name, TRACEDB_PROBE, -r);
    }
    FS_DEBUG(fs, "lookup(parent=%" PRIu64 ", name=%s) = %d\n", (uint64_t)parent, name, r);
    if (r < 0) {
        if (r == -ENOENT) {
            /* A negative entry.  Not cached by default: every later probe reaches us too.
             * With cache_lookups the kernel remembers it until the name is made (through this
             * mount: the kernel replaces the entry) or the timeout passes. */
            memset(&e, 0, sizeof e);
            e.entry_timeout = fs->cache_lookups ? fs->timeout : 0;
            fuse_reply_entry(req, &e);
        } else {
            fuse_reply_err(req, -r);
        }
        return;
    }
    fuse_reply_entry(req, &e);
}

static void op_forget_one(struct fs *fs, fuse_ino_t ino, uint64_t n)
{
    if (ino == FUSE_ROOT_ID)
        return;
    pthread_mutex_lock(&fs->lock);
    inode_unref_locked(fs, (struct fs_inode *)(uintptr_t)ino, n, false);
    pthread_mutex_unlock(&fs->lock);
}

static void op_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
    struct fs *fs = req_fs(req);
    count_op(fs, OP_FORGET);
    op_forget_one(fs, ino, nlookup);
    fuse_reply_none(req);
}

static void op_forget_multi(fuse_req_t req, size_t count, struct fuse_forget_data *forgets)
{
    struct fs *fs = req_fs(req);
    count_op(fs, OP_FORGET);
    for (size_t i = 0; i < count; i++)
        op_forget_one(fs, forgets[i].ino, forgets[i].nlookup);
    fuse_reply_none(req);
}

static void op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    struct fs *fs = req_fs(req);
    count_op(fs, OP_GETATTR);
    struct stat st;
    int r;
    if (ino == FUSE_ROOT_ID) {
        memset(&st, 0, sizeof st);
        st.st_ino = FUSE_ROOT_ID;
        st.st_mode = S_IFDIR | 0755;
        st.st_nlink = 2;
        st.st_uid = fs->uid;
        st.st_gid = fs->gid;
        r = 0;
    } else {
        r = do_getattr(fs, req, get_inode(req, ino), &st);
    }
    FS_DEBUG(fs, "getattr(ino=%" PRIu64 ", fh=%d, mode=%o) = %d\n", (uint64_t)ino, fi != NULL,
             r < 0 ? 0 : st.st_mode, r);
    if (r < 0)
        fuse_reply_err(req, -r);
    else
        fuse_reply_attr(req, &st, fs->timeout);
}

static void op_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int valid,
                       struct fuse_file_info *fi)
{
    struct fs *fs = req_fs(req);
    count_op(fs, OP_SETATTR);
    struct fs_inode *in = get_inode(req, ino);
    struct fs_handle *h = fi ? (struct fs_handle *)(uintptr_t)fi->fh : NULL;
    struct fs_loc l;
    int r = 0;

    if (ino == FUSE_ROOT_ID) {
        fuse_reply_err(req, EPERM);
        return;
    }
    if (in->type != NODE_REAL) {
        /* stdout/stderr: O_TRUNC and chmod on a pipe-like file change nothing. */
        struct stat st;
        virtual_stat(fs, in, &st);
        fuse_reply_attr(req, &st, fs->timeout);
        return;
    }
    r = loc_get(fs, in, &l);
    if (r < 0) {
        fuse_reply_err(req, -r);
        return;
    }
    int fd = h && h->type == HANDLE_FILE ? h->fd : -1;
    g_autofree char *path = inode_path(fs, in, NULL);
    int64_t file_id = rec_file_id(fs->rec, path);
    int64_t version_id = 0;

    struct fs_creds c;
    if (valid & FUSE_SET_ATTR_MODE) {
        /* (The kernel never asks to chmod a symlink, so following the name is right.) */
        creds_enter(fs, req, &c);
        if (fd >= 0 ? fchmod(fd, attr->st_mode) : chmod(l.path, attr->st_mode))
            r = -errno;
        creds_leave(fs, &c);
    }
    if (!r && (valid & (FUSE_SET_ATTR_UID | FUSE_SET_ATTR_GID))) {
        uid_t u = (valid & FUSE_SET_ATTR_UID) ? attr->st_uid : (uid_t)-1;
        gid_t g = (valid & FUSE_SET_ATTR_GID) ? attr->st_gid : (gid_t)-1;
        creds_enter(fs, req, &c);
        if (fchownat(l.dirfd, l.name, u, g, loc_flags(&l, AT_SYMLINK_NOFOLLOW)))
            r = -errno;
        creds_leave(fs, &c);
    }
    if (!r && (valid & FUSE_SET_ATTR_SIZE)) {
        if (fd >= 0) {
            version_id = h->version_id; /* part of the version its handle is writing */
            if (h->vw)
                vers_write_dirty(h->vw);
            creds_enter(fs, req, &c);
            if (ftruncate(fd, attr->st_size))
                r = -errno;
            creds_leave(fs, &c);
            if (!r)
                r = kill_suidgid(fs, fd, NULL);
        } else {
            /* truncate(2) by name: a whole write-open ... close in one step. */
            struct vers_writer *vw = vers_write_begin(fs->vers, in->dev, in->ino, file_id,
                                                      attr->st_size == 0, &version_id, NULL);
            creds_enter(fs, req, &c);
            if (truncate(l.path, attr->st_size) < 0)
                r = -errno;
            creds_leave(fs, &c);
            if (!r)
                r = kill_suidgid(fs, -1, l.path);
            if (r < 0) {
                vers_write_abort(fs->vers, vw);
            } else {
                vers_write_end(fs->vers, vw, vers_open_for_hash(l.path));
            }
        }
    }
    if (!r && (valid & (FUSE_SET_ATTR_ATIME | FUSE_SET_ATTR_MTIME))) {
        struct timespec tv[2] = {{0, UTIME_OMIT}, {0, UTIME_OMIT}};
        if (valid & FUSE_SET_ATTR_ATIME_NOW)
            tv[0].tv_nsec = UTIME_NOW;
        else if (valid & FUSE_SET_ATTR_ATIME)
            tv[0] = attr->st_atim;
        if (valid & FUSE_SET_ATTR_MTIME_NOW)
            tv[1].tv_nsec = UTIME_NOW;
        else if (valid & FUSE_SET_ATTR_MTIME)
            tv[1] = attr->st_mtim;
        creds_enter(fs, req, &c);
        if (fd >= 0)
            r = futimens(fd, tv) ? -errno : 0;
        else if (loc_self(&l))
            r = utimensat(AT_FDCWD, l.path, tv, 0) ? -errno : 0; /* a directory */
        else
            r = utimensat(l.dirfd, l.name, tv, AT_SYMLINK_NOFOLLOW) ? -errno : 0;
        creds_leave(fs, &c);
    }
    loc_put(fs, &l);

    int64_t caller = req_caller(fs, req);
    if (caller >= 0) {
        int64_t now = rec_now_ns();
        if (valid & FUSE_SET_ATTR_SIZE)
            record_v(fs, caller, file_id, TRACEDB_TRUNCATE, -1, attr->st_size, now, -r,
                     version_id);
        if (valid & ~(FUSE_SET_ATTR_SIZE | FUSE_SET_ATTR_CTIME))
            record(fs, caller, file_id, TRACEDB_SETATTR, -1, -1, now, -r);
    }
    FS_DEBUG(fs, "setattr(ino=%" PRIu64 ", valid=%#x) = %d\n", (uint64_t)ino, valid, r);
    if (r < 0) {
        fuse_reply_err(req, -r);
        return;
    }
    struct stat st;
    if (fd >= 0)
        r = fstat(fd, &st) < 0 ? -errno : (present_stat(fs, &st), 0);
    else
        r = do_getattr(fs, req, in, &st);
    if (r < 0)
        fuse_reply_err(req, -r);
    else
        fuse_reply_attr(req, &st, fs->timeout);
}

static void op_readlink(fuse_req_t req, fuse_ino_t ino)
{
    struct fs *fs = req_fs(req);
    count_op(fs, OP_READLINK);
    struct fs_inode *in = get_inode(req, ino);
    if (ino == FUSE_ROOT_ID || in->type != NODE_REAL) {
        fuse_reply_err(req, EINVAL);
        return;
    }
    char buf[PATH_MAX + 1];
    struct fs_loc l;
    int r = loc_get(fs, in, &l);
    ssize_t n = -1;
    if (r == 0) {
        struct fs_creds c;
        creds_enter(fs, req, &c);
        n = readlinkat(l.dirfd, l.name, buf, sizeof buf);
        creds_leave(fs, &c);
        r = n < 0 ? -errno : (n == sizeof buf ? -ENAMETOOLONG : 0);
        loc_put(fs, &l);
    }
    record_path(fs, req_caller(fs, req), in, NULL, TRACEDB_READLINK, -r);
    if (r < 0) {
        fuse_reply_err(req, -r);
        return;
    }
    buf[n] = '\0';
    fuse_reply_readlink(req, buf);
}

/* Shared tail of mknod/mkdir/symlink/link: look the new entry up and reply. */
static void reply_new_entry(struct fs *fs, fuse_req_t req, struct fs_inode *dir, const char *name,
                            int r)
{
    struct fuse_entry_param e;
    if (!r)
        r = do_lookup(fs, req, dir, name, &e);
    if (r < 0)
        fuse_reply_err(req, -r);
    else
        fuse_reply_entry(req, &e);
}

static void make_node(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
                      dev_t rdev, const char *link_target, enum fs_op op, int kind)
{
    struct fs *fs = req_fs(req);
    count_op(fs, op);
    int r;
    if (parent == FUSE_ROOT_ID) {
        fuse_reply_err(req, EPERM);
        return;
    }
    struct fs_inode *dir = get_inode(req, parent);
    if (is_hidden(fs, dir, name)) {
        r = -EACCES;
    } else {
        struct fs_creds c;
        creds_enter(fs, req, &c);
        mode_t m = link_target ? mode : umask_enter(fs, req, mode);
        if (link_target)
            r = symlinkat(link_target, dir->fd, name);
        else if (S_ISDIR(mode))
            r = mkdirat(dir->fd, name, m & 07777);
        else
            r = mknodat(dir->fd, name, m, rdev);
        r = r < 0 ? -errno : 0;
        if (!link_target)
            umask_leave(fs);
        creds_leave(fs, &c);
    }
    record_path(fs, req_caller(fs, req), dir, name, kind, -r);
    FS_DEBUG(fs, "%s(parent=%" PRIu64 ", name=%s) = %d\n", op_names[op], (uint64_t)parent, name, r);
    reply_new_entry(fs, req, dir, name, r);
}

static void op_mknod(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode, dev_t rdev)
{
    make_node(req, parent, name, mode, rdev, NULL, OP_MKNOD, TRACEDB_CREATE);
}

static void op_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode)
{
    make_node(req, parent, name, S_IFDIR | mode, 0, NULL, OP_MKDIR, TRACEDB_MKDIR);
}

static void op_symlink(fuse_req_t req, const char *link, fuse_ino_t parent, const char *name)
{
    make_node(req, parent, name, S_IFLNK, 0, link, OP_SYMLINK, TRACEDB_SYMLINK);
}

static void op_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t parent, const char *name)
{
    struct fs *fs = req_fs(req);
    count_op(fs, OP_LINK);
    if (parent == FUSE_ROOT_ID || ino == FUSE_ROOT_ID) {
        fuse_reply_err(req, EPERM);
        return;
    }
    struct fs_inode *in = get_inode(req, ino), *dir = get_inode(req, parent);
    struct fs_loc l;
    int r;
    if (in->type != NODE_REAL || is_hidden(fs, dir, name)) {
        r = -EACCES;
    } else if ((r = loc_get(fs, in, &l)) == 0) {
        struct fs_creds c;
        creds_enter(fs, req, &c);
        if (loc_self(&l))
            r = linkat(AT_FDCWD, l.path, dir->fd, name, AT_SYMLINK_FOLLOW) < 0 ? -errno : 0;
        else
            r = linkat(l.dirfd, l.name, dir->fd, name, 0) < 0 ? -errno : 0;
        creds_leave(fs, &c);
        loc_put(fs, &l);
    }
    record_path_v(fs, req_caller(fs, req), dir, name, TRACEDB_LINK, -r,
                  in->type == NODE_REAL ? vers_current(fs->vers, in->dev, in->ino) : 0);
    reply_new_entry(fs, req, dir, name, r);
}

/* `name` in `dir` is about to stop naming its inode (unlink, or replaced by a rename).  If the
 * kernel still holds that inode and knows it by exactly this name, give it an fd of its own
 * first, so that fstat/fchmod/... on an open-but-unlinked file keep working (t2100). */
static void pin_before_name_goes(struct fs *fs, struct fs_inode *dir, const char *name)
{
    struct stat st;
    if (fstatat(dir->fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || S_ISDIR(st.st_mode))
        return;
    struct ino_key k = {st.st_dev, st.st_ino};
    pthread_mutex_lock(&fs->lock);
    struct fs_inode *in = g_hash_table_lookup(fs->inodes, &k);
    bool needed = in && in->fd < 0 && in->parent == dir && in->name && !strcmp(in->name, name);
    pthread_mutex_unlock(&fs->lock);
    if (!needed)
        return;
    int fd = openat(dir->fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return;
    pthread_mutex_lock(&fs->lock);
    in = g_hash_table_lookup(fs->inodes, &k);
    if (in && in->fd < 0) {
        in->fd = fd;
        fd = -1;
    }
    pthread_mutex_unlock(&fs->lock);
    if (fd >= 0)
        close(fd);
}

static void remove_entry(fuse_req_t req, fuse_ino_t parent, const char *name, bool is_dir)
{
    struct fs *fs = req_fs(req);
    count_op(fs, is_dir ? OP_RMDIR : OP_UNLINK);
    if (parent == FUSE_ROOT_ID) {
        fuse_reply_err(req, EPERM);
        return;
    }
    struct fs_inode *dir = get_inode(req, parent);
    int r;
    int64_t version_id = 0;
    if (is_hidden(fs, dir, name)) {
        r = -ENOENT;
    } else {
        if (!is_dir) {
            version_id = version_at(fs, dir, name); /* the content that goes */
            pin_before_name_goes(fs, dir, name);
        }
        struct fs_creds c;
        creds_enter(fs, req, &c);
        r = unlinkat(dir->fd, name, is_dir ? AT_REMOVEDIR : 0) < 0 ? -errno : 0;
        creds_leave(fs, &c);
    }
    record_path_v(fs, req_caller(fs, req), dir, name, is_dir ? TRACEDB_RMDIR : TRACEDB_UNLINK, -r,
                  version_id);
    FS_DEBUG(fs, "%s(parent=%" PRIu64 ", name=%s) = %d\n", is_dir ? "rmdir" : "unlink",
             (uint64_t)parent, name, r);
    fuse_reply_err(req, -r);
}

static void op_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
    remove_entry(req, parent, name, false);
}

static void op_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
    remove_entry(req, parent, name, true);
}

static void op_rename(fuse_req_t req, fuse_ino_t parent, const char *name, fuse_ino_t newparent,
                      const char *newname, unsigned int flags)
{
    struct fs *fs = req_fs(req);
    count_op(fs, OP_RENAME);
    if (parent == FUSE_ROOT_ID || newparent == FUSE_ROOT_ID) {
        fuse_reply_err(req, EPERM);
        return;
    }
    struct fs_inode *dir = get_inode(req, parent), *newdir = get_inode(req, newparent);
    int r;
    int64_t version_id = 0; /* the content that moves: a version belongs to its inode */
    if (is_hidden(fs, dir, name) || is_hidden(fs, newdir, newname)) {
        r = -EACCES;
    } else {
        version_id = version_at(fs, dir, name);
        if (!(flags & (RENAME_NOREPLACE | RENAME_EXCHANGE)))
            pin_before_name_goes(fs, newdir, newname);
        struct fs_creds c;
        creds_enter(fs, req, &c);
        r = renameat2(dir->fd, name, newdir->fd, newname, flags) < 0 ? -errno : 0;
        creds_leave(fs, &c);
    }

    int64_t caller = req_caller(fs, req);
    record_path_v(fs, caller, dir, name, TRACEDB_RENAME_FROM, -r, version_id);
    record_path_v(fs, caller, newdir, newname, TRACEDB_RENAME_TO, -r, version_id);

    if (!r) {
        /* Keep the moved inode's path current (and the other one's, for an exchange). */
        struct stat st;
        for (int i = 0; i < ((flags & RENAME_EXCHANGE) ? 2 : 1); i++) {
            struct fs_inode *d = i ? dir : newdir;
            const char *n = i ? name : newname;
            if (fstatat(d->fd, n, &st, AT_SYMLINK_NOFOLLOW) < 0)
                continue;
            struct ino_key k = {st.st_dev, st.st_ino};
            pthread_mutex_lock(&fs->lock);
            struct fs_inode *moved = g_hash_table_lookup(fs->inodes, &k);
            if (moved)
                inode_set_name_locked(moved, d, n);
            pthread_mutex_unlock(&fs->lock);
        }
    }
    FS_DEBUG(fs, "rename(%s -> %s, flags=%#x) = %d\n", name, newname, flags, r);
    fuse_reply_err(req, -r);
}

/* ---- open files -------------------------------------------------------------------------- */

static struct fs_handle *handle_new(struct fs *fs, enum fs_handle_type type, int fd,
                                    int64_t file_id, int flags, int64_t opener)
{
    struct fs_handle *h = g_new0(struct fs_handle, 1);
    h->type = type;
    h->fd = fd;
    h->file_id = file_id;
    h->open_flags = flags;
    h->exec = (flags & FS_OPEN_EXEC_FLAG) != 0;
    h->open_ns = rec_now_ns();
    pthread_mutex_init(&h->acct_lock, NULL);
    h->n_acct = 1;
    h->acct[0].process_id = opener;
    h->acct[0].first_ns = h->acct[0].last_ns = h->open_ns;
    pthread_mutex_lock(&fs->lock);
    h->next = fs->handles;
    if (fs->handles)
        fs->handles->prev = h;
    fs->handles = h;
    pthread_mutex_unlock(&fs->lock);
    return h;
}

/* Write a handle's per-process accounting to the trace.  The opener gets a read row for a
 * read open and a write row for a write open even if it moved no bytes (opening is the act). */
static void acct_flush(struct fs *fs, struct fs_handle *h, const struct fs_acct *a, bool opener)
{
    if (h->type != HANDLE_FILE)
        return;
    int64_t process_id = a->process_id;
    if (process_id < 0)
        return;
    int acc = h->open_flags & O_ACCMODE;
    bool rd = a->read || (opener && acc != O_WRONLY);
    bool wr = a->written || (opener && acc != O_RDONLY);
    struct rec_access r = {
        .process_id = process_id,
        .file_id = h->file_id,
        .open_flags = h->open_flags,
        .first_ns = a->first_ns,
        .last_ns = a->last_ns,
        .version_id = h->version_id,
    };
    if (rd) {
        r.kind = h->exec ? TRACEDB_EXEC : TRACEDB_READ;
        r.bytes = a->bytes_read;
        r.version_id = h->read_version_id;
        rec_add_access(fs->rec, &r);
    }
    if (wr) {
        r.kind = TRACEDB_WRITE;
        r.version_id = h->version_id;
        r.bytes = a->bytes_written;
        rec_add_access(fs->rec, &r);
    }
}

/* Account n bytes moved by `process_id` through `h`. */
static void acct_add(struct fs *fs, struct fs_handle *h, int64_t process_id, bool write,
                     int64_t n)
{
    if (process_id == 0)
        process_id = h->acct[0].process_id; /* no caller (mmap writeback): the opener */
    int64_t now = rec_now_ns();
    pthread_mutex_lock(&h->acct_lock);
    struct fs_acct *a = NULL;
    for (int i = 0; i < h->n_acct; i++)
        if (h->acct[i].process_id == process_id)
            a = &h->acct[i];
    if (!a) {
        if (h->n_acct == FS_ACCT_SLOTS) {
            /* Full: the oldest non-opener slot goes to the trace now. */
            struct fs_acct old = h->acct[1];
            memmove(&h->acct[1], &h->acct[2], sizeof h->acct[0] * (FS_ACCT_SLOTS - 2));
            h->n_acct--;
            acct_flush(fs, h, &old, false);
        }
        a = &h->acct[h->n_acct++];
        memset(a, 0, sizeof *a);
        a->process_id = process_id;
        a->first_ns = now;
    }
    if (write) {
        a->bytes_written += n;
        a->written = true;
    } else {
        a->bytes_read += n;
        a->read = true;
    }
    a->last_ns = now;
    pthread_mutex_unlock(&h->acct_lock);
}

/* An exec open belongs to the program it started, once the exec completed: the opener was
 * still the old image (or the launcher, for the build's own command).  What that program then
 * read through the handle (page faults) is in its own slot: one row for both.  h->acct_lock
 * held. */
static void acct_merge_exec_opener(struct fs *fs, struct fs_handle *h)
{
    struct fs_acct *o = &h->acct[0];
    int64_t started = proc_image_after(fs->procs, h->exec_pid, h->open_ns);
    /* The launcher opened the build's command and the command has not shown itself yet
     * (without process events it is seen only at its first request): look now. */
    if (started <= 0 && o->process_id < 0) {
        proc_resolve(fs->procs, h->exec_pid);
        started = proc_image_after(fs->procs, h->exec_pid, h->open_ns);
    }
    if (started <= 0)
        return;
    o->process_id = started;
    for (int i = 1; i < h->n_acct; i++) {
        struct fs_acct *a = &h->acct[i];
        if (a->process_id != started)
            continue;
        o->bytes_read += a->bytes_read;
        o->bytes_written += a->bytes_written;
        o->read |= a->read;
        o->written |= a->written;
        o->first_ns = MIN(o->first_ns, a->first_ns);
        o->last_ns = MAX(o->last_ns, a->last_ns);
        memmove(a, a + 1, sizeof *a * (size_t)(h->n_acct - i - 1));
        h->n_acct--;
        break; /* slots are per process: at most one */
    }
}

/* Unlink from the open list, account, close, free. */
static void handle_release(struct fs *fs, struct fs_handle *h)
{
    pthread_mutex_lock(&fs->lock);
    if (h->prev)
        h->prev->next = h->next;
    else if (fs->handles == h)
        fs->handles = h->next;
    if (h->next)
        h->next->prev = h->prev;
    pthread_mutex_unlock(&fs->lock);

    pthread_mutex_lock(&h->acct_lock);
    if (h->exec && h->n_acct > 0)
        acct_merge_exec_opener(fs, h);
    for (int i = 0; i < h->n_acct; i++)
        acct_flush(fs, h, &h->acct[i], i == 0);
    pthread_mutex_unlock(&h->acct_lock);
    if (h->vw)
        vers_write_end(fs->vers, h->vw, hash_fd_of(h->fd));
    if (h->dir)
        closedir(h->dir);
    else if (h->fd >= 0 && h->type != HANDLE_OUTPUT)
        close(h->fd);
    pthread_mutex_destroy(&h->acct_lock);
    g_free(h);
}

void fs_flush_open_handles(struct fs *fs)
{
    for (;;) {
        pthread_mutex_lock(&fs->lock);
        struct fs_handle *h = fs->handles;
        pthread_mutex_unlock(&fs->lock);
        if (!h)
            break;
        handle_release(fs, h);
    }
    vers_drain(fs->vers); /* the versions those handles finished are recorded */
}

static void set_open_reply_flags(struct fs *fs, struct fs_inode *in, struct fuse_file_info *fi)
{
    (void)fs;
    if (in->type != NODE_REAL) {
        fi->direct_io = 1;
        fi->nonseekable = 1;
        /* Every write reaches the daemon before it returns: a close has nothing to push (and
         * each process of the build that exits would otherwise send a FLUSH for fd 1 and 2). */
        fi->noflush = 1;
    }
}

static void op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    struct fs *fs = req_fs(req);
    count_op(fs, OP_OPEN);
    struct fs_inode *in = get_inode(req, ino);
    int64_t caller = req_caller(fs, req);
    if (ino == FUSE_ROOT_ID) {
        fuse_reply_err(req, EISDIR);
        return;
    }
    if (in->type != NODE_REAL) {
        struct fs_handle *h = handle_new(fs, HANDLE_OUTPUT, -1, 0, fi->flags, caller);
        h->stream = in->type == NODE_STDOUT ? TRACEDB_STDOUT : TRACEDB_STDERR;
        fi->fh = (uint64_t)(uintptr_t)h;
        set_open_reply_flags(fs, in, fi);
        fuse_reply_open(req, fi);
        return;
    }
    /* Never create here (O_CREAT comes through create), never follow a symlink the name may
     * have become, and check that the name still holds this inode. */
    int flags = (fi->flags & ~(O_CREAT | O_EXCL | FS_OPEN_EXEC_FLAG)) | O_CLOEXEC;
    g_autofree char *path = inode_path(fs, in, NULL);
    int64_t file_id = rec_file_id(fs->rec, path);
    /* Opening to write (or truncate) begins a version, after the current one is hashed. */
    bool writing = (fi->flags & O_ACCMODE) != O_RDONLY || (fi->flags & O_TRUNC);
    int64_t version_id = 0, read_version_id = 0;
    struct vers_writer *vw = NULL;
    if (writing)
        vw = vers_write_begin(fs->vers, in->dev, in->ino, file_id, fi->flags & O_TRUNC,
                              &version_id, &read_version_id);
    struct fs_loc l;
    int fd = -1;
    int r = loc_get(fs, in, &l);
    if (r == 0) {
        struct fs_creds c;
        creds_enter(fs, req, &c);
        /* Without default_permissions the kernel only checks that some x bit is set before an
         * exec: whether it is the caller's to execute is asked here, as the caller. */
        if ((fi->flags & FS_OPEN_EXEC_FLAG) &&
            faccessat(l.dirfd, l.name, X_OK, loc_flags(&l, AT_EACCESS | AT_SYMLINK_NOFOLLOW)) < 0)
            r = -errno;
        else
            fd = loc_self(&l) ? open(l.path, flags & ~O_NOFOLLOW)
                              : openat(l.dirfd, l.name, flags | O_NOFOLLOW);
        if (!r)
            r = fd < 0 ? -errno : 0;
        creds_leave(fs, &c);
        loc_put(fs, &l);
        struct stat st;
        if (fd >= 0 && (fstat(fd, &st) < 0 || st.st_dev != in->dev || st.st_ino != in->ino)) {
            close(fd);
            fd = -1;
            r = -ESTALE;
        }
        if (fd >= 0 && (fi->flags & O_TRUNC) && (r = kill_suidgid(fs, fd, NULL)) < 0) {
            close(fd);
            fd = -1;
        }
    }
    if (vw && r < 0) {
        vers_write_abort(fs->vers, vw);
        vw = NULL;
    } else if (vw) {
        vers_write_opened(fs->vers, vw, fd);
    } else if (!writing && r == 0) {
        /* A read binds to the content it opens; a file never seen before is hashed now. */
        bool hash_needed;
        version_id = read_version_id = vers_read(fs->vers, in->dev, in->ino, file_id, &hash_needed);
        if (hash_needed)
            vers_hash_found(fs->vers, in->dev, in->ino, hash_fd_of(fd));
    }

    if (r < 0 || (fi->flags & O_TRUNC))
        record_v(fs, caller, file_id, r < 0 ? ((fi->flags & O_ACCMODE) == O_RDONLY ? TRACEDB_READ
                                                                                    : TRACEDB_WRITE)
                                            : TRACEDB_TRUNCATE,
                 fi->flags, -1, rec_now_ns(), -r, version_id);
    FS_DEBUG(fs, "open(%s, flags=%#x) = %d\n", path, fi->flags, r);
    if (r < 0) {
        fuse_reply_err(req, -r);
        return;
    }
    struct fs_handle *h = handle_new(fs, HANDLE_FILE, fd, file_id, fi->flags, caller);
    h->dev = in->dev;
    h->ino = in->ino;
    h->version_id = version_id;
    h->read_version_id = read_version_id;
    h->vw = vw;
    if (h->exec) {
        /* The process's pid (a non-main thread that execs takes it over), known from the
         * caller's image; the launcher, single-threaded, is its own request's pid. */
        pid_t pid = proc_image_pid(fs->procs, caller);
        h->exec_pid = pid > 0 ? pid : fuse_req_ctx(req)->pid;
    }
    fi->fh = (uint64_t)(uintptr_t)h;
    /* Keep the kernel's page cache across opens: every change to a traced file goes through
     * this mount, and the kernel updates or drops its pages for each (see op_init).  Reads
     * served from the cache are not seen, so a read row's bytes count what came through the
     * daemon; who read is recorded at open either way. */
    fi->keep_cache = 1;
    /* A read-only close needs no FLUSH: locks are kept by the kernel (op_init), and nothing
     * written needs pushing to the real filesystem. */
    fi->noflush = (fi->flags & O_ACCMODE) == O_RDONLY;
    if (fuse_reply_open(req, fi) == -ENOENT) {
        /* The opener was interrupted: the kernel will never release this handle. */
        handle_release(fs, h);
    }
}

static void op_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
                      struct fuse_file_info *fi)
{
    struct fs *fs = req_fs(req);
    count_op(fs, OP_CREATE);
    if (parent == FUSE_ROOT_ID) {
        fuse_reply_err(req, EPERM);
        return;
    }
    struct fs_inode *dir = get_inode(req, parent);
    int64_t caller = req_caller(fs, req);
    g_autofree char *path = inode_path(fs, dir, name);
    int64_t file_id = rec_file_id(fs->rec, path);
    int r, fd = -1;
    int64_t version_id = 0, read_version_id = 0;
    struct vers_writer *vw = NULL;
    struct stat st = {0};
    if (is_hidden(fs, dir, name)) {
        r = -EACCES;
    } else {
        /* An existing file that O_TRUNC would empty: its version must be hashed first (and
         * begins the new one, so that no other writer can start a hash in between). */
        struct stat old;
        if ((fi->flags & O_TRUNC) && fstatat(dir->fd, name, &old, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISREG(old.st_mode))
            vw = vers_write_begin(fs->vers, old.st_dev, old.st_ino, file_id, true, &version_id,
                                  NULL);
        struct fs_creds c;
        creds_enter(fs, req, &c);
        mode_t m = umask_enter(fs, req, mode);
        fd = openat(dir->fd, name, (fi->flags | O_CREAT | O_CLOEXEC) & ~O_NOFOLLOW, m);
        umask_leave(fs);
        r = fd < 0 ? -errno : 0;
        creds_leave(fs, &c);
        if (fd >= 0 && (fi->flags & O_TRUNC) && (r = kill_suidgid(fs, fd, NULL)) < 0) {
            close(fd);
            fd = -1;
        }
        if (fd >= 0 && fstat(fd, &st) < 0) {
            r = -errno;
            close(fd);
            fd = -1;
        }
        if (vw && (r < 0 || st.st_dev != old.st_dev || st.st_ino != old.st_ino)) {
            vers_write_abort(fs->vers, vw);
            vw = NULL;
        }
        if (r == 0 && !vw)
            vw = vers_write_begin(fs->vers, st.st_dev, st.st_ino, file_id,
                                  (fi->flags & (O_TRUNC | O_EXCL)) || st.st_size == 0,
                                  &version_id, &read_version_id);
        if (vw && fd >= 0)
            vers_write_opened(fs->vers, vw, fd);
    }
    record_v(fs, caller, file_id, TRACEDB_CREATE, fi->flags, -1, rec_now_ns(), -r, version_id);
    FS_DEBUG(fs, "create(%s, flags=%#x, mode=%#o) = %d\n", path, fi->flags, mode, r);
    struct fuse_entry_param e;
    if (!r)
        r = do_lookup(fs, req, dir, name, &e);
    if (r < 0) {
        if (fd >= 0) {
            vers_write_end(fs->vers, vw, hash_fd_of(fd));
            close(fd);
        }
        fuse_reply_err(req, -r);
        return;
    }
    struct fs_handle *h = handle_new(fs, HANDLE_FILE, fd, file_id, fi->flags, caller);
    h->dev = st.st_dev;
    h->ino = st.st_ino;
    h->version_id = version_id;
    h->read_version_id = read_version_id;
    h->vw = vw;
    fi->fh = (uint64_t)(uintptr_t)h;
    if (fuse_reply_create(req, &e, fi) == -ENOENT)
        handle_release(fs, h);
}

/* A per-thread buffer for data moved through the daemon, freed when the thread exits
 * (libfuse starts and retires worker threads as load changes). */
struct thread_buf {
    size_t size;
    char *data;
};

static void thread_buf_free(gpointer p)
{
    struct thread_buf *b = p;
    g_free(b->data);
    g_free(b);
}

static GPrivate thread_buf_key = G_PRIVATE_INIT(thread_buf_free);

static char *thread_buffer(size_t size)
{
    struct thread_buf *b = g_private_get(&thread_buf_key);
    if (!b) {
        b = g_new0(struct thread_buf, 1);
        g_private_set(&thread_buf_key, b);
    }
    if (b->size < size) {
        g_free(b->data);
        b->data = g_malloc(size);
        b->size = size;
    }
    return b->data;
}

static void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
                    struct fuse_file_info *fi)
{
    struct fs *fs = req_fs(req);
    count_op(fs, OP_READ);
    struct fs_handle *h = (struct fs_handle *)(uintptr_t)fi->fh;
    if (h->type == HANDLE_OUTPUT) {
        fuse_reply_buf(req, NULL, 0); /* nothing to read back from the build's output */
        return;
    }
    char *buf = thread_buffer(size);
    ssize_t n = pread(h->fd, buf, size, off);
    if (n < 0) {
        fuse_reply_err(req, errno);
        return;
    }
    acct_add(fs, h, req_caller(fs, req), false, n);
    fuse_reply_buf(req, buf, (size_t)n);
}

/* The build wrote to its stdout or stderr: pass it on, record it, then let the writer go on. */
static int output_write(struct fs *fs, fuse_req_t req, struct fs_handle *h, const char *data,
                        size_t len)
{
    int out = h->stream == TRACEDB_STDOUT ? fs->out_fd : fs->err_fd;
    int64_t caller = req_caller(fs, req);
    int r = 0;
    pthread_mutex_lock(&fs->output_lock);
    size_t done = 0;
    while (done < len) {
        ssize_t n = write(out, data + done, len - done);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            r = -errno;
            break;
        }
        done += (size_t)n;
    }
    if (done > 0)
        rec_add_output(fs->rec, caller > 0 ? caller : 0, h->stream, rec_now_ns(), data, done);
    pthread_mutex_unlock(&fs->output_lock);
    if (r == -EPIPE && done == 0) {
        /* Like a pipe whose reader went away: the writing thread gets SIGPIPE, then EPIPE. */
        const struct fuse_ctx *ctx = fuse_req_ctx(req);
        pid_t tgid = ctx->pid;
        syscall(SYS_tgkill, tgid, ctx->pid, SIGPIPE);
        return r;
    }
    return done > 0 ? (int)done : r;
}

static void op_write_buf(fuse_req_t req, fuse_ino_t ino, struct fuse_bufvec *in_buf, off_t off,
                         struct fuse_file_info *fi)
{
    struct fs *fs = req_fs(req);
    struct fs_handle *h = (struct fs_handle *)(uintptr_t)fi->fh;
    size_t size = fuse_buf_size(in_buf);

    if (h->type == HANDLE_OUTPUT) {
        count_op(fs, OP_OUTPUT);
        char *buf = thread_buffer(size ? size : 1);
        struct fuse_bufvec dst = FUSE_BUFVEC_INIT(size);
        dst.buf[0].mem = buf;
        ssize_t n = fuse_buf_copy(&dst, in_buf, 0);
        int r = n < 0 ? (int)n : output_write(fs, req, h, buf, (size_t)n);
        if (r < 0)
            fuse_reply_err(req, -r);
        else
            fuse_reply_write(req, (size_t)r);
        return;
    }
    count_op(fs, OP_WRITE);
    if (h->vw)
        vers_write_dirty(h->vw);
    int k = kill_suidgid(fs, h->fd, NULL);
    if (k < 0) {
        fuse_reply_err(req, -k);
        return;
    }
    struct fuse_bufvec dst = FUSE_BUFVEC_INIT(size);
    dst.buf[0].flags = FUSE_BUF_IS_FD | FUSE_BUF_FD_SEEK;
    dst.buf[0].fd = h->fd;
    dst.buf[0].pos = off;
    ssize_t n = fuse_buf_copy(&dst, in_buf, 0);
    if (n < 0) {
        fuse_reply_err(req, (int)-n);
        return;
    }
    acct_add(fs, h, req_caller(fs, req), true, n);
    fuse_reply_write(req, (size_t)n);
}

static void op_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    struct fs *fs = req_fs(req);
    count_op(fs, OP_FLUSH);
    struct fs_handle *h = (struct fs_handle *)(uintptr_t)fi->fh;
    int r = 0;
    if (h->type == HANDLE_FILE) {
        if (h->vw)
            vers_write_flushed(fs->vers, h->vw);
        /* close(dup(fd)) gives the real filesystem the close(2) it would have seen (POSIX
         * lock release, NFS close-to-open). */
        int d = dup(h->fd);
        r = d < 0 || close(d) < 0 ? errno : 0;
    }
    fuse_reply_err(req, r);
}

static void op_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    struct fs *fs = req_fs(req);
    count_op(fs, OP_RELEASE);
    handle_release(fs, (struct fs_handle *)(uintptr_t)fi->fh);
    fuse_reply_err(req, 0);
}

static void op_fsync(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi)
{
    struct fs *fs = req_fs(req);
    count_op(fs, OP_FSYNC);
    struct fs_handle *h = (struct fs_handle *)(uintptr_t)fi->fh;
    int r = 0;
    if (h->type == HANDLE_FILE)
        r = (datasync ? fdatasync(h->fd) : fsync(h->fd)) < 0 ? errno : 0;
    else if (h->type == HANDLE_DIR)
        r = fsync(dirfd(h->dir)) < 0 ? errno : 0;
    fuse_reply_err(req, r);
}

static void op_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t offset, off_t length,
                         struct fuse_file_info *fi)
{
    struct fs *fs = req_fs(req);
    count_op(fs, OP_FALLOCATE);
    struct fs_handle *h = (struct fs_handle *)(uintptr_t)fi->fh;
    if (h->type == HANDLE_FILE && h->vw)
        vers_write_dirty(h->vw);
    int r = h->type != HANDLE_FILE ? EBADF : (fallocate(h->fd, mode, offset, length) < 0 ? errno : 0);
    if (!r)
        acct_add(fs, h, req_caller(fs, req), true, 0);
    fuse_reply_err(req, r);
}

static void op_lseek(fuse_req_t req, fuse_ino_t ino, off_t off, int whence,
                     struct fuse_file_info *fi)
{
    struct fs *fs = req_fs(req);
    count_op(fs, OP_LSEEK);
    struct fs_handle *h = (struct fs_handle *)(uintptr_t)fi->fh;
    if (h->type != HANDLE_FILE) {
        fuse_reply_err(req, ESPIPE);
        return;
    }
    off_t res = lseek(h->fd, off, whence);
    if (res < 0)
        fuse_reply_err(req, errno);
    else
        fuse_reply_lseek(req, res);
}

static void op_copy_file_range(fuse_req_t req, fuse_ino_t ino_in, off_t off_in,
                               struct fuse_file_info *fi_in, fuse_ino_t ino_out, off_t off_out,
                               struct fuse_file_info *fi_out, size_t len, int flags)
{
    struct fs *fs = req_fs(req);
    count_op(fs, OP_COPY_FILE_RANGE);
    struct fs_handle *hi = (struct fs_handle *)(uintptr_t)fi_in->fh;
    struct fs_handle *ho = (struct fs_handle *)(uintptr_t)fi_out->fh;
    if (hi->type != HANDLE_FILE || ho->type != HANDLE_FILE) {
        fuse_reply_err(req, EXDEV); /* the kernel falls back to read + write */
        return;
    }
    if (ho->vw)
        vers_write_dirty(ho->vw);
    ssize_t n = copy_file_range(hi->fd, &off_in, ho->fd, &off_out, len, (unsigned)flags);
    if (n < 0) {
        fuse_reply_err(req, errno);
        return;
    }
    int64_t caller = req_caller(fs, req);
    acct_add(fs, hi, caller, false, n);
    acct_add(fs, ho, caller, true, n);
    fuse_reply_write(req, (size_t)n);
}

/* access(2), chdir and the like (there is no default_permissions): the real filesystem judges,
 * as for the caller. */
static void op_access(fuse_req_t req, fuse_ino_t ino, int mask)
{
    struct fs *fs = req_fs(req);
    count_op(fs, OP_ACCESS);
    struct fs_inode *in = get_inode(req, ino);
    int r = 0;
    struct fs_loc l;
    if (ino != FUSE_ROOT_ID && in->type == NODE_REAL && (r = -loc_get(fs, in, &l)) == 0) {
        struct fs_creds c;
        creds_enter(fs, req, &c);
        r = faccessat(l.dirfd, l.name, mask, loc_flags(&l, AT_EACCESS | AT_SYMLINK_NOFOLLOW)) < 0
                ? errno : 0;
        creds_leave(fs, &c);
        loc_put(fs, &l);
    }
    fuse_reply_err(req, r);
}

/* ---- directories ------------------------------------------------------------------------- */

static void op_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    struct fs *fs = req_fs(req);
    count_op(fs, OP_OPENDIR);
    int64_t caller = req_caller(fs, req);
    if (ino == FUSE_ROOT_ID) {
        struct fs_handle *h = handle_new(fs, HANDLE_DIR, -1, 0, 0, -1);
        fi->fh = (uint64_t)(uintptr_t)h;
        fuse_reply_open(req, fi);
        return;
    }
    struct fs_inode *in = get_inode(req, ino);
    struct fs_creds c;
    creds_enter(fs, req, &c);
    int fd = openat(in->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    creds_leave(fs, &c);
    DIR *dir = fd < 0 ? NULL : fdopendir(fd);
    int r = dir ? 0 : -errno;
    if (!dir && fd >= 0)
        close(fd);
    record_path(fs, caller, in, NULL, TRACEDB_READDIR, -r);
    if (r < 0) {
        fuse_reply_err(req, -r);
        return;
    }
    struct fs_handle *h = handle_new(fs, HANDLE_DIR, -1, 0, 0, -1);
    h->dir = dir;
    fi->fh = (uint64_t)(uintptr_t)h;
    if (fuse_reply_open(req, fi) == -ENOENT)
        handle_release(fs, h);
}

static void root_readdir(struct fs *fs, fuse_req_t req, size_t size, off_t off)
{
    char *buf = thread_buffer(size);
    size_t used = 0;
    int total = fs->n_trees + 2;
    for (off_t i = off; i < total; i++) {
        char name[32];
        struct stat st = {0};
        if (i < fs->n_trees) {
            snprintf(name, sizeof name, "t%d", (int)i);
            st.st_mode = S_IFDIR;
        } else {
            g_strlcpy(name, i == fs->n_trees ? FS_STDOUT_NAME : FS_STDERR_NAME, sizeof name);
            st.st_mode = S_IFREG;
        }
        size_t need = fuse_add_direntry(req, buf + used, size - used, name, &st, i + 1);
        if (need > size - used)
            break;
        used += need;
    }
    fuse_reply_buf(req, buf, used);
}

static void op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
                       struct fuse_file_info *fi)
{
    struct fs *fs = req_fs(req);
    count_op(fs, OP_READDIR);
    if (ino == FUSE_ROOT_ID) {
        root_readdir(fs, req, size, off);
        return;
    }
    struct fs_handle *h = (struct fs_handle *)(uintptr_t)fi->fh;
    struct fs_inode *in = get_inode(req, ino);
    char *buf = thread_buffer(size);
    size_t used = 0;
    int err = 0;
    if (off != h->dir_offset) {
        seekdir(h->dir, off);
        h->dir_entry = NULL;
        h->dir_offset = off;
    }
    for (;;) {
        if (!h->dir_entry) {
            errno = 0;
            h->dir_entry = readdir(h->dir);
            if (!h->dir_entry) {
                err = errno;
                break;
            }
        }
        struct dirent *d = h->dir_entry;
        if (!is_hidden(fs, in, d->d_name)) {
            struct stat st = {.st_ino = present_ino(fs, in->dev, d->d_ino),
                              .st_mode = (mode_t)d->d_type << 12};
            size_t need = fuse_add_direntry(req, buf + used, size - used, d->d_name, &st,
                                            d->d_off);
            if (need > size - used)
                break;
            used += need;
        }
        h->dir_offset = d->d_off;
        h->dir_entry = NULL;
    }
    if (err && used == 0)
        fuse_reply_err(req, err);
    else
        fuse_reply_buf(req, buf, used);
}

static void op_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    struct fs *fs = req_fs(req);
    count_op(fs, OP_RELEASEDIR);
    handle_release(fs, (struct fs_handle *)(uintptr_t)fi->fh);
    fuse_reply_err(req, 0);
}

static void op_fsyncdir(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi)
{
    op_fsync(req, ino, datasync, fi);
}

static void op_statfs(fuse_req_t req, fuse_ino_t ino)
{
    struct fs *fs = req_fs(req);
    count_op(fs, OP_STATFS);
    struct statvfs sv;
    struct fs_loc l = {.held = NULL};
    int fd = fs->tree_roots[0]->fd;
    if (ino != FUSE_ROOT_ID && get_inode(req, ino)->type == NODE_REAL &&
        loc_get(fs, get_inode(req, ino), &l) == 0)
        fd = l.dirfd; /* the object itself, or its directory: the same filesystem */
    int r = fstatvfs(fd, &sv) < 0 ? errno : 0;
    loc_put(fs, &l);
    if (r)
        fuse_reply_err(req, r);
    else
        fuse_reply_statfs(req, &sv);
}

/* ---- extended attributes ----------------------------------------------------------------- */

static void xattr_reply_size_or_data(fuse_req_t req, ssize_t n, size_t size, const char *buf)
{
    if (n < 0)
        fuse_reply_err(req, errno);
    else if (size == 0)
        fuse_reply_xattr(req, (size_t)n);
    else
        fuse_reply_buf(req, buf, (size_t)n);
}

/* The path for xattr calls on `ino`; l-variants are right for both forms (the final component
 * is either the object's own /proc/self/fd link, followed by the kernel regardless, or its
 * name, which must not be followed). */
static int xattr_target(struct fs *fs, fuse_req_t req, fuse_ino_t ino, struct fs_loc *l)
{
    struct fs_inode *in = get_inode(req, ino);
    if (ino == FUSE_ROOT_ID || in->type != NODE_REAL)
        return -ENOTSUP;
    return loc_get(fs, in, l);
}

static void op_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name, size_t size)
{
    struct fs *fs = req_fs(req);
    count_op(fs, OP_GETXATTR);
    struct fs_loc l;
    int r = xattr_target(fs, req, ino, &l);
    if (r < 0) {
        fuse_reply_err(req, r == -ENOTSUP ? ENODATA : -r);
        return;
    }
    char *buf = size ? thread_buffer(size) : NULL;
    struct fs_creds c;
    creds_enter(fs, req, &c);
    ssize_t n = loc_self(&l) ? getxattr(l.path, name, buf, size) : lgetxattr(l.path, name, buf, size);
    int e = errno;
    creds_leave(fs, &c);
    loc_put(fs, &l);
    errno = e;
    xattr_reply_size_or_data(req, n, size, buf);
}

static void op_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size)
{
    struct fs *fs = req_fs(req);
    count_op(fs, OP_LISTXATTR);
    struct fs_loc l;
    int r = xattr_target(fs, req, ino, &l);
    if (r < 0) {
        if (r != -ENOTSUP)
            fuse_reply_err(req, -r);
        else if (size)
            fuse_reply_buf(req, NULL, 0);
        else
            fuse_reply_xattr(req, 0);
        return;
    }
    struct fs_creds c;
    creds_enter(fs, req, &c);
    char *buf = size ? thread_buffer(size) : NULL;
    ssize_t n = loc_self(&l) ? listxattr(l.path, buf, size) : llistxattr(l.path, buf, size);
    int e = errno;
    creds_leave(fs, &c);
    loc_put(fs, &l);
    errno = e;
    xattr_reply_size_or_data(req, n, size, buf);
}

static void op_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name, const char *value,
                        size_t size, int flags)
{
    struct fs *fs = req_fs(req);
    count_op(fs, OP_SETXATTR);
    struct fs_loc l;
    int r = xattr_target(fs, req, ino, &l);
    if (r < 0) {
        fuse_reply_err(req, r == -ENOTSUP ? EPERM : -r);
        return;
    }
    struct fs_creds c;
    creds_enter(fs, req, &c);
    r = (loc_self(&l) ? setxattr(l.path, name, value, size, flags)
                      : lsetxattr(l.path, name, value, size, flags)) < 0 ? errno : 0;
    creds_leave(fs, &c);
    loc_put(fs, &l);
    record_path(fs, req_caller(fs, req), get_inode(req, ino), NULL, TRACEDB_SETATTR, r);
    fuse_reply_err(req, r);
}

static void op_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name)
{
    struct fs *fs = req_fs(req);
    count_op(fs, OP_REMOVEXATTR);
    struct fs_loc l;
    int r = xattr_target(fs, req, ino, &l);
    if (r < 0) {
        fuse_reply_err(req, r == -ENOTSUP ? EPERM : -r);
        return;
    }
    struct fs_creds c;
    creds_enter(fs, req, &c);
    r = (loc_self(&l) ? removexattr(l.path, name) : lremovexattr(l.path, name)) < 0 ? errno : 0;
    creds_leave(fs, &c);
    loc_put(fs, &l);
    record_path(fs, req_caller(fs, req), get_inode(req, ino), NULL, TRACEDB_SETATTR, r);
    fuse_reply_err(req, r);
}

/* ---- session ----------------------------------------------------------------------------- */

static void op_init(void *userdata, struct fuse_conn_info *conn)
{
    struct fs *fs = userdata;
    /* Symlink targets are read once per inode and kept in the page cache (a symlink never
     * changes: a new target is a new inode); only with cache_lookups, since each READLINK
     * request is a row naming the process that followed the link. */
    if (fs->cache_lookups && (conn->capable & FUSE_CAP_CACHE_SYMLINKS))
        conn->want |= FUSE_CAP_CACHE_SYMLINKS;
    else
        conn->want &= ~FUSE_CAP_CACHE_SYMLINKS;
    /* No writeback cache: it would hide which process wrote.  No readdirplus: every entry the
     * build uses is then looked up by name (simple nlookup accounting). */
    conn->want &= ~(FUSE_CAP_WRITEBACK_CACHE | FUSE_CAP_READDIRPLUS | FUSE_CAP_READDIRPLUS_AUTO);
    if (conn->capable & FUSE_CAP_SPLICE_WRITE)
        conn->want |= FUSE_CAP_SPLICE_WRITE;
    if (conn->capable & FUSE_CAP_SPLICE_MOVE)
        conn->want |= FUSE_CAP_SPLICE_MOVE;
    /* Locks are then kept by the kernel, shared by every process of the mount. */
    conn->want &= ~(FUSE_CAP_POSIX_LOCKS | FUSE_CAP_FLOCK_LOCKS);
    /* The mode of a create comes unmasked with the caller's umask beside it, so that a
     * directory's default ACL replaces the umask as natively (umask_enter). */
    if (conn->capable & FUSE_CAP_DONT_MASK) {
        conn->want |= FUSE_CAP_DONT_MASK;
        fs->dont_mask = true;
    } else {
        conn->want &= ~FUSE_CAP_DONT_MASK;
    }
    /* Every change to a traced file goes through this mount, and the kernel keeps its page cache
     * coherent with its own writes, truncates, copies and hole punches.  Dropping a file's pages
     * whenever a getattr shows a new mtime (what auto_inval_data does) would drop every file
     * the build just wrote (the kernel does not track mtime itself here), and the next reader
     * would read it all through the daemon again.  A size change still drops the pages. */
    conn->want &= ~FUSE_CAP_AUTO_INVAL_DATA;
}

static const struct fuse_lowlevel_ops fs_ops = {
    .init = op_init,
    .lookup = op_lookup,
    .forget = op_forget,
    .forget_multi = op_forget_multi,
    .getattr = op_getattr,
    .setattr = op_setattr,
    .readlink = op_readlink,
    .mknod = op_mknod,
    .mkdir = op_mkdir,
    .unlink = op_unlink,
    .rmdir = op_rmdir,
    .symlink = op_symlink,
    .rename = op_rename,
    .link = op_link,
    .open = op_open,
    .create = op_create,
    .read = op_read,
    .write_buf = op_write_buf,
    .flush = op_flush,
    .release = op_release,
    .fsync = op_fsync,
    .opendir = op_opendir,
    .readdir = op_readdir,
    .releasedir = op_releasedir,
    .fsyncdir = op_fsyncdir,
    .statfs = op_statfs,
    .setxattr = op_setxattr,
    .getxattr = op_getxattr,
    .listxattr = op_listxattr,
    .removexattr = op_removexattr,
    .fallocate = op_fallocate,
    .lseek = op_lseek,
    .copy_file_range = op_copy_file_range,
    .access = op_access,
};

const struct fuse_lowlevel_ops *fs_operations(void)
{
    return &fs_ops;
}

/* ---- the session's I/O (wire.h) ---------------------------------------------------------- */

static ssize_t io_read(int fd, void *buf, size_t len, void *userdata)
{
    struct fs *fs = userdata;
    ssize_t n = read(fd, buf, len);
    if (n > 0)
        wire_note_request(&fs->wire, buf, (size_t)n);
    return n;
}

static ssize_t io_writev(int fd, struct iovec *iov, int count, void *userdata)
{
    struct fs *fs = userdata;
    char scratch[WIRE_SCRATCH];
    wire_amend_reply(&fs->wire, iov, count, scratch);
    return writev(fd, iov, count);
}

int fs_session_attach(struct fs *fs, struct fuse_session *se, int fuse_fd)
{
    static const struct fuse_custom_io io = {.read = io_read, .writev = io_writev};
    return fuse_session_custom_io(se, &io, fuse_fd);
}

bool fs_killpriv_v2(struct fs *fs)
{
    return wire_killpriv_v2(&fs->wire);
}

struct fs *fs_new(const struct fs_config *cfg)
{
    struct fs *fs = g_new0(struct fs, 1);
    pthread_mutex_init(&fs->lock, NULL);
    pthread_mutex_init(&fs->output_lock, NULL);
    pthread_mutex_init(&fs->devs_lock, NULL);
    pthread_mutex_init(&fs->caller_creds_lock, NULL);
    fs->caller_creds = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
    int ng = getgroups(0, NULL);
    fs->own_groups = g_new0(gid_t, MAX(ng, 1));
    fs->n_own_groups = ng > 0 ? getgroups(ng, fs->own_groups) : 0;
    if (fs->n_own_groups < 0)
        fs->n_own_groups = 0;
    struct __user_cap_header_struct caph = {_LINUX_CAPABILITY_VERSION_3, 0};
    if (syscall(SYS_capget, &caph, fs->own_caps) == 0)
        fs->own_cap_eff = fs->own_caps[0].effective | (uint64_t)fs->own_caps[1].effective << 32;
    fs->inodes = g_hash_table_new_full(ino_key_hash, ino_key_equal, g_free, NULL);
    fs->out_fd = cfg->out_fd;
    fs->err_fd = cfg->err_fd;
    fs->rec = cfg->rec;
    fs->procs = cfg->procs;
    fs->vers = vers_new(cfg->rec, 0, cfg->hash_limit);
    fs->hide_dev = cfg->hide_dev;
    fs->hide_ino = cfg->hide_ino;
    fs->hide_name = g_strdup(cfg->hide_name);
    fs->timeout = cfg->timeout;
    fs->debug = cfg->debug;
    fs->uid = geteuid();
    fs->gid = getegid();
    fs->is_root = fs->uid == 0;
    fs->present_ids_as_own = cfg->present_ids_as_own;
    fs->wire.want_killpriv_v2 = !cfg->no_killpriv_v2;
    fs->cache_lookups = cfg->cache_lookups;
    fs->out_node.type = NODE_STDOUT;
    fs->out_node.ino = FS_VIRTUAL_INO(2);
    fs->err_node.type = NODE_STDERR;
    fs->err_node.ino = FS_VIRTUAL_INO(3);
    fs->n_trees = cfg->n_trees;
    fs->tree_roots = g_new0(struct fs_inode *, cfg->n_trees);
    for (int i = 0; i < cfg->n_trees; i++) {
        struct fs_inode *in = g_new0(struct fs_inode, 1);
        struct stat st = {0};
        fstatat(cfg->trees[i].fd, "", &st, AT_EMPTY_PATH);
        in->type = NODE_REAL;
        in->fd = cfg->trees[i].fd;
        in->dev = st.st_dev;
        in->ino = st.st_ino;
        in->tree_root = true;
        in->name = g_strdup(cfg->trees[i].path);
        (void)present_ino(fs, st.st_dev, st.st_ino); /* the first tree's device is index 0 */
        fs->tree_roots[i] = in;
        /* Tree roots are not in the inode table: a lookup inside another tree that reaches
         * the same directory gets an ordinary inode with its own path. */
    }
    return fs;
}

void fs_set_present_ids_as_own(struct fs *fs, bool on)
{
    if (fs)
        fs->present_ids_as_own = on;
}

char *fs_stats_summary(struct fs *fs)
{
    GString *s = g_string_new(NULL);
    for (int i = 0; i < OP_COUNT; i++) {
        uint64_t n = __atomic_load_n(&fs->op_count[i], __ATOMIC_RELAXED);
        if (n)
            g_string_append_printf(s, "%s%s=%" PRIu64, s->len ? " " : "", op_names[i], n);
    }
    return g_string_free(s, FALSE);
}

static void free_inode(gpointer p)
{
    struct fs_inode *in = p;
    if (in->fd >= 0)
        close(in->fd);
    g_free(in->name);
    g_free(in);
}

void fs_free(struct fs *fs)
{
    if (!fs)
        return;
    GList *vals = g_hash_table_get_values(fs->inodes);
    g_hash_table_destroy(fs->inodes); /* frees the keys */
    g_list_free_full(vals, free_inode);
    for (int i = 0; i < fs->n_trees; i++)
        free_inode(fs->tree_roots[i]);
    g_free(fs->tree_roots);
    g_free(fs->hide_name);
    vers_free(fs->vers);
    pthread_mutex_destroy(&fs->lock);
    pthread_mutex_destroy(&fs->output_lock);
    pthread_mutex_destroy(&fs->devs_lock);
    pthread_mutex_destroy(&fs->caller_creds_lock);
    g_hash_table_destroy(fs->caller_creds);
    g_free(fs->own_groups);
    g_free(fs);
}
