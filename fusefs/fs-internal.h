/* fs-internal — what the modules of the filesystem (fs*.c) share; not for the rest of
 * buildtrail, which uses fs.h.
 *
 * The modules, each with its part of fs.h's contract:
 *   fs-inodes.c   the inode table (nodeid = pointer), paths, *at() locations, attributes
 *   fs-creds.c    calls judged as for the caller (root mode), umask, set-user-ID clearing
 *   fs-record.c   who called and the two record calls every handler makes
 *   fs-handles.c  open handles and their per-process byte accounting
 *   fs-vroot.c    the virtual root with stdout/stderr
 *   fs-names.c, fs-files.c, fs-dirs.c  the handlers (one reply each)
 *   fs.c          the operations table, INIT, the wire, fs_new/fs_free
 * Locks and their order are fs.h's.
 */
#pragma once

#include "aclx.h"
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
    pid_t exec_pid;      /* exec opens: the process that was exec'ing (proc_exec_hold), or 0 */
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

/* Each operation's name, for debug lines and the run's statistics (fs.c). */
extern const char *const op_names[OP_COUNT];

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
    struct fs_hidden hide[FS_MAX_HIDDEN]; /* fixed after fs_new; names owned */
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
    bool want_kernel_checks;     /* fs_config.kernel_checks; fixed once serving */
    bool kernel_checks;          /* FUSE_CAP_POSIX_ACL negotiated (set in op_init, atomic) */
    /* User-namespace mode: the ids its maps hold (fs_set_inside_ids); fixed once serving. */
    bool inside_ids_known;
    struct fs_id_range inside_uids[FS_MAX_ID_RANGES], inside_gids[FS_MAX_ID_RANGES];
    int n_inside_uids, n_inside_gids;
};

#define FS_DEBUG(fs, ...)                                                                          \
    do {                                                                                           \
        if ((fs)->debug)                                                                           \
            fprintf(stderr, "buildtrail-fs: " __VA_ARGS__);                                        \
    } while (0)

static inline struct fs *req_fs(fuse_req_t req)
{
    return fuse_req_userdata(req);
}

static inline void count_op(struct fs *fs, enum fs_op op)
{
    __atomic_add_fetch(&fs->op_count[op], 1, __ATOMIC_RELAXED);
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

/* The most supplementary groups a caller's calls are made with. */
#define FS_MAX_GROUPS 256

/* What creds_enter() made this thread, for creds_retry() and creds_leave(). */
struct fs_creds {
    bool switched;
    bool caps_changed;
    bool refreshed;          /* the caller's /proc status was read again for this call */
    uint64_t cap_eff;
    int n_groups;
    gid_t groups[FS_MAX_GROUPS];
};

static inline struct fs_inode *get_inode(fuse_req_t req, fuse_ino_t ino)
{
    (void)req;
    return (struct fs_inode *)(uintptr_t)ino;
}

/* ---- fs-inodes.c ---- */

/* Drop one reference of kind `lookups` (nlookup) or a child ref; free when both reach zero.
 * Called with fs.lock held. */
void inode_unref_locked(struct fs *fs, struct fs_inode *in, uint64_t lookups, bool child);

/* Set where an inode was last seen.  Called with fs.lock held. */
void inode_set_name_locked(struct fs_inode *in, struct fs_inode *parent, const char *name);

/* The path the build sees for `in`, plus "/name" when name is given.  g_free() it. */
char *inode_path(struct fs *fs, struct fs_inode *in, const char *name);

int loc_get(struct fs *fs, struct fs_inode *in, struct fs_loc *l);

void loc_put(struct fs *fs, struct fs_loc *l);

bool loc_self(const struct fs_loc *l);

/* Flags for *at() calls on a location (AT_EMPTY_PATH when it is the object's own fd). */
int loc_flags(const struct fs_loc *l, int flags);

/* The inode number the build sees for real (dev, ino).  The mount has one st_dev for files of
 * many real devices, so a real inode number alone is not unique (two tmpfs trees both have an
 * inode 2, and stdout/stderr had 2 and 3: `cat a b` said "input file is output file").  The
 * first device's numbers pass through; the k-th device's get k in bits 48..63 (real inode
 * numbers stay below 2^48 on every common filesystem; above, they are folded in and may
 * collide).  Stable for the run, shared by hard links, the same in stat and readdir. */
uint64_t present_ino(struct fs *fs, dev_t dev, ino_t ino);

/* What the build sees of a real stat: its inode number made unique (present_ino), and its
 * owner (see fs_config.present_ids_as_own). */
void present_stat(struct fs *fs, struct stat *st);

int do_getattr(struct fs *fs, fuse_req_t req, struct fs_inode *in, struct stat *st);

void fill_entry(struct fs *fs, struct fuse_entry_param *e, struct fs_inode *in,
                const struct stat *st);

/* Look `name` up in `dir`; on success *e is filled and one lookup taken.  Returns 0/-errno. */
int do_lookup(struct fs *fs, fuse_req_t req, struct fs_inode *dir, const char *name,
              struct fuse_entry_param *e);

/* `name` in `dir` is about to stop naming its inode (unlink, or replaced by a rename).  If the
 * kernel still holds that inode and knows it by exactly this name, give it an fd of its own
 * first, so that fstat/fchmod/... on an open-but-unlinked file keep working (t2100). */
void pin_before_name_goes(struct fs *fs, struct fs_inode *dir, const char *name);

void free_inode(gpointer p);

/* ---- fs-creds.c ---- */

/* Drop them when the kernel flagged this request: from the file open as `fd`, or (fd < 0) the
 * file named `path` (truncate(2); never a symlink here).  Only a root daemon has to: it holds
 * CAP_FSETID, so the real filesystem keeps the bits for it; an unprivileged daemon's own write
 * or truncate makes the real filesystem drop them (even on a file it does not own, where a
 * chmod of ours would fail).  Returns 0 or -errno. */
int kill_suidgid(struct fs *fs, int fd, const char *path);

/* The caller's groups and capabilities (cached by image) into *cap_eff, groups and *n_groups;
 * false if the caller is gone. */
bool caller_creds(struct fs *fs, fuse_req_t req, int64_t caller, uint64_t *cap_eff,
                  gid_t *groups, int *n_groups);

void creds_enter(struct fs *fs, fuse_req_t req, struct fs_creds *c);

/* After a call made as the caller failed with `err` (positive errno): true when the caller's
 * groups or capabilities changed within its image since they were kept (setgroups() without
 * exec) and this thread now has the new ones — make the call again.  Only after EACCES/EPERM;
 * at most once per creds_enter. */
bool creds_retry(struct fs *fs, fuse_req_t req, struct fs_creds *c, int err);

void creds_leave(struct fs *fs, struct fs_creds *c);

mode_t umask_enter(struct fs *fs, fuse_req_t req, mode_t mode);

void umask_leave(struct fs *fs);

/* ---- fs-record.c ---- */

int64_t req_caller(struct fs *fs, fuse_req_t req);

/* The two ways a handler records what its caller did (nothing for the launcher's own
 * processes, process_id -1): to a file known by id (an open file: flags, bytes, the time of
 * the first of the accesses it sums up), or to the path `name` in `dir` (flags and bytes
 * none, now).  version_id: the version the access read, made, moved or removed (0: none;
 * dropped when result is an error). */
void record_file(struct fs *fs, int64_t process_id, int64_t file_id, int kind, int flags,
                 int64_t bytes, int64_t first_ns, int result, int64_t version_id);
void record_path(struct fs *fs, int64_t process_id, struct fs_inode *dir, const char *name,
                 int kind, int result, int64_t version_id);

/* The current version of what `name` in `dir` is (0: none, or not a file). */
int64_t version_at(struct fs *fs, struct fs_inode *dir, const char *name);

/* A read-only fd of the file open as `fd`, to hash it from (or -errno): a new open file
 * description (never a dup: its flags and offset are the build's, and a writer's fd would make
 * an exec of the file fail with ETXTBSY while it is hashed), without updating the access time. */
int hash_fd_of(int fd);

bool is_hidden(struct fs *fs, struct fs_inode *dir, const char *name);

/* ---- fs-handles.c ---- */

struct fs_handle *handle_new(struct fs *fs, enum fs_handle_type type, int fd,
                             int64_t file_id, int flags, int64_t opener);

/* Account n bytes moved by `process_id` through `h`. */
void acct_add(struct fs *fs, struct fs_handle *h, int64_t process_id, bool write,
              int64_t n);

/* Unlink from the open list, account, close, free. */
void handle_release(struct fs *fs, struct fs_handle *h);

void set_open_reply_flags(struct fs *fs, struct fs_inode *in, struct fuse_file_info *fi);

char *thread_buffer(size_t size);

/* ---- fs-vroot.c ---- */

void virtual_stat(struct fs *fs, struct fs_inode *in, struct stat *st);

int root_lookup(struct fs *fs, const char *name, struct fuse_entry_param *e);

/* The build wrote to its stdout or stderr: pass it on, record it, then let the writer go on. */
int output_write(struct fs *fs, fuse_req_t req, struct fs_handle *h, const char *data,
                 size_t len);

void root_readdir(struct fs *fs, fuse_req_t req, size_t size, off_t off);

/* ---- fs-names.c ---- */

void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name);

void op_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup);

void op_forget_multi(fuse_req_t req, size_t count, struct fuse_forget_data *forgets);

void op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);

void op_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int valid,
                struct fuse_file_info *fi);

void op_readlink(fuse_req_t req, fuse_ino_t ino);

void op_mknod(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode, dev_t rdev);

void op_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode);

void op_symlink(fuse_req_t req, const char *link, fuse_ino_t parent, const char *name);

void op_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t parent, const char *name);

void op_unlink(fuse_req_t req, fuse_ino_t parent, const char *name);

void op_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name);

void op_rename(fuse_req_t req, fuse_ino_t parent, const char *name, fuse_ino_t newparent,
               const char *newname, unsigned int flags);

/* access(2), chdir and the like (sent only without kernel checks, fs.h): the real filesystem
 * judges, as for the caller. */
void op_access(fuse_req_t req, fuse_ino_t ino, int mask);

/* ---- fs-files.c ---- */

void op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);

void op_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
               struct fuse_file_info *fi);

void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
             struct fuse_file_info *fi);

void op_write_buf(fuse_req_t req, fuse_ino_t ino, struct fuse_bufvec *in_buf, off_t off,
                  struct fuse_file_info *fi);

void op_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);

void op_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);

void op_fsync(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi);

void op_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t offset, off_t length,
                  struct fuse_file_info *fi);

void op_lseek(fuse_req_t req, fuse_ino_t ino, off_t off, int whence,
              struct fuse_file_info *fi);

void op_copy_file_range(fuse_req_t req, fuse_ino_t ino_in, off_t off_in,
                        struct fuse_file_info *fi_in, fuse_ino_t ino_out, off_t off_out,
                        struct fuse_file_info *fi_out, size_t len, int flags);

/* ---- fs-dirs.c ---- */

void op_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);

void op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
                struct fuse_file_info *fi);

void op_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);

void op_fsyncdir(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi);

void op_statfs(fuse_req_t req, fuse_ino_t ino);

void op_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name, size_t size);

void op_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size);

void op_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name, const char *value,
                 size_t size, int flags);

void op_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name);

/* ---- fs.c ---- */

void op_init(void *userdata, struct fuse_conn_info *conn);
