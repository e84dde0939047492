/* fs-request — what every request of the filesystem shares (fs-request.c); internal to fs*.c.
 *
 * Owns: the caller of the request being served (a process-image id, resolved once per request
 * through proc.h and kept thread-locally for the rest of it), the names requests are counted
 * under (fs.c counts them, fs_stats_summary), and a per-thread buffer for the data a reply
 * carries (read, readdir).  Thread-local state only: no lock.  Calls nothing in fs*.c.
 */
#pragma once

#include <fuse_lowlevel.h>
#include <stddef.h>
#include <stdint.h>

struct fs;

enum fs_op {
    OP_LOOKUP, OP_FORGET, OP_GETATTR, OP_SETATTR, OP_READLINK, OP_MKNOD, OP_MKDIR, OP_UNLINK,
    OP_RMDIR, OP_SYMLINK, OP_RENAME, OP_LINK, OP_OPEN, OP_READ, OP_WRITE, OP_FLUSH, OP_RELEASE,
    OP_FSYNC, OP_OPENDIR, OP_READDIR, OP_RELEASEDIR, OP_FSYNCDIR, OP_STATFS, OP_SETXATTR,
    OP_GETXATTR, OP_LISTXATTR, OP_REMOVEXATTR, OP_CREATE, OP_FALLOCATE, OP_LSEEK,
    OP_COPY_FILE_RANGE, OP_OUTPUT, OP_ACCESS, OP_COUNT
};

/* Each operation's name, for debug lines and the run's statistics (fs.c). */
extern const char *const fs_op_names[OP_COUNT];

static inline struct fs *fs_req_fs(fuse_req_t req)
{
    return fuse_req_userdata(req);
}

/* Who sent this request: a process-image id, 0 (unknown), or -1 (PROC_LAUNCHER, the launcher
 * itself); resolved once per request (handlers ask more than once, and fs_creds_enter needs it
 * before the real filesystem is called). */
int64_t fs_req_caller(struct fs *fs, fuse_req_t req);

/* This worker thread's buffer of at least `size` bytes, valid until its next call on the same
 * thread; freed when the thread exits (libfuse starts and retires workers as load changes). */
char *fs_thread_buffer(size_t size);
