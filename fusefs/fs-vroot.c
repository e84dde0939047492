/* fs-vroot — the virtual root: the trees' mount points and the build's stdout/stderr files,
 * whose writes are copied to buildtrail's own and recorded (see fs-vroot.h). */
#include "fs-internal.h"

void fs_vroot_stat(struct fs *fs, struct fs_inode *in, struct stat *st)
{
    memset(st, 0, sizeof *st);
    st->st_ino = in->ino;
    st->st_nlink = 1;
    st->st_uid = fs->uid;
    st->st_gid = fs->gid;
    st->st_mode = S_IFREG | 0666;
    st->st_blksize = 4096;
}

int fs_vroot_lookup(struct fs *fs, const char *name, struct fuse_entry_param *e)
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
    int r = fs_inode_getattr(fs, NULL, in, &st);
    if (r < 0)
        return r;
    pthread_mutex_lock(&fs->lock);
    in->nlookup++;
    pthread_mutex_unlock(&fs->lock);
    fs_inode_fill_entry(fs, e, in, &st);
    return 0;
}

/* The build wrote to its stdout or stderr: pass it on, record it, then let the writer go on. */
int fs_vroot_output_write(struct fs *fs, fuse_req_t req, struct fs_handle *h, const char *data,
                          size_t len)
{
    int out = h->stream == TRACEDB_STDOUT ? fs->out_fd : fs->err_fd;
    int64_t caller = fs_req_caller(fs, req);
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

void fs_vroot_readdir(struct fs *fs, fuse_req_t req, size_t size, off_t off)
{
    char *buf = fs_thread_buffer(size);
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
