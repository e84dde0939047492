/* fs-request — what every request shares: who sent it (resolved once per request), the names
 * requests are counted under, and the worker thread's buffer for the data a reply carries
 * (see fs-request.h). */
#include "fs-internal.h"

const char *const fs_op_names[OP_COUNT] = {
    "lookup", "forget", "getattr", "setattr", "readlink", "mknod", "mkdir", "unlink", "rmdir",
    "symlink", "rename", "link", "open", "read", "write", "flush", "release", "fsync", "opendir",
    "readdir", "releasedir", "fsyncdir", "statfs", "setxattr", "getxattr", "listxattr",
    "removexattr", "create", "fallocate", "lseek", "copy_file_range", "output_write", "access",
};

/* Who sent this request: a process-image id, 0 (unknown), or -1 (the launcher itself);
 * resolved once per request (handlers ask more than once, and fs_creds_enter needs it before the
 * real filesystem is called). */
static __thread uint64_t caller_unique;
static __thread int64_t caller_id;

int64_t fs_req_caller(struct fs *fs, fuse_req_t req)
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

char *fs_thread_buffer(size_t size)
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
