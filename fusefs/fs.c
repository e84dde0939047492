/* fs — see fs.h for the contract: the operations table, INIT, the session's I/O, and the
 * filesystem's life (fs_new, fs_free). */
#include "fs-internal.h"

static void op_init(void *userdata, struct fuse_conn_info *conn)
{
    struct fs *fs = userdata;
    /* Symlink targets are read once per inode and kept in the page cache (a symlink never
     * changes: a new target is a new inode); only with cache_lookups, since each READLINK
     * request is a row naming the process that followed the link. */
    if (fs->cache_lookups && (conn->capable & FUSE_CAP_CACHE_SYMLINKS))
        conn->want |= FUSE_CAP_CACHE_SYMLINKS;
    else
        conn->want &= ~FUSE_CAP_CACHE_SYMLINKS;
    /* No writeback cache: it would hide which process wrote.  No readdirplus: every entry the
     * build uses is then looked up by name (simple nlookup accounting). */
    conn->want &= ~(FUSE_CAP_WRITEBACK_CACHE | FUSE_CAP_READDIRPLUS | FUSE_CAP_READDIRPLUS_AUTO);
    if (conn->capable & FUSE_CAP_SPLICE_WRITE)
        conn->want |= FUSE_CAP_SPLICE_WRITE;
    if (conn->capable & FUSE_CAP_SPLICE_MOVE)
        conn->want |= FUSE_CAP_SPLICE_MOVE;
    /* Locks are then kept by the kernel, shared by every process of the mount. */
    conn->want &= ~(FUSE_CAP_POSIX_LOCKS | FUSE_CAP_FLOCK_LOCKS);
    /* The mode of a create comes unmasked with the caller's umask beside it, so that a
     * directory's default ACL replaces the umask as natively (fs_umask_enter). */
    if (conn->capable & FUSE_CAP_DONT_MASK) {
        conn->want |= FUSE_CAP_DONT_MASK;
        fs->dont_mask = true;
    } else {
        conn->want &= ~FUSE_CAP_DONT_MASK;
    }
    /* Every change to a traced file goes through this mount, and the kernel keeps its page cache
     * coherent with its own writes, truncates, copies and hole punches.  Dropping a file's pages
     * whenever a getattr shows a new mtime (what auto_inval_data does) would drop every file
     * the build just wrote (the kernel does not track mtime itself here), and the next reader
     * would read it all through the daemon again.  A size change still drops the pages. */
    conn->want &= ~FUSE_CAP_AUTO_INVAL_DATA;
    /* The kernel checks permissions too, with the caller's live credentials and the files'
     * POSIX ACLs: FUSE_POSIX_ACL turns on default_permissions.  Without it nothing checks a
     * FIFO's, device's or socket's mode on open (FUSE sends no OPEN for them), nor search
     * permission on a directory of a path whose entries the kernel has cached (fs.h). */
    if (fs->want_kernel_checks && (conn->capable & FUSE_CAP_POSIX_ACL)) {
        conn->want |= FUSE_CAP_POSIX_ACL;
        __atomic_store_n(&fs->kernel_checks, true, __ATOMIC_RELEASE);
    } else {
        conn->want &= ~FUSE_CAP_POSIX_ACL;
    }
}

static const struct fuse_lowlevel_ops fs_ops = {
    .init = op_init,
    .lookup = fs_op_lookup,
    .forget = fs_op_forget,
    .forget_multi = fs_op_forget_multi,
    .getattr = fs_op_getattr,
    .setattr = fs_op_setattr,
    .readlink = fs_op_readlink,
    .mknod = fs_op_mknod,
    .mkdir = fs_op_mkdir,
    .unlink = fs_op_unlink,
    .rmdir = fs_op_rmdir,
    .symlink = fs_op_symlink,
    .rename = fs_op_rename,
    .link = fs_op_link,
    .open = fs_op_open,
    .create = fs_op_create,
    .read = fs_op_read,
    .write_buf = fs_op_write_buf,
    .flush = fs_op_flush,
    .release = fs_op_release,
    .fsync = fs_op_fsync,
    .opendir = fs_op_opendir,
    .readdir = fs_op_readdir,
    .releasedir = fs_op_releasedir,
    .fsyncdir = fs_op_fsyncdir,
    .statfs = fs_op_statfs,
    .setxattr = fs_op_setxattr,
    .getxattr = fs_op_getxattr,
    .listxattr = fs_op_listxattr,
    .removexattr = fs_op_removexattr,
    .fallocate = fs_op_fallocate,
    .lseek = fs_op_lseek,
    .copy_file_range = fs_op_copy_file_range,
    .access = fs_op_access,
};

const struct fuse_lowlevel_ops *fs_operations(void)
{
    return &fs_ops;
}

static ssize_t io_read(int fd, void *buf, size_t len, void *userdata)
{
    struct fs *fs = userdata;
    ssize_t n = read(fd, buf, len);
    if (n > 0)
        wire_note_request(&fs->wire, buf, (size_t)n);
    return n;
}

static ssize_t io_writev(int fd, struct iovec *iov, int count, void *userdata)
{
    struct fs *fs = userdata;
    char scratch[WIRE_SCRATCH];
    wire_amend_reply(&fs->wire, iov, count, scratch);
    return writev(fd, iov, count);
}

int fs_session_attach(struct fs *fs, struct fuse_session *se, int fuse_fd)
{
    static const struct fuse_custom_io io = {.read = io_read, .writev = io_writev};
    return fuse_session_custom_io(se, &io, fuse_fd);
}

bool fs_killpriv_v2(struct fs *fs)
{
    return wire_killpriv_v2(&fs->wire);
}

struct fs *fs_new(const struct fs_config *cfg)
{
    struct fs *fs = g_new0(struct fs, 1);
    pthread_mutex_init(&fs->lock, NULL);
    pthread_mutex_init(&fs->output_lock, NULL);
    pthread_mutex_init(&fs->devs_lock, NULL);
    pthread_mutex_init(&fs->made_lock, NULL);
    fs->made = g_hash_table_new_full(ino_key_hash, ino_key_equal, g_free, NULL);
    pthread_mutex_init(&fs->caller_creds_lock, NULL);
    fs->caller_creds = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
    int ng = getgroups(0, NULL);
    fs->own_groups = g_new0(gid_t, MAX(ng, 1));
    fs->n_own_groups = ng > 0 ? getgroups(ng, fs->own_groups) : 0;
    if (fs->n_own_groups < 0)
        fs->n_own_groups = 0;
    struct __user_cap_header_struct caph = {_LINUX_CAPABILITY_VERSION_3, 0};
    if (syscall(SYS_capget, &caph, fs->own_caps) == 0)
        fs->own_cap_eff = fs->own_caps[0].effective | (uint64_t)fs->own_caps[1].effective << 32;
    fs->own_userns_known = stat("/proc/self/ns/user", &fs->own_userns) == 0;
    fs->inodes = g_hash_table_new_full(ino_key_hash, ino_key_equal, g_free, NULL);
    fs->out_fd = cfg->out_fd;
    fs->err_fd = cfg->err_fd;
    fs->rec = cfg->rec;
    fs->procs = cfg->procs;
    fs->vers = cfg->vers;
    for (int i = 0; i < FS_MAX_HIDDEN; i++) {
        fs->hide[i] = cfg->hide[i];
        fs->hide[i].name = g_strdup(cfg->hide[i].name);
    }
    fs->timeout = cfg->timeout;
    fs->debug = cfg->debug;
    fs->uid = geteuid();
    fs->gid = getegid();
    fs->is_root = fs->uid == 0;
    fs->present_ids_as_own = cfg->present_ids_as_own;
    fs->want_kernel_checks = cfg->kernel_checks;
    fs->wire.want_killpriv_v2 = !cfg->no_killpriv_v2;
    fs->cache_lookups = cfg->cache_lookups;
    fs->reverse_listings = cfg->reverse_listings;
    fs->gate = cfg->gate;
    fs->pkggate = cfg->pkggate;
    if (!fs->gate && fs->pkggate) {
        /* A gate that restricts no tree: what keeps the build's own files visible is the
         * gate's machinery (fs_inode_mark_made, fs_inode_gated). */
        fs->own_gate = gate_new();
        gate_seal(fs->own_gate);
        fs->gate = fs->own_gate;
    }
    fs->out_node.type = NODE_STDOUT;
    fs->out_node.ino = FS_VIRTUAL_INO(2);
    fs->err_node.type = NODE_STDERR;
    fs->err_node.ino = FS_VIRTUAL_INO(3);
    fs->n_trees = cfg->n_trees;
    fs->tree_roots = g_new0(struct fs_inode *, cfg->n_trees);
    for (int i = 0; i < cfg->n_trees; i++) {
        struct fs_inode *in = g_new0(struct fs_inode, 1);
        struct stat st = {0};
        fstatat(cfg->trees[i].fd, "", &st, AT_EMPTY_PATH);
        in->type = NODE_REAL;
        in->fd = cfg->trees[i].fd;
        in->dev = st.st_dev;
        in->ino = st.st_ino;
        in->tree_root = true;
        in->name = g_strdup(cfg->trees[i].path);
        (void)fs_present_ino(fs, st.st_dev, st.st_ino); /* the first tree's device is index 0 */
        fs->tree_roots[i] = in;
        /* Tree roots are not in the inode table: a lookup inside another tree that reaches
         * the same directory gets an ordinary inode with its own path. */
    }
    return fs;
}

void fs_set_present_ids_as_own(struct fs *fs, bool on)
{
    if (fs)
        fs->present_ids_as_own = on;
}

char *fs_stats_summary(struct fs *fs)
{
    GString *s = g_string_new(NULL);
    for (int i = 0; i < OP_COUNT; i++) {
        uint64_t n = __atomic_load_n(&fs->op_count[i], __ATOMIC_RELAXED);
        if (n)
            g_string_append_printf(s, "%s%s=%" PRIu64, s->len ? " " : "", fs_op_names[i], n);
    }
    return g_string_free(s, FALSE);
}

void fs_free(struct fs *fs)
{
    if (!fs)
        return;
    GList *vals = g_hash_table_get_values(fs->inodes);
    g_hash_table_destroy(fs->inodes); /* frees the keys */
    g_list_free_full(vals, fs_inode_free);
    for (int i = 0; i < fs->n_trees; i++)
        fs_inode_free(fs->tree_roots[i]);
    g_free(fs->tree_roots);
    for (int i = 0; i < FS_MAX_HIDDEN; i++)
        g_free((char *)fs->hide[i].name);
    pthread_mutex_destroy(&fs->lock);
    pthread_mutex_destroy(&fs->output_lock);
    pthread_mutex_destroy(&fs->devs_lock);
    pthread_mutex_destroy(&fs->made_lock);
    g_hash_table_destroy(fs->made);
    gate_free(fs->own_gate);
    pthread_mutex_destroy(&fs->caller_creds_lock);
    g_hash_table_destroy(fs->caller_creds);
    g_free(fs->own_groups);
    g_free(fs);
}
