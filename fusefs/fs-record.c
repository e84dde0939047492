/* fs-record — the one narrow way handlers record: who called (req_caller), then
 * record_path or record_file (see fs-internal.h). */
#include "fs-internal.h"

/* Who sent this request: a process-image id, 0 (unknown), or -1 (the launcher itself);
 * resolved once per request (handlers ask more than once, and creds_enter needs it before the
 * real filesystem is called). */
static __thread uint64_t caller_unique;
static __thread int64_t caller_id;

int64_t req_caller(struct fs *fs, fuse_req_t req)
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

void record_file(struct fs *fs, int64_t process_id, int64_t file_id, int kind, int flags,
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

void record_path(struct fs *fs, int64_t process_id, struct fs_inode *dir, const char *name,
                 int kind, int result, int64_t version_id)
{
    if (process_id < 0)
        return;
    g_autofree char *path = inode_path(fs, dir, name);
    int64_t now = rec_now_ns();
    record_file(fs, process_id, rec_file_id(fs->rec, path), kind, -1, -1, now, result, version_id);
}

/* The current version of what `name` in `dir` is (0: none, or not a file). */
int64_t version_at(struct fs *fs, struct fs_inode *dir, const char *name)
{
    struct stat st;
    if (fstatat(dir->fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
        return 0;
    return vers_current(fs->vers, st.st_dev, st.st_ino);
}

/* A read-only fd of the file open as `fd`, to hash it from (or -errno): a new open file
 * description (never a dup: its flags and offset are the build's, and a writer's fd would make
 * an exec of the file fail with ETXTBSY while it is hashed), without updating the access time. */
int hash_fd_of(int fd)
{
    char p[64];
    snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
    return vers_open_for_hash(p);
}

bool is_hidden(struct fs *fs, struct fs_inode *dir, const char *name)
{
    if (dir->type != NODE_REAL)
        return false;
    for (int i = 0; i < FS_MAX_HIDDEN; i++) {
        const struct fs_hidden *h = &fs->hide[i];
        if (!h->name || dir->dev != h->dev || dir->ino != h->ino)
            continue;
        size_t l = strlen(h->name);
        if (strncmp(name, h->name, l) != 0)
            continue;
        const char *rest = name + l;
        if (!*rest || (h->sqlite_sides && (!strcmp(rest, "-wal") || !strcmp(rest, "-shm") ||
                                           !strcmp(rest, "-journal"))))
            return true;
    }
    return false;
}
