/* fs-names — the handlers of names and attributes: lookup, forget, getattr, setattr,
 * readlink, mknod, mkdir, symlink, link, unlink, rmdir, rename, access. */
#include "fs-internal.h"

void fs_op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
    struct fs *fs = fs_req_fs(req);
    fs_count_op(fs, OP_LOOKUP);
    struct fuse_entry_param e;
    int r;
    if (parent == FUSE_ROOT_ID) {
        r = fs_vroot_lookup(fs, name, &e);
    } else {
        struct fs_inode *dir = fs_inode_get(req, parent);
        bool denied = false;
        r = fs_inode_lookup(fs, req, dir, name, &e, &denied);
        /* A failed lookup is what the build looked for and did not find (probe); a name the
         * gate hides (run --only-inputs) is one too, and a denial. */
        if (r < 0 && r != -ENAMETOOLONG)
            fs_record_path(fs, fs_req_caller(fs, req), dir, name, TRACEDB_PROBE, -r, 0);
        if (denied)
            fs_record_denial(fs, fs_req_caller(fs, req), dir, name, TRACEDB_DENIED_LOOKUP);
    }
    FS_DEBUG(fs, "lookup(parent=%" PRIu64 ", name=%s) = %d\n", (uint64_t)parent, name, r);
    if (r < 0) {
        if (r == -ENOENT) {
            /* A negative entry.  Not cached by default: every later probe reaches us too.
             * With cache_lookups the kernel remembers it until the name is made (through this
             * mount: the kernel replaces the entry) or the timeout passes. */
            memset(&e, 0, sizeof e);
            e.entry_timeout = fs->cache_lookups ? fs->timeout : 0;
            fuse_reply_entry(req, &e);
        } else {
            fuse_reply_err(req, -r);
        }
        return;
    }
    fuse_reply_entry(req, &e);
}

static void op_forget_one(struct fs *fs, fuse_ino_t ino, uint64_t n)
{
    if (ino == FUSE_ROOT_ID)
        return;
    pthread_mutex_lock(&fs->lock);
    fs_inode_unref_locked(fs, (struct fs_inode *)(uintptr_t)ino, n, false);
    pthread_mutex_unlock(&fs->lock);
}

void fs_op_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
    struct fs *fs = fs_req_fs(req);
    fs_count_op(fs, OP_FORGET);
    op_forget_one(fs, ino, nlookup);
    fuse_reply_none(req);
}

void fs_op_forget_multi(fuse_req_t req, size_t count, struct fuse_forget_data *forgets)
{
    struct fs *fs = fs_req_fs(req);
    fs_count_op(fs, OP_FORGET);
    for (size_t i = 0; i < count; i++)
        op_forget_one(fs, forgets[i].ino, forgets[i].nlookup);
    fuse_reply_none(req);
}

void fs_op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    struct fs *fs = fs_req_fs(req);
    fs_count_op(fs, OP_GETATTR);
    struct stat st;
    int r;
    if (ino == FUSE_ROOT_ID) {
        memset(&st, 0, sizeof st);
        st.st_ino = FUSE_ROOT_ID;
        st.st_mode = S_IFDIR | 0755;
        st.st_nlink = 2;
        st.st_uid = fs->uid;
        st.st_gid = fs->gid;
        r = 0;
    } else {
        r = fs_inode_getattr(fs, req, fs_inode_get(req, ino), &st);
    }
    FS_DEBUG(fs, "getattr(ino=%" PRIu64 ", fh=%d, mode=%o) = %d\n", (uint64_t)ino, fi != NULL,
             r < 0 ? 0 : st.st_mode, r);
    if (r < 0)
        fuse_reply_err(req, -r);
    else
        fuse_reply_attr(req, &st, fs->timeout);
}

void fs_op_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int valid,
                   struct fuse_file_info *fi)
{
    struct fs *fs = fs_req_fs(req);
    fs_count_op(fs, OP_SETATTR);
    struct fs_inode *in = fs_inode_get(req, ino);
    struct fs_handle *h = fi ? (struct fs_handle *)(uintptr_t)fi->fh : NULL;
    struct fs_loc l;
    int r = 0;

    if (ino == FUSE_ROOT_ID) {
        fuse_reply_err(req, EPERM);
        return;
    }
    if (in->type != NODE_REAL) {
        /* stdout/stderr: O_TRUNC and chmod on a pipe-like file change nothing. */
        struct stat st;
        fs_vroot_stat(fs, in, &st);
        fuse_reply_attr(req, &st, fs->timeout);
        return;
    }
    r = fs_loc_get(fs, in, &l);
    if (r < 0) {
        fuse_reply_err(req, -r);
        return;
    }
    int fd = h && h->type == HANDLE_FILE ? h->fd : -1;
    g_autofree char *path = fs_inode_path(fs, in, NULL);
    int64_t file_id = rec_file_id(fs->rec, path);
    int64_t version_id = 0;

    struct fs_creds c;
    if (valid & FUSE_SET_ATTR_MODE) {
        /* (The kernel never asks to chmod a symlink, so following the name is right.) */
        fs_creds_enter(fs, req, &c);
        do
            r = (fd >= 0 ? fchmod(fd, attr->st_mode) : chmod(l.path, attr->st_mode)) ? -errno : 0;
        while (fs_creds_retry(fs, req, &c, -r));
        fs_creds_leave(fs, &c);
    }
    if (!r && (valid & (FUSE_SET_ATTR_UID | FUSE_SET_ATTR_GID))) {
        uid_t u = (valid & FUSE_SET_ATTR_UID) ? attr->st_uid : (uid_t)-1;
        gid_t g = (valid & FUSE_SET_ATTR_GID) ? attr->st_gid : (gid_t)-1;
        fs_creds_enter(fs, req, &c);
        do
            r = fchownat(l.dirfd, l.name, u, g, fs_loc_flags(&l, AT_SYMLINK_NOFOLLOW)) ? -errno : 0;
        while (fs_creds_retry(fs, req, &c, -r));
        fs_creds_leave(fs, &c);
    }
    if (!r && (valid & FUSE_SET_ATTR_SIZE)) {
        if (fd >= 0) {
            version_id = h->version_id; /* part of the version its handle is writing */
            if (h->vw)
                vers_write_dirty(h->vw);
            fs_creds_enter(fs, req, &c);
            do
                r = ftruncate(fd, attr->st_size) ? -errno : 0;
            while (fs_creds_retry(fs, req, &c, -r));
            fs_creds_leave(fs, &c);
            if (!r)
                r = fs_creds_kill_suidgid(fs, fd, NULL);
        } else {
            /* truncate(2) by name: a whole write-open ... close in one step. */
            struct vers_writer *vw = vers_write_begin(fs->vers, in->dev, in->ino, file_id,
                                                      attr->st_size == 0, &version_id, NULL);
            fs_creds_enter(fs, req, &c);
            do
                r = truncate(l.path, attr->st_size) < 0 ? -errno : 0;
            while (fs_creds_retry(fs, req, &c, -r));
            fs_creds_leave(fs, &c);
            if (!r)
                r = fs_creds_kill_suidgid(fs, -1, l.path);
            if (r < 0) {
                vers_write_abort(fs->vers, vw);
            } else {
                vers_write_end(fs->vers, vw, vers_open_for_hash(l.path));
            }
        }
    }
    if (!r && (valid & (FUSE_SET_ATTR_ATIME | FUSE_SET_ATTR_MTIME))) {
        struct timespec tv[2] = {{0, UTIME_OMIT}, {0, UTIME_OMIT}};
        if (valid & FUSE_SET_ATTR_ATIME_NOW)
            tv[0].tv_nsec = UTIME_NOW;
        else if (valid & FUSE_SET_ATTR_ATIME)
            tv[0] = attr->st_atim;
        if (valid & FUSE_SET_ATTR_MTIME_NOW)
            tv[1].tv_nsec = UTIME_NOW;
        else if (valid & FUSE_SET_ATTR_MTIME)
            tv[1] = attr->st_mtim;
        fs_creds_enter(fs, req, &c);
        do {
            if (fd >= 0)
                r = futimens(fd, tv) ? -errno : 0;
            else if (fs_loc_self(&l))
                r = utimensat(AT_FDCWD, l.path, tv, 0) ? -errno : 0; /* a directory */
            else
                r = utimensat(l.dirfd, l.name, tv, AT_SYMLINK_NOFOLLOW) ? -errno : 0;
        } while (fs_creds_retry(fs, req, &c, -r));
        fs_creds_leave(fs, &c);
    }
    fs_loc_put(fs, &l);

    int64_t caller = fs_req_caller(fs, req);
    if (caller >= 0) {
        int64_t now = rec_now_ns();
        if (valid & FUSE_SET_ATTR_SIZE)
            fs_record_file(fs, caller, file_id, TRACEDB_TRUNCATE, -1, attr->st_size, now, -r,
                           version_id);
        if (valid & ~(FUSE_SET_ATTR_SIZE | FUSE_SET_ATTR_CTIME))
            fs_record_file(fs, caller, file_id, TRACEDB_SETATTR, -1, -1, now, -r, 0);
    }
    FS_DEBUG(fs, "setattr(ino=%" PRIu64 ", valid=%#x) = %d\n", (uint64_t)ino, valid, r);
    if (r < 0) {
        fuse_reply_err(req, -r);
        return;
    }
    struct stat st;
    if (fd >= 0)
        r = fstat(fd, &st) < 0 ? -errno : (fs_present_stat(fs, &st), 0);
    else
        r = fs_inode_getattr(fs, req, in, &st);
    if (r < 0)
        fuse_reply_err(req, -r);
    else
        fuse_reply_attr(req, &st, fs->timeout);
}

void fs_op_readlink(fuse_req_t req, fuse_ino_t ino)
{
    struct fs *fs = fs_req_fs(req);
    fs_count_op(fs, OP_READLINK);
    struct fs_inode *in = fs_inode_get(req, ino);
    if (ino == FUSE_ROOT_ID || in->type != NODE_REAL) {
        fuse_reply_err(req, EINVAL);
        return;
    }
    char buf[PATH_MAX + 1];
    struct fs_loc l;
    int r = fs_loc_get(fs, in, &l);
    ssize_t n = -1;
    if (r == 0) {
        struct fs_creds c;
        fs_creds_enter(fs, req, &c);
        do {
            n = readlinkat(l.dirfd, l.name, buf, sizeof buf);
            r = n < 0 ? -errno : (n == sizeof buf ? -ENAMETOOLONG : 0);
        } while (fs_creds_retry(fs, req, &c, -r));
        fs_creds_leave(fs, &c);
        fs_loc_put(fs, &l);
    }
    fs_record_path(fs, fs_req_caller(fs, req), in, NULL, TRACEDB_READLINK, -r, 0);
    if (r < 0) {
        fuse_reply_err(req, -r);
        return;
    }
    buf[n] = '\0';
    fuse_reply_readlink(req, buf);
}

/* Shared tail of mknod/mkdir/symlink/link: look the new entry up (the build made it: the
 * gate never hides it) and reply. */
static void reply_new_entry(struct fs *fs, fuse_req_t req, struct fs_inode *dir, const char *name,
                            int r)
{
    struct fuse_entry_param e;
    struct stat st;
    if (!r && fs->gate && fstatat(dir->fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
        fs_inode_mark_made(fs, st.st_dev, st.st_ino);
    if (!r)
        r = fs_inode_lookup(fs, req, dir, name, &e, NULL);
    if (r < 0)
        fuse_reply_err(req, -r);
    else
        fuse_reply_entry(req, &e);
}

/* run --only-inputs: mkdir of a directory the gate hides (left by an earlier build) makes it
 * the build's, as if just made: `mkdir -p build` works; what it held stays hidden. */
static bool mkdir_over_gated(struct fs *fs, struct fs_inode *dir, const char *name)
{
    struct stat st;
    if (!fs->gate || fstatat(dir->fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
        !S_ISDIR(st.st_mode) || !fs_inode_gated(fs, dir, name, st.st_dev, st.st_ino, true))
        return false;
    fs_inode_mark_adopted(fs, st.st_dev, st.st_ino);
    return true;
}

/* run --only-inputs: may `name` in `dir` move (0), or is it a directory that existed before
 * the build in a restricted tree (-EXDEV)?  The gate judges by path: moved, what it holds that
 * is hidden would be judged at the new path (into a declared DIR/: shown).  EXDEV makes mv
 * copy what the build sees of it instead. */
static int rename_keeps_gate(struct fs *fs, struct fs_inode *dir, const char *name)
{
    struct stat st;
    if (!fs->gate || fstatat(dir->fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
        !S_ISDIR(st.st_mode) || fs_inode_made_new(fs, st.st_dev, st.st_ino))
        return 0;
    g_autofree char *path = fs_inode_path(fs, dir, name);
    return gate_restricts(fs->gate, path) ? -EXDEV : 0;
}

static void make_node(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
                      dev_t rdev, const char *link_target, enum fs_op op, int kind)
{
    struct fs *fs = fs_req_fs(req);
    fs_count_op(fs, op);
    int r;
    if (parent == FUSE_ROOT_ID) {
        fuse_reply_err(req, EPERM);
        return;
    }
    struct fs_inode *dir = fs_inode_get(req, parent);
    if (fs_inode_hidden(fs, dir, name)) {
        r = -EACCES;
    } else {
        struct fs_creds c;
        fs_creds_enter(fs, req, &c);
        mode_t m = link_target ? mode : fs_umask_enter(fs, req, mode);
        do {
            if (link_target)
                r = symlinkat(link_target, dir->fd, name);
            else if (S_ISDIR(mode))
                r = mkdirat(dir->fd, name, m & 07777);
            else
                r = mknodat(dir->fd, name, m, rdev);
            r = r < 0 ? -errno : 0;
        } while (fs_creds_retry(fs, req, &c, -r));
        if (!link_target)
            fs_umask_leave(fs);
        fs_creds_leave(fs, &c);
        if (r == -EEXIST && S_ISDIR(mode) && !link_target && mkdir_over_gated(fs, dir, name))
            r = 0;
    }
    fs_record_path(fs, fs_req_caller(fs, req), dir, name, kind, -r, 0);
    FS_DEBUG(fs, "%s(parent=%" PRIu64 ", name=%s) = %d\n", fs_op_names[op], (uint64_t)parent,
             name, r);
    reply_new_entry(fs, req, dir, name, r);
}

void fs_op_mknod(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode, dev_t rdev)
{
    make_node(req, parent, name, mode, rdev, NULL, OP_MKNOD, TRACEDB_CREATE);
}

void fs_op_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode)
{
    make_node(req, parent, name, S_IFDIR | mode, 0, NULL, OP_MKDIR, TRACEDB_MKDIR);
}

void fs_op_symlink(fuse_req_t req, const char *link, fuse_ino_t parent, const char *name)
{
    make_node(req, parent, name, S_IFLNK, 0, link, OP_SYMLINK, TRACEDB_SYMLINK);
}

void fs_op_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t parent, const char *name)
{
    struct fs *fs = fs_req_fs(req);
    fs_count_op(fs, OP_LINK);
    if (parent == FUSE_ROOT_ID || ino == FUSE_ROOT_ID) {
        fuse_reply_err(req, EPERM);
        return;
    }
    struct fs_inode *in = fs_inode_get(req, ino), *dir = fs_inode_get(req, parent);
    struct fs_loc l;
    int r;
    if (in->type != NODE_REAL || fs_inode_hidden(fs, dir, name)) {
        r = -EACCES;
    } else if ((r = fs_loc_get(fs, in, &l)) == 0) {
        struct fs_creds c;
        fs_creds_enter(fs, req, &c);
        do {
            if (fs_loc_self(&l))
                r = linkat(AT_FDCWD, l.path, dir->fd, name, AT_SYMLINK_FOLLOW) < 0 ? -errno : 0;
            else
                r = linkat(l.dirfd, l.name, dir->fd, name, 0) < 0 ? -errno : 0;
        } while (fs_creds_retry(fs, req, &c, -r));
        fs_creds_leave(fs, &c);
        fs_loc_put(fs, &l);
    }
    fs_record_path(fs, fs_req_caller(fs, req), dir, name, TRACEDB_LINK, -r,
                   in->type == NODE_REAL ? vers_current(fs->vers, in->dev, in->ino) : 0);
    reply_new_entry(fs, req, dir, name, r);
}

static void remove_entry(fuse_req_t req, fuse_ino_t parent, const char *name, bool is_dir)
{
    struct fs *fs = fs_req_fs(req);
    fs_count_op(fs, is_dir ? OP_RMDIR : OP_UNLINK);
    if (parent == FUSE_ROOT_ID) {
        fuse_reply_err(req, EPERM);
        return;
    }
    struct fs_inode *dir = fs_inode_get(req, parent);
    int r;
    int64_t version_id = 0;
    if (fs_inode_hidden(fs, dir, name)) {
        r = -ENOENT;
    } else {
        if (!is_dir) {
            version_id = fs_version_at(fs, dir, name); /* the content that goes */
            fs_inode_pin_before_name_goes(fs, dir, name);
        }
        struct fs_creds c;
        fs_creds_enter(fs, req, &c);
        do
            r = unlinkat(dir->fd, name, is_dir ? AT_REMOVEDIR : 0) < 0 ? -errno : 0;
        while (fs_creds_retry(fs, req, &c, -r));
        fs_creds_leave(fs, &c);
    }
    fs_record_path(fs, fs_req_caller(fs, req), dir, name, is_dir ? TRACEDB_RMDIR : TRACEDB_UNLINK,
                   -r, version_id);
    FS_DEBUG(fs, "%s(parent=%" PRIu64 ", name=%s) = %d\n", is_dir ? "rmdir" : "unlink",
             (uint64_t)parent, name, r);
    fuse_reply_err(req, -r);
}

void fs_op_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
    remove_entry(req, parent, name, false);
}

void fs_op_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
    remove_entry(req, parent, name, true);
}

void fs_op_rename(fuse_req_t req, fuse_ino_t parent, const char *name, fuse_ino_t newparent,
                  const char *newname, unsigned int flags)
{
    struct fs *fs = fs_req_fs(req);
    fs_count_op(fs, OP_RENAME);
    if (parent == FUSE_ROOT_ID || newparent == FUSE_ROOT_ID) {
        fuse_reply_err(req, EPERM);
        return;
    }
    struct fs_inode *dir = fs_inode_get(req, parent), *newdir = fs_inode_get(req, newparent);
    int r;
    int64_t version_id = 0; /* the content that moves: a version belongs to its inode */
    if (fs_inode_hidden(fs, dir, name) || fs_inode_hidden(fs, newdir, newname)) {
        r = -EACCES;
    } else if ((r = rename_keeps_gate(fs, dir, name)) < 0 ||
               ((flags & RENAME_EXCHANGE) && (r = rename_keeps_gate(fs, newdir, newname)) < 0)) {
        /* (recorded below as the rename refused) */
    } else {
        version_id = fs_version_at(fs, dir, name);
        if (!(flags & (RENAME_NOREPLACE | RENAME_EXCHANGE)))
            fs_inode_pin_before_name_goes(fs, newdir, newname);
        struct fs_creds c;
        fs_creds_enter(fs, req, &c);
        do
            r = renameat2(dir->fd, name, newdir->fd, newname, flags) < 0 ? -errno : 0;
        while (fs_creds_retry(fs, req, &c, -r));
        fs_creds_leave(fs, &c);
    }

    int64_t caller = fs_req_caller(fs, req);
    fs_record_path(fs, caller, dir, name, TRACEDB_RENAME_FROM, -r, version_id);
    fs_record_path(fs, caller, newdir, newname, TRACEDB_RENAME_TO, -r, version_id);

    if (!r) {
        /* Keep the moved inode's path current (and the other one's, for an exchange). */
        struct stat st;
        for (int i = 0; i < ((flags & RENAME_EXCHANGE) ? 2 : 1); i++) {
            struct fs_inode *d = i ? dir : newdir;
            const char *n = i ? name : newname;
            if (fstatat(d->fd, n, &st, AT_SYMLINK_NOFOLLOW) < 0)
                continue;
            fs_inode_mark_made(fs, st.st_dev, st.st_ino); /* the build put it there */
            struct ino_key k = {st.st_dev, st.st_ino};
            pthread_mutex_lock(&fs->lock);
            struct fs_inode *moved = g_hash_table_lookup(fs->inodes, &k);
            if (moved)
                fs_inode_set_name_locked(moved, d, n);
            pthread_mutex_unlock(&fs->lock);
        }
    }
    FS_DEBUG(fs, "rename(%s -> %s, flags=%#x) = %d\n", name, newname, flags, r);
    fuse_reply_err(req, -r);
}

/* access(2), chdir and the like (sent only without kernel checks, fs.h): the real filesystem
 * judges, as for the caller. */
void fs_op_access(fuse_req_t req, fuse_ino_t ino, int mask)
{
    struct fs *fs = fs_req_fs(req);
    fs_count_op(fs, OP_ACCESS);
    struct fs_inode *in = fs_inode_get(req, ino);
    int r = 0;
    struct fs_loc l;
    if (ino != FUSE_ROOT_ID && in->type == NODE_REAL && (r = -fs_loc_get(fs, in, &l)) == 0) {
        struct fs_creds c;
        fs_creds_enter(fs, req, &c);
        int flags = fs_loc_flags(&l, AT_EACCESS | AT_SYMLINK_NOFOLLOW);
        do
            r = faccessat(l.dirfd, l.name, mask, flags) < 0 ? errno : 0;
        while (fs_creds_retry(fs, req, &c, r));
        fs_creds_leave(fs, &c);
        fs_loc_put(fs, &l);
    }
    fuse_reply_err(req, r);
}
