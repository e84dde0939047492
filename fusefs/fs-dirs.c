/* fs-dirs — the handlers of directories, statfs and extended attributes. */
#include "fs-internal.h"

void fs_op_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    struct fs *fs = fs_req_fs(req);
    fs_count_op(fs, OP_OPENDIR);
    int64_t caller = fs_req_caller(fs, req);
    if (ino == FUSE_ROOT_ID) {
        struct fs_handle *h = fs_handle_new(fs, HANDLE_DIR, -1, 0, 0, -1);
        fi->fh = (uint64_t)(uintptr_t)h;
        fuse_reply_open(req, fi);
        return;
    }
    struct fs_inode *in = fs_inode_get(req, ino);
    struct fs_creds c;
    fs_creds_enter(fs, req, &c);
    int fd;
    do
        fd = openat(in->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    while (fd < 0 && fs_creds_retry(fs, req, &c, errno));
    fs_creds_leave(fs, &c);
    DIR *dir = fd < 0 ? NULL : fdopendir(fd);
    int r = dir ? 0 : -errno;
    if (!dir && fd >= 0)
        close(fd);
    fs_record_path(fs, caller, in, NULL, TRACEDB_READDIR, -r, 0);
    if (r < 0) {
        fuse_reply_err(req, -r);
        return;
    }
    struct fs_handle *h = fs_handle_new(fs, HANDLE_DIR, -1, 0, 0, -1);
    h->dir = dir;
    fi->fh = (uint64_t)(uintptr_t)h;
    if (fuse_reply_open(req, fi) == -ENOENT)
        fs_handle_release(fs, h);
}

/* run --only-inputs: does the gate hide this entry?  (A mount point shows the covered
 * directory's inode here: judged as a directory by its name, as lookup would.) */
static bool dirent_gated(struct fs *fs, fuse_req_t req, struct fs_inode *in,
                         const struct dirent *d)
{
    if (!fs->gate || !strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
        return false;
    bool is_dir = d->d_type == DT_DIR || d->d_type == DT_UNKNOWN;
    if (!fs_inode_gated(fs, in, d->d_name, in->dev, d->d_ino, is_dir))
        return false;
    fs_record_denial(fs, fs_req_caller(fs, req), in, d->d_name, TRACEDB_DENIED_LISTING);
    return true;
}

/* One entry of a reversed listing (fs_handle.dir_snap). */
struct fs_dirsnap_entry {
    ino_t ino;
    unsigned char type;
    char name[];
};

static bool is_dot_or_dotdot(const char *n)
{
    return n[0] == '.' && (!n[1] || (n[1] == '.' && !n[2]));
}

/* The whole listing of `h`, read again from its start: "." and ".." first, then the other
 * entries in the reverse of the real filesystem's order.  0 or an errno. */
static int snap_listing(struct fs_handle *h)
{
    if (h->dir_snap)
        g_ptr_array_set_size(h->dir_snap, 0);
    else
        h->dir_snap = g_ptr_array_new_with_free_func(g_free);
    GPtrArray *rest = g_ptr_array_new();
    rewinddir(h->dir);
    int err = 0;
    for (;;) {
        errno = 0;
        struct dirent *d = readdir(h->dir);
        if (!d) {
            err = errno;
            break;
        }
        size_t len = strlen(d->d_name);
        struct fs_dirsnap_entry *e = g_malloc(sizeof *e + len + 1);
        e->ino = d->d_ino;
        e->type = d->d_type;
        memcpy(e->name, d->d_name, len + 1);
        g_ptr_array_add(is_dot_or_dotdot(e->name) ? h->dir_snap : rest, e);
    }
    for (guint i = rest->len; i-- > 0;)
        g_ptr_array_add(h->dir_snap, rest->pdata[i]);
    g_ptr_array_free(rest, TRUE); /* (no free function: the entries are dir_snap's now) */
    h->dir_entry = NULL;
    return err;
}

/* READDIR with reversed listings (fs_config.reverse_listings): from the listing read at offset
 * 0, entry `off` on. */
static void readdir_reversed(struct fs *fs, fuse_req_t req, struct fs_handle *h,
                             struct fs_inode *in, size_t size, off_t off)
{
    int err = off == 0 || !h->dir_snap ? snap_listing(h) : 0;
    char *buf = fs_thread_buffer(size);
    size_t used = 0;
    for (guint i = (guint)MAX(off, 0); i < h->dir_snap->len; i++) {
        const struct fs_dirsnap_entry *e = h->dir_snap->pdata[i];
        struct dirent d = {.d_ino = e->ino, .d_type = e->type};
        g_strlcpy(d.d_name, e->name, sizeof d.d_name);
        if (fs_inode_hidden(fs, in, e->name) || dirent_gated(fs, req, in, &d))
            continue;
        struct stat st = {.st_ino = fs_present_ino(fs, in->dev, e->ino),
                          .st_mode = (mode_t)e->type << 12};
        size_t need = fuse_add_direntry(req, buf + used, size - used, e->name, &st, i + 1);
        if (need > size - used)
            break;
        used += need;
    }
    if (err && used == 0)
        fuse_reply_err(req, err);
    else
        fuse_reply_buf(req, buf, used);
}

void fs_op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
                   struct fuse_file_info *fi)
{
    struct fs *fs = fs_req_fs(req);
    fs_count_op(fs, OP_READDIR);
    if (ino == FUSE_ROOT_ID) {
        fs_vroot_readdir(fs, req, size, off);
        return;
    }
    struct fs_handle *h = (struct fs_handle *)(uintptr_t)fi->fh;
    struct fs_inode *in = fs_inode_get(req, ino);
    if (fs->reverse_listings) {
        readdir_reversed(fs, req, h, in, size, off);
        return;
    }
    char *buf = fs_thread_buffer(size);
    size_t used = 0;
    int err = 0;
    if (off != h->dir_offset) {
        seekdir(h->dir, off);
        h->dir_entry = NULL;
        h->dir_offset = off;
    }
    for (;;) {
        if (!h->dir_entry) {
            errno = 0;
            h->dir_entry = readdir(h->dir);
            if (!h->dir_entry) {
                err = errno;
                break;
            }
        }
        struct dirent *d = h->dir_entry;
        if (!fs_inode_hidden(fs, in, d->d_name) && !dirent_gated(fs, req, in, d)) {
            struct stat st = {.st_ino = fs_present_ino(fs, in->dev, d->d_ino),
                              .st_mode = (mode_t)d->d_type << 12};
            size_t need = fuse_add_direntry(req, buf + used, size - used, d->d_name, &st,
                                            d->d_off);
            if (need > size - used)
                break;
            used += need;
        }
        h->dir_offset = d->d_off;
        h->dir_entry = NULL;
    }
    if (err && used == 0)
        fuse_reply_err(req, err);
    else
        fuse_reply_buf(req, buf, used);
}

void fs_op_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    struct fs *fs = fs_req_fs(req);
    fs_count_op(fs, OP_RELEASEDIR);
    fs_handle_release(fs, (struct fs_handle *)(uintptr_t)fi->fh);
    fuse_reply_err(req, 0);
}

void fs_op_fsyncdir(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi)
{
    fs_op_fsync(req, ino, datasync, fi);
}

void fs_op_statfs(fuse_req_t req, fuse_ino_t ino)
{
    struct fs *fs = fs_req_fs(req);
    fs_count_op(fs, OP_STATFS);
    struct statvfs sv;
    struct fs_loc l = {.held = NULL};
    int fd = fs->tree_roots[0]->fd;
    if (ino != FUSE_ROOT_ID && fs_inode_get(req, ino)->type == NODE_REAL &&
        fs_loc_get(fs, fs_inode_get(req, ino), &l) == 0)
        fd = l.dirfd; /* the object itself, or its directory: the same filesystem */
    int r = fstatvfs(fd, &sv) < 0 ? errno : 0;
    fs_loc_put(fs, &l);
    if (r)
        fuse_reply_err(req, r);
    else
        fuse_reply_statfs(req, &sv);
}

static void xattr_reply_size_or_data(fuse_req_t req, ssize_t n, size_t size, const char *buf)
{
    if (n < 0)
        fuse_reply_err(req, errno);
    else if (size == 0)
        fuse_reply_xattr(req, (size_t)n);
    else
        fuse_reply_buf(req, buf, (size_t)n);
}

/* The path for xattr calls on `ino`; l-variants are right for both forms (the final component
 * is either the object's own /proc/self/fd link, followed by the kernel regardless, or its
 * name, which must not be followed). */
static int xattr_target(struct fs *fs, fuse_req_t req, fuse_ino_t ino, struct fs_loc *l)
{
    struct fs_inode *in = fs_inode_get(req, ino);
    if (ino == FUSE_ROOT_ID || in->type != NODE_REAL)
        return -ENOTSUP;
    return fs_loc_get(fs, in, l);
}

/* Does the build's user namespace hold this inside id (fs_set_inside_ids)? */
static bool inside_id_mapped(void *ctx, bool is_group, uint32_t id)
{
    return fs_inside_id_held(ctx, is_group, id);
}

/* The kernel parses this attribute as ids of the build's user namespace (aclx.h). */
static bool acl_ids_inside(struct fs *fs, const char *name)
{
    return !fs->is_root && fs->inside_ids_known && fs_kernel_checks(fs) && aclx_is_acl_name(name);
}

void fs_op_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name, size_t size)
{
    struct fs *fs = fs_req_fs(req);
    fs_count_op(fs, OP_GETXATTR);
    struct fs_loc l;
    int r = xattr_target(fs, req, ino, &l);
    if (r < 0) {
        fuse_reply_err(req, r == -ENOTSUP ? ENODATA : -r);
        return;
    }
    char *buf = size ? fs_thread_buffer(size) : NULL;
    struct fs_creds c;
    fs_creds_enter(fs, req, &c);
    ssize_t n;
    do
        n = fs_loc_self(&l) ? getxattr(l.path, name, buf, size)
                            : lgetxattr(l.path, name, buf, size);
    while (n < 0 && fs_creds_retry(fs, req, &c, errno));
    int e = errno;
    fs_creds_leave(fs, &c);
    fs_loc_put(fs, &l);
    if (n > 0 && size > 0 && acl_ids_inside(fs, name))
        n = (ssize_t)aclx_drop_unmapped(buf, (size_t)n, inside_id_mapped, fs);
    FS_DEBUG(fs, "getxattr(ino=%" PRIu64 ", name=%s, size=%zu) = %zd\n", (uint64_t)ino, name,
             size, n < 0 ? -(ssize_t)e : n);
    errno = e;
    xattr_reply_size_or_data(req, n, size, buf);
}

void fs_op_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size)
{
    struct fs *fs = fs_req_fs(req);
    fs_count_op(fs, OP_LISTXATTR);
    struct fs_loc l;
    int r = xattr_target(fs, req, ino, &l);
    if (r < 0) {
        if (r != -ENOTSUP)
            fuse_reply_err(req, -r);
        else if (size)
            fuse_reply_buf(req, NULL, 0);
        else
            fuse_reply_xattr(req, 0);
        return;
    }
    struct fs_creds c;
    fs_creds_enter(fs, req, &c);
    char *buf = size ? fs_thread_buffer(size) : NULL;
    ssize_t n;
    do
        n = fs_loc_self(&l) ? listxattr(l.path, buf, size) : llistxattr(l.path, buf, size);
    while (n < 0 && fs_creds_retry(fs, req, &c, errno));
    int e = errno;
    fs_creds_leave(fs, &c);
    fs_loc_put(fs, &l);
    errno = e;
    xattr_reply_size_or_data(req, n, size, buf);
}

void fs_op_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name, const char *value,
                    size_t size, int flags)
{
    struct fs *fs = fs_req_fs(req);
    fs_count_op(fs, OP_SETXATTR);
    struct fs_loc l;
    int r = xattr_target(fs, req, ino, &l);
    if (r < 0) {
        fuse_reply_err(req, r == -ENOTSUP ? EPERM : -r);
        return;
    }
    struct fs_creds c;
    fs_creds_enter(fs, req, &c);
    if (acl_ids_inside(fs, name)) {
        /* The build never saw the entries naming ids outside its namespace: setting an ACL
         * would drop them from the real file.  Refuse instead, as for a file not one's own. */
        char *old = fs_thread_buffer(XATTR_SIZE_MAX);
        ssize_t n = fs_loc_self(&l) ? getxattr(l.path, name, old, XATTR_SIZE_MAX)
                                 : lgetxattr(l.path, name, old, XATTR_SIZE_MAX);
        if (n > 0 && aclx_count_unmapped(old, (size_t)n, inside_id_mapped, fs) > 0) {
            fs_creds_leave(fs, &c);
            fs_loc_put(fs, &l);
            fs_record_path(fs, fs_req_caller(fs, req), fs_inode_get(req, ino), NULL,
                           TRACEDB_SETATTR, EPERM, 0);
            fuse_reply_err(req, EPERM);
            return;
        }
    }
    do
        r = (fs_loc_self(&l) ? setxattr(l.path, name, value, size, flags)
                          : lsetxattr(l.path, name, value, size, flags)) < 0 ? errno : 0;
    while (fs_creds_retry(fs, req, &c, r));
    fs_creds_leave(fs, &c);
    fs_loc_put(fs, &l);
    fs_record_path(fs, fs_req_caller(fs, req), fs_inode_get(req, ino), NULL, TRACEDB_SETATTR, r, 0);
    fuse_reply_err(req, r);
}

void fs_op_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name)
{
    struct fs *fs = fs_req_fs(req);
    fs_count_op(fs, OP_REMOVEXATTR);
    struct fs_loc l;
    int r = xattr_target(fs, req, ino, &l);
    if (r < 0) {
        fuse_reply_err(req, r == -ENOTSUP ? EPERM : -r);
        return;
    }
    struct fs_creds c;
    fs_creds_enter(fs, req, &c);
    do
        r = (fs_loc_self(&l) ? removexattr(l.path, name) : lremovexattr(l.path, name)) < 0
                ? errno
                : 0;
    while (fs_creds_retry(fs, req, &c, r));
    fs_creds_leave(fs, &c);
    fs_loc_put(fs, &l);
    fs_record_path(fs, fs_req_caller(fs, req), fs_inode_get(req, ino), NULL, TRACEDB_SETATTR, r, 0);
    fuse_reply_err(req, r);
}
