/* fs-handles — open files and directories, and the per-process byte accounting of each
 * handle, recorded at release (see fs-handles.h). */
#include "fs-internal.h"

struct fs_handle *fs_handle_new(struct fs *fs, enum fs_handle_type type, int fd,
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
void fs_handle_acct_add(struct fs *fs, struct fs_handle *h, int64_t process_id, bool write,
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
void fs_handle_release(struct fs *fs, struct fs_handle *h)
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
    if (h->exec_pid)
        proc_exec_release(fs->procs, h->exec_pid);
    for (int i = 0; i < h->n_acct; i++)
        acct_flush(fs, h, &h->acct[i], i == 0);
    pthread_mutex_unlock(&h->acct_lock);
    if (h->vw)
        vers_write_end(fs->vers, h->vw, vers_reopen_for_hash(h->fd));
    if (h->dir_snap)
        g_ptr_array_free(h->dir_snap, TRUE);
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
        fs_handle_release(fs, h);
    }
    vers_drain(fs->vers); /* the versions those handles finished are recorded */
}

void fs_open_reply_flags(struct fs *fs, struct fs_inode *in, struct fuse_file_info *fi)
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
