/* fs — the traced passthrough filesystem served to the build (FUSE low-level API).
 *
 * What the build sees
 *   The mount's root is virtual: it holds one directory per traced tree ("t0", "t1", ...) and
 *   two files, "stdout" and "stderr".  The launcher bind-mounts each tN over its tree's real
 *   path and makes the two files the build's fd 1 and fd 2, then detaches the root; so the
 *   build sees its trees at their usual paths and never sees the root itself.
 *
 * What the daemon does
 *   Each tN is served from a directory fd opened before mounting (the real tree in the daemon's
 *   own mount namespace: the daemon never goes through its own mount).  Every operation is
 *   passed through and attributed to the calling process (proc.h) and recorded (recorder.h).
 *   Writes to stdout/stderr are copied to the daemon's own fds 1/2 before the reply, so the
 *   build gets a pipe's ordering and backpressure, and each chunk is recorded with its writer.
 *   The trace database and its -wal/-shm/-journal files are invisible to the build.
 *
 * Handler discipline: every handler replies exactly once on every path through it (an early
 * return replies first; nothing after a reply touches the request); it records what its caller
 * did through fs-record.c's two calls before replying; it returns errors to the build as the
 * real filesystem gave them, and never logs (FS_DEBUG lines aside, which BUILDTRAIL_DEBUG=fs
 * turns on).  The implementation is split by concern: fs-internal.h lists the modules in
 * dependency order (each calls only those before it, but fs-inodes.c and fs-vroot.c, which
 * share getattr and entries between real and virtual nodes) and the lock order.
 *
 * Inodes: nodeid = pointer to struct fs_inode (root: FUSE_ROOT_ID), keyed by (st_dev, st_ino)
 * so hard links share one node.  An inode lives while the kernel holds lookups on it or a child
 * inode names it as parent.  Its path is computed from (parent, name) links, which lookup and
 * rename keep current; tree roots carry their absolute path.
 *
 * Locking (lock order: fs.lock, then output_lock, then recorder/proc internal locks):
 *   lock        — the inode table, every inode's nlookup/child_refs/parent/name, the list of
 *                 open handles.  Never held while calling into the underlying filesystem.
 *   output_lock — the order of chunks on the daemon's stdout/stderr and in the output table.
 *   handle.acct_lock — a handle's per-process byte counts.
 */
#pragma once

#include "proc.h"
#include "recorder.h"

#include <fuse_lowlevel.h>
#include <stdbool.h>
#include <sys/types.h>

struct fs;
struct gate;
struct pkggate;
struct vers;

struct fs_tree {
    const char *path; /* absolute path the build sees it at */
    int fd;           /* O_PATH|O_DIRECTORY fd of the real directory; fs takes ownership */
};

#define FS_MAX_HIDDEN 3

struct fs_config {
    const struct fs_tree *trees;
    int n_trees;
    int out_fd, err_fd;   /* where the build's stdout/stderr go (buildtrail's own 1 and 2) */
    /* The capture engine (capture/), made by the launcher and shared with the watched system
     * trees (syswatch.h); the filesystem uses them, never frees them, and they outlive it. */
    struct rec *rec;
    struct proc_table *procs;
    struct vers *vers;
    /* What the build never sees (lookup, readdir, create, rename, link, unlink all act as if
     * it were not there): the trace database with its -wal/-shm/-journal files (under its
     * name and under the temporary name it has until the build's command starts), and
     * buildtrail's private directory.  Each is a name in a directory (st_dev, st_ino). */
    struct fs_hidden {
        dev_t dev;
        ino_t ino;
        const char *name;  /* NULL: unused */
        bool sqlite_sides; /* also NAME-wal, NAME-shm, NAME-journal */
    } hide[FS_MAX_HIDDEN];
    double timeout;        /* kernel entry/attr cache timeout, seconds */
    /* User-namespace mode when only our own uid/gid exist in the build's namespace (no
     * subordinate range mapped, launcher/idmap.h): the kernel refuses writes to inodes with an
     * unmapped owner, so every other uid/gid is presented as ours; permissions are judged by
     * the real filesystem (the daemon runs as the same user) either way.  May be changed by
     * fs_set_present_ids_as_own() until the session starts. */
    bool present_ids_as_own;
    /* Let the kernel check permissions as well, with the caller's live credentials and POSIX
     * ACLs (FUSE_POSIX_ACL, which turns on default_permissions), when it offers that: FIFOs,
     * devices and sockets are then checked on open (FUSE sends no OPEN for them) and search
     * permission on every directory of a path, cached or not.  The real filesystem still
     * judges every call as for the caller.  Off where the kernel would judge by ids it cannot
     * map (user-namespace mode without a subordinate range, or with supplementary groups that
     * no subgid line maps: their files would look foreign), and where a traced tree reaches a
     * filesystem that judges permissions by its own rules (launcher/run.c, find_own_judge):
     * the kernel would refuse what it allows.  May be changed by
     * fs_set_kernel_checks() until the session starts. */
    bool kernel_checks;
    bool no_killpriv_v2;   /* do not take over set-user-ID clearing from the kernel (wire.h) */
    /* Let the kernel cache failed lookups (for `timeout`) and symlink targets: a name found
     * missing or a symlink followed is then recorded for the first process, not for every one. */
    bool cache_lookups;
    /* `run --vary fileordering` (launcher/vary.h): every directory's entries are listed in the
     * reverse of the real filesystem's order ("." and ".." first), from one reading of the
     * directory taken at offset 0 (a rewind reads it again), so that offsets stay stable
     * across READDIR calls. */
    bool reverse_listings;
    /* `run --only-inputs` (capture/gate.h), or NULL: a file in a restricted tree that existed
     * before the build and that the gate does not let through looks absent — lookup answers
     * ENOENT (recorded as a probe), a listing leaves it out.  What the build made (created,
     * wrote through create, renamed or linked into place) is always visible.  Sealed; read
     * only; outlives the filesystem. */
    const struct gate *gate;
    /* `run --only-packages` (capture/pkggate.h), or NULL: a file the pkggate hides looks
     * absent in the same way (with or without `gate`), and its denial names the package.
     * Sealed; read only; outlives the filesystem. */
    const struct pkggate *pkggate;
    bool debug;
};

struct fs *fs_new(const struct fs_config *cfg);

/* Change fs_config.present_ids_as_own (before the session starts serving). */
void fs_set_present_ids_as_own(struct fs *fs, bool on);

/* Change fs_config.kernel_checks (before the session starts serving). */
void fs_set_kernel_checks(struct fs *fs, bool on);

/* Root mode, where a caller with uid and gid 0 may hold no capability: the build runs in a user
 * namespace of its own (run --vary user_group: its uid 2000 is root's outside, without root's
 * capabilities, launcher/idmap.h).  Such a caller's capabilities and groups are then read, as
 * any other caller's, instead of taken to be all (fs-creds.c).  Before the session starts
 * serving. */
void fs_set_root_callers_read(struct fs *fs, bool on);

/* User-namespace mode: the ids the build's namespace holds, as inside ids (the ranges of its
 * uid and gid maps, at most FS_MAX_ID_RANGES each: the kernel's limit on a map's lines, so
 * none is left out).  With kernel checks, the
 * POSIX ACL entries naming any other id are hidden from the kernel, which would reject the
 * whole ACL (fusefs/aclx.h), and an ACL set over such entries is refused with EPERM (they
 * would be lost).  Before the session starts serving. */
#define FS_MAX_ID_RANGES 340 /* UID_GID_MAP_MAX_EXTENTS: a user with N groups mapped has 2N+1 */
struct fs_id_range {
    uint32_t first, count;
};
void fs_set_inside_ids(struct fs *fs, const struct fs_id_range *uids, int n_uids,
                       const struct fs_id_range *gids, int n_gids);

/* Does the build's namespace hold this inside user (is_group false) or group id, as set by
 * fs_set_inside_ids? */
bool fs_inside_id_held(const struct fs *fs, bool is_group, uint32_t id);

/* The kernel checks permissions too (fs_config.kernel_checks, and the kernel offered it; known
 * once INIT has been answered). */
bool fs_kernel_checks(struct fs *fs);

/* The low-level operations table, with `fs` as userdata for fuse_session_new(). */
const struct fuse_lowlevel_ops *fs_operations(void);

/* Serve the session on `fuse_fd` (an open, mounted /dev/fuse), in place of
 * fuse_session_mount(): requests and replies pass through wire.h.  The session owns the fd.
 * Returns 0 or a negative errno. */
int fs_session_attach(struct fs *fs, struct fuse_session *se, int fuse_fd);

/* The connection negotiated FUSE_HANDLE_KILLPRIV_V2 (known once INIT has been answered). */
bool fs_killpriv_v2(struct fs *fs);

/* Record the reads and writes of handles the kernel never released (the build was killed, or
 * the connection ended first).  Call once, after the session loop has returned. */
void fs_flush_open_handles(struct fs *fs);

/* Requests served, by FUSE opcode name ("lookup", "read", ...), for the run's notes. */
char *fs_stats_summary(struct fs *fs);

void fs_free(struct fs *fs);

/* Virtual root entry names. */
#define FS_STDOUT_NAME "stdout"
#define FS_STDERR_NAME "stderr"
