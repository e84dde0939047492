/* fs-creds — calls made as the caller (fs-creds.c); internal to fs*.c.
 *
 * Owns: root mode's switch of a worker thread to the caller's fsuid/fsgid, groups and
 * capabilities around each real-filesystem call (fs_creds_enter/retry/leave) and the cache of
 * each caller image's groups and capabilities (fs.caller_creds, under fs.caller_creds_lock, a
 * leaf; capabilities only of a caller in the daemon's own user namespace); the caller's umask around a create; set-user-ID clearing for KILLPRIV_V2 requests;
 * and who judges permissions: the kernel's checks (fs_kernel_checks) and, in user-namespace
 * mode, the ids the build's namespace holds (fs_inside_id_held, fs.h).
 * Calls fs-request.h (the caller) only.
 */
#pragma once

#include <fuse_lowlevel.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct fs;

#define FS_MAX_GROUPS 256

/* What fs_creds_enter() made this thread, for fs_creds_retry() and fs_creds_leave(). */
struct fs_creds {
    bool switched;
    bool caps_changed;
    bool refreshed;          /* the caller's /proc status was read again for this call */
    uint64_t cap_eff;
    int n_groups;
    gid_t groups[FS_MAX_GROUPS];
};

/* Drop them when the kernel flagged this request: from the file open as `fd`, or (fd < 0) the
 * file named `path` (truncate(2); never a symlink here).  Only a root daemon has to: it holds
 * CAP_FSETID, so the real filesystem keeps the bits for it; an unprivileged daemon's own write
 * or truncate makes the real filesystem drop them (even on a file it does not own, where a
 * chmod of ours would fail).  Returns 0 or -errno. */
int fs_creds_kill_suidgid(struct fs *fs, int fd, const char *path);

void fs_creds_enter(struct fs *fs, fuse_req_t req, struct fs_creds *c);

/* After a call made as the caller failed with `err` (positive errno): true when the caller's
 * groups or capabilities changed within its image since they were kept (setgroups() without
 * exec) and this thread now has the new ones — make the call again.  Only after EACCES/EPERM;
 * at most once per fs_creds_enter. */
bool fs_creds_retry(struct fs *fs, fuse_req_t req, struct fs_creds *c, int err);

void fs_creds_leave(struct fs *fs, struct fs_creds *c);

mode_t fs_umask_enter(struct fs *fs, fuse_req_t req, mode_t mode);

void fs_umask_leave(struct fs *fs);
