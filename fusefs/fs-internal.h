/* fs-internal — the filesystem's shared state (struct fs, made by fs_new in fs.c) and the map
 * of its modules; not for the rest of buildtrail, which uses fs.h.
 *
 * The modules, each with its header (what it owns, which lock protects what) and its part of
 * fs.h's contract, in dependency order (each calls only those above it):
 *   fs-request.h  a request's caller, the request names, the per-thread reply buffer
 *   fs-creds.h    calls judged as for the caller (root mode), umask, set-user-ID clearing,
 *                 who judges permissions (kernel checks, the namespace's ids)
 *   fs-inodes.h   the inode table (nodeid = pointer), paths, *at() locations, attributes,
 *                 lookup, hidden names
 *   fs-vroot.h    the virtual root with stdout/stderr (fs-inodes.c calls back into it for the
 *                 attributes of the virtual nodes: the one cycle, real and virtual nodes
 *                 sharing getattr and entries)
 *   fs-record.h   the two record calls every handler makes
 *   fs-handles.h  open handles and their per-process byte accounting
 *   fs-ops.h      the handlers: fs-names.c, fs-files.c, fs-dirs.c (one reply each)
 *   fs.c          the operations table, INIT, the session's I/O, fs_new/fs_free, statistics
 * Capture (capture/: proc.h, recorder.h, versions.h) and wire.h, aclx.h lie below them all.
 *
 * Locks, in the order they are taken (fs.h; docs/architecture.md, "Concurrency"): fs.lock
 * (inodes, links, the open handles); then fs.output_lock (stdout/stderr) or a handle's
 * acct_lock (never both); then the capture engine's own (proc, vers, the recorder's).
 * fs.devs_lock, fs.caller_creds_lock and fs.made_lock are leaves.
 */
#pragma once

#include "aclx.h"
#include "fs.h"
#include "fs-creds.h"
#include "fs-handles.h"
#include "fs-inodes.h"
#include "fs-ops.h"
#include "fs-record.h"
#include "fs-request.h"
#include "fs-vroot.h"
#include "gate.h"
#include "pkggate.h"
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
    bool reverse_listings; /* fs_config.reverse_listings, fixed */
    /* run --only-inputs (fs_config.gate): the gate, fixed; and the inodes the build made
     * (struct ino_key set), which the gate never hides: made_lock, a leaf, protects `made`. */
    const struct gate *gate;
    const struct pkggate *pkggate; /* run --only-packages (fs_config.pkggate), fixed */
    struct gate *own_gate;         /* the empty gate made when only pkggate is given */
    pthread_mutex_t made_lock;
    GHashTable *made;
    uid_t uid;
    gid_t gid;
    uint64_t op_count[OP_COUNT]; /* atomic */
    struct wire wire;            /* see wire.h */

    /* The real devices seen, in order of first sight (the first tree's is index 0): what
     * makes the inode numbers the build sees unique under the mount's one st_dev (see
     * fs_present_ino).  Append-only: readers scan devs[0 .. n_devs) without a lock; devs_lock
     * serialises appends (a leaf lock). */
    dev_t devs[FS_MAX_DEVS];
    atomic_uint n_devs;
    pthread_mutex_t devs_lock;

    /* Root mode: the groups and capabilities of each caller image (see fs_creds_enter). */
    pthread_mutex_t caller_creds_lock; /* a leaf */
    GHashTable *caller_creds;    /* int64 image id -> struct fs_caller_creds; caller_creds_lock */
    gid_t *own_groups;           /* the daemon's own, restored after each call; fixed */
    int n_own_groups;
    struct __user_cap_data_struct own_caps[2]; /* the daemon's capabilities; fixed */
    uint64_t own_cap_eff;
    struct stat own_userns;      /* the daemon's /proc/self/ns/user (fs-creds.c); fixed */
    bool own_userns_known;
    bool dont_mask;              /* FUSE_CAP_DONT_MASK negotiated (set in op_init) */
    bool want_kernel_checks;     /* fs_config.kernel_checks; fixed once serving */
    bool kernel_checks;          /* FUSE_CAP_POSIX_ACL negotiated (set in op_init, atomic) */
    bool root_callers_read;      /* fs_set_root_callers_read; fixed once serving */
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

static inline void fs_count_op(struct fs *fs, enum fs_op op)
{
    __atomic_add_fetch(&fs->op_count[op], 1, __ATOMIC_RELAXED);
}
