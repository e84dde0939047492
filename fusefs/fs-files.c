/* fs-files — the handlers of open files: open, create, read, write, flush, release, fsync,
 * fallocate, lseek, copy_file_range. */
#include "fs-internal.h"

void fs_op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    struct fs *fs = fs_req_fs(req);
    fs_count_op(fs, OP_OPEN);
    struct fs_inode *in = fs_inode_get(req, ino);
    int64_t caller = fs_req_caller(fs, req);
    if (ino == FUSE_ROOT_ID) {
        fuse_reply_err(req, EISDIR);
        return;
    }
    if (in->type != NODE_REAL) {
        struct fs_handle *h = fs_handle_new(fs, HANDLE_OUTPUT, -1, 0, fi->flags, caller);
        h->stream = in->type == NODE_STDOUT ? TRACEDB_STDOUT : TRACEDB_STDERR;
        fi->fh = (uint64_t)(uintptr_t)h;
        fs_open_reply_flags(fs, in, fi);
        fuse_reply_open(req, fi);
        return;
    }
    /* Never create here (O_CREAT comes through create), never follow a symlink the name may
     * have become, and check that the name still holds this inode. */
    int flags = (fi->flags & ~(O_CREAT | O_EXCL | FS_OPEN_EXEC_FLAG)) | O_CLOEXEC;
    g_autofree char *path = fs_inode_path(fs, in, NULL);
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
    int r = fs_loc_get(fs, in, &l);
    if (r == 0) {
        struct fs_creds c;
        fs_creds_enter(fs, req, &c);
        /* Without kernel checks (fs.h) the kernel only checks that some x bit is set before an
         * exec: whether it is the caller's to execute is asked here, as the caller. */
        bool may_exec = false;
        do {
            r = 0;
            int xflags = fs_loc_flags(&l, AT_EACCESS | AT_SYMLINK_NOFOLLOW);
            if ((fi->flags & FS_OPEN_EXEC_FLAG) && faccessat(l.dirfd, l.name, X_OK, xflags) < 0)
                r = -errno;
            else
                fd = fs_loc_self(&l) ? open(l.path, flags & ~O_NOFOLLOW)
                                  : openat(l.dirfd, l.name, flags | O_NOFOLLOW);
            may_exec = (fi->flags & FS_OPEN_EXEC_FLAG) && r == 0;
            if (!r)
                r = fd < 0 ? -errno : 0;
        } while (fs_creds_retry(fs, req, &c, -r));
        fs_creds_leave(fs, &c);
        /* Exec needs the x bit only (the kernel reads the file itself, for no one else: the
         * process is then not dumpable).  A caller that may execute but not read the file
         * (mode 0711) gets it opened with the daemon's credentials, read-only. */
        if (may_exec && r == -EACCES && (flags & O_ACCMODE) == O_RDONLY) {
            fd = fs_loc_self(&l) ? open(l.path, flags & ~O_NOFOLLOW)
                              : openat(l.dirfd, l.name, flags | O_NOFOLLOW);
            r = fd < 0 ? -errno : 0;
        }
        fs_loc_put(fs, &l);
        struct stat st;
        if (fd >= 0 && (fstat(fd, &st) < 0 || st.st_dev != in->dev || st.st_ino != in->ino)) {
            close(fd);
            fd = -1;
            r = -ESTALE;
        }
        if (fd >= 0 && (fi->flags & O_TRUNC) && (r = fs_creds_kill_suidgid(fs, fd, NULL)) < 0) {
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
            vers_hash_found(fs->vers, in->dev, in->ino, vers_reopen_for_hash(fd));
    }

    if (r < 0 || (fi->flags & O_TRUNC))
        fs_record_file(fs, caller, file_id,
                       r < 0 ? ((fi->flags & O_ACCMODE) == O_RDONLY ? TRACEDB_READ : TRACEDB_WRITE)
                             : TRACEDB_TRUNCATE,
                       fi->flags, -1, rec_now_ns(), -r, version_id);
    FS_DEBUG(fs, "open(%s, flags=%#x) = %d\n", path, fi->flags, r);
    if (r < 0) {
        fuse_reply_err(req, -r);
        return;
    }
    pid_t exec_pid = 0;
    if (fi->flags & FS_OPEN_EXEC_FLAG) {
        /* The process's pid (a non-main thread that execs takes it over).  Held before the
         * handle takes its open time, so the exec it is for is kept for its release. */
        exec_pid = proc_task_tgid(fs->procs, fuse_req_ctx(req)->pid);
        proc_exec_hold(fs->procs, exec_pid);
    }
    struct fs_handle *h = fs_handle_new(fs, HANDLE_FILE, fd, file_id, fi->flags, caller);
    h->dev = in->dev;
    h->ino = in->ino;
    h->version_id = version_id;
    h->read_version_id = read_version_id;
    h->vw = vw;
    h->exec_pid = exec_pid;
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
        fs_handle_release(fs, h);
    }
}

/* run --only-inputs: may a create of `name` in `dir` open what is there, a file the gate hides
 * (-EACCES: no)?  Only to empty it (a writable O_TRUNC of a regular file: written over, as
 * natively, and then the build's), or when it is an empty regular file (a stale stamp that
 * `touch` makes again: nothing to show); kept content (touch, '>>', "a+") would reach the
 * build through a name that looked absent, and through a hidden symlink it would write
 * elsewhere.  O_EXCL is left to fail with EEXIST, as natively. */
static int create_over_gated(struct fs *fs, struct fs_inode *dir, const char *name, int flags)
{
    struct stat st;
    if (!fs->gate || (flags & O_EXCL) || fstatat(dir->fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
        !fs_inode_gated(fs, dir, name, st.st_dev, st.st_ino, S_ISDIR(st.st_mode)))
        return 0;
    if (S_ISREG(st.st_mode) &&
        (st.st_size == 0 || ((flags & O_TRUNC) && (flags & O_ACCMODE) != O_RDONLY)))
        return 0;
    return -EACCES;
}

void fs_op_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
                  struct fuse_file_info *fi)
{
    struct fs *fs = fs_req_fs(req);
    fs_count_op(fs, OP_CREATE);
    if (parent == FUSE_ROOT_ID) {
        fuse_reply_err(req, EPERM);
        return;
    }
    struct fs_inode *dir = fs_inode_get(req, parent);
    int64_t caller = fs_req_caller(fs, req);
    g_autofree char *path = fs_inode_path(fs, dir, name);
    int64_t file_id = rec_file_id(fs->rec, path);
    int r, fd = -1;
    int64_t version_id = 0, read_version_id = 0;
    struct vers_writer *vw = NULL;
    struct stat st = {0};
    if (fs_inode_hidden(fs, dir, name)) {
        r = -EACCES;
    } else if ((r = create_over_gated(fs, dir, name, fi->flags)) < 0) {
        /* refused (a denial: the kernel's lookup of the name has recorded it) */
    } else {
        /* An existing file that O_TRUNC would empty: its version must be hashed first (and
         * begins the new one, so that no other writer can start a hash in between). */
        struct stat old;
        if ((fi->flags & O_TRUNC) && fstatat(dir->fd, name, &old, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISREG(old.st_mode))
            vw = vers_write_begin(fs->vers, old.st_dev, old.st_ino, file_id, true, &version_id,
                                  NULL);
        struct fs_creds c;
        fs_creds_enter(fs, req, &c);
        mode_t m = fs_umask_enter(fs, req, mode);
        do
            fd = openat(dir->fd, name, (fi->flags | O_CREAT | O_CLOEXEC) & ~O_NOFOLLOW, m);
        while (fd < 0 && fs_creds_retry(fs, req, &c, errno));
        fs_umask_leave(fs);
        r = fd < 0 ? -errno : 0;
        fs_creds_leave(fs, &c);
        if (fd >= 0 && (fi->flags & O_TRUNC) && (r = fs_creds_kill_suidgid(fs, fd, NULL)) < 0) {
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
    fs_record_file(fs, caller, file_id, TRACEDB_CREATE, fi->flags, -1, rec_now_ns(), -r,
                   version_id);
    FS_DEBUG(fs, "create(%s, flags=%#x, mode=%#o) = %d\n", path, fi->flags, mode, r);
    struct fuse_entry_param e;
    if (!r) {
        fs_inode_mark_made(fs, st.st_dev, st.st_ino); /* created or written: the build's */
        r = fs_inode_lookup(fs, req, dir, name, &e, NULL);
    }
    if (r < 0) {
        if (fd >= 0) {
            vers_write_end(fs->vers, vw, vers_reopen_for_hash(fd));
            close(fd);
        }
        fuse_reply_err(req, -r);
        return;
    }
    struct fs_handle *h = fs_handle_new(fs, HANDLE_FILE, fd, file_id, fi->flags, caller);
    h->dev = st.st_dev;
    h->ino = st.st_ino;
    h->version_id = version_id;
    h->read_version_id = read_version_id;
    h->vw = vw;
    fi->fh = (uint64_t)(uintptr_t)h;
    if (fuse_reply_create(req, &e, fi) == -ENOENT)
        fs_handle_release(fs, h);
}

void fs_op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
                struct fuse_file_info *fi)
{
    struct fs *fs = fs_req_fs(req);
    fs_count_op(fs, OP_READ);
    struct fs_handle *h = (struct fs_handle *)(uintptr_t)fi->fh;
    if (h->type == HANDLE_OUTPUT) {
        fuse_reply_buf(req, NULL, 0); /* nothing to read back from the build's output */
        return;
    }
    char *buf = fs_thread_buffer(size);
    ssize_t n = pread(h->fd, buf, size, off);
    if (n < 0) {
        fuse_reply_err(req, errno);
        return;
    }
    fs_handle_acct_add(fs, h, fs_req_caller(fs, req), false, n);
    fuse_reply_buf(req, buf, (size_t)n);
}

void fs_op_write_buf(fuse_req_t req, fuse_ino_t ino, struct fuse_bufvec *in_buf, off_t off,
                     struct fuse_file_info *fi)
{
    struct fs *fs = fs_req_fs(req);
    struct fs_handle *h = (struct fs_handle *)(uintptr_t)fi->fh;
    size_t size = fuse_buf_size(in_buf);

    if (h->type == HANDLE_OUTPUT) {
        fs_count_op(fs, OP_OUTPUT);
        char *buf = fs_thread_buffer(size ? size : 1);
        struct fuse_bufvec dst = FUSE_BUFVEC_INIT(size);
        dst.buf[0].mem = buf;
        ssize_t n = fuse_buf_copy(&dst, in_buf, 0);
        int r = n < 0 ? (int)n : fs_vroot_output_write(fs, req, h, buf, (size_t)n);
        if (r < 0)
            fuse_reply_err(req, -r);
        else
            fuse_reply_write(req, (size_t)r);
        return;
    }
    fs_count_op(fs, OP_WRITE);
    if (h->vw)
        vers_write_dirty(h->vw);
    int k = fs_creds_kill_suidgid(fs, h->fd, NULL);
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
    fs_handle_acct_add(fs, h, fs_req_caller(fs, req), true, n);
    fuse_reply_write(req, (size_t)n);
}

void fs_op_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    struct fs *fs = fs_req_fs(req);
    fs_count_op(fs, OP_FLUSH);
    struct fs_handle *h = (struct fs_handle *)(uintptr_t)fi->fh;
    int r = 0;
    if (h->type == HANDLE_FILE) {
        if (h->vw)
            vers_write_flushed(fs->vers, h->vw);
        /* close(dup(fd)) gives the real filesystem the close(2) it would have seen (POSIX
         * lock release, NFS close-to-open).  Without a descriptor to spare (our table is
         * shared by every file the build holds open) the real close comes at RELEASE: a
         * close(2) never fails with EMFILE natively. */
        int d = dup(h->fd);
        r = d < 0 ? (errno == EMFILE || errno == ENFILE ? 0 : errno) : close(d) < 0 ? errno : 0;
    }
    fuse_reply_err(req, r);
}

void fs_op_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    struct fs *fs = fs_req_fs(req);
    fs_count_op(fs, OP_RELEASE);
    fs_handle_release(fs, (struct fs_handle *)(uintptr_t)fi->fh);
    fuse_reply_err(req, 0);
}

void fs_op_fsync(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi)
{
    struct fs *fs = fs_req_fs(req);
    fs_count_op(fs, OP_FSYNC);
    struct fs_handle *h = (struct fs_handle *)(uintptr_t)fi->fh;
    int r = 0;
    if (h->type == HANDLE_FILE)
        r = (datasync ? fdatasync(h->fd) : fsync(h->fd)) < 0 ? errno : 0;
    else if (h->type == HANDLE_DIR)
        r = fsync(dirfd(h->dir)) < 0 ? errno : 0;
    fuse_reply_err(req, r);
}

void fs_op_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t offset, off_t length,
                     struct fuse_file_info *fi)
{
    struct fs *fs = fs_req_fs(req);
    fs_count_op(fs, OP_FALLOCATE);
    struct fs_handle *h = (struct fs_handle *)(uintptr_t)fi->fh;
    if (h->type == HANDLE_FILE && h->vw)
        vers_write_dirty(h->vw);
    int r = h->type != HANDLE_FILE ? EBADF : (fallocate(h->fd, mode, offset, length) < 0 ? errno : 0);
    if (!r)
        fs_handle_acct_add(fs, h, fs_req_caller(fs, req), true, 0);
    fuse_reply_err(req, r);
}

void fs_op_lseek(fuse_req_t req, fuse_ino_t ino, off_t off, int whence,
                 struct fuse_file_info *fi)
{
    struct fs *fs = fs_req_fs(req);
    fs_count_op(fs, OP_LSEEK);
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

void fs_op_copy_file_range(fuse_req_t req, fuse_ino_t ino_in, off_t off_in,
                           struct fuse_file_info *fi_in, fuse_ino_t ino_out, off_t off_out,
                           struct fuse_file_info *fi_out, size_t len, int flags)
{
    struct fs *fs = fs_req_fs(req);
    fs_count_op(fs, OP_COPY_FILE_RANGE);
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
    int64_t caller = fs_req_caller(fs, req);
    fs_handle_acct_add(fs, hi, caller, false, n);
    fs_handle_acct_add(fs, ho, caller, true, n);
    fuse_reply_write(req, (size_t)n);
}
