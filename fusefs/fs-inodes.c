/* fs-inodes — the inode table, paths and locations of real objects, and the attributes and
 * entries the build sees (see fs-inodes.h). */
#include "fs-internal.h"

/* Drop one reference of kind `lookups` (nlookup) or a child ref; free when both reach zero.
 * Called with fs.lock held. */
void fs_inode_unref_locked(struct fs *fs, struct fs_inode *in, uint64_t lookups, bool child)
{
    while (in) {
        if (child) {
            in->child_refs--;
        } else {
            in->nlookup = lookups > in->nlookup ? 0 : in->nlookup - lookups;
        }
        if (in->nlookup || in->child_refs || in->tree_root || in->type != NODE_REAL)
            return;
        struct ino_key k = {in->dev, in->ino};
        g_hash_table_remove(fs->inodes, &k);
        struct fs_inode *parent = in->parent;
        if (in->fd >= 0)
            close(in->fd);
        g_free(in->name);
        g_free(in);
        in = parent;
        child = true;
    }
}

/* Set where an inode was last seen.  Called with fs.lock held. */
void fs_inode_set_name_locked(struct fs_inode *in, struct fs_inode *parent, const char *name)
{
    if (in->tree_root || in == parent)
        return;
    if (in->parent == parent && in->name && strcmp(in->name, name) == 0)
        return;
    if (parent)
        parent->child_refs++;
    struct fs_inode *old_parent = in->parent;
    in->parent = parent;
    g_free(in->name);
    in->name = g_strdup(name);
    if (old_parent)
        old_parent->child_refs--; /* never drops it to zero here: it is still looked up */
}

/* The path the build sees for `in`, plus "/name" when name is given.  g_free() it. */
char *fs_inode_path(struct fs *fs, struct fs_inode *in, const char *name)
{
    const char *parts[PATH_MAX / 2];
    int n = 0;
    pthread_mutex_lock(&fs->lock);
    for (struct fs_inode *p = in; p && n < (int)G_N_ELEMENTS(parts); p = p->parent)
        parts[n++] = p->name ? p->name : "?";
    GString *s = g_string_sized_new(128);
    for (int i = n - 1; i >= 0; i--) {
        if (i != n - 1 && !(s->len && s->str[s->len - 1] == '/'))
            g_string_append_c(s, '/');
        g_string_append(s, parts[i]);
    }
    pthread_mutex_unlock(&fs->lock);
    if (name) {
        if (!(s->len && s->str[s->len - 1] == '/'))
            g_string_append_c(s, '/');
        g_string_append(s, name);
    }
    return g_string_free(s, FALSE);
}

int fs_loc_get(struct fs *fs, struct fs_inode *in, struct fs_loc *l)
{
    l->held = NULL;
    pthread_mutex_lock(&fs->lock);
    if (in->fd >= 0) {
        l->dirfd = in->fd;
        l->name = "";
        snprintf(l->path, sizeof l->path, "/proc/self/fd/%d", in->fd);
    } else if (in->parent && in->name) {
        l->held = in->parent;
        l->held->child_refs++;
        l->dirfd = in->parent->fd;
        g_strlcpy(l->namebuf, in->name, sizeof l->namebuf);
        l->name = l->namebuf;
        snprintf(l->path, sizeof l->path, "/proc/self/fd/%d/%s", l->dirfd, l->namebuf);
    } else {
        pthread_mutex_unlock(&fs->lock);
        return -ESTALE;
    }
    pthread_mutex_unlock(&fs->lock);
    return 0;
}

void fs_loc_put(struct fs *fs, struct fs_loc *l)
{
    if (!l->held)
        return;
    pthread_mutex_lock(&fs->lock);
    fs_inode_unref_locked(fs, l->held, 0, true);
    pthread_mutex_unlock(&fs->lock);
    l->held = NULL;
}

bool fs_loc_self(const struct fs_loc *l)
{
    return !l->name[0];
}

/* Flags for *at() calls on a location (AT_EMPTY_PATH when it is the object's own fd). */
int fs_loc_flags(const struct fs_loc *l, int flags)
{
    return fs_loc_self(l) ? flags | AT_EMPTY_PATH : flags;
}

/* The inode number the build sees for real (dev, ino).  The mount has one st_dev for files of
 * many real devices, so a real inode number alone is not unique (two tmpfs trees both have an
 * inode 2, and stdout/stderr had 2 and 3: `cat a b` said "input file is output file").  The
 * first device's numbers pass through; the k-th device's get k in bits 48..63 (real inode
 * numbers stay below 2^48 on every common filesystem; above, they are folded in and may
 * collide).  Stable for the run, shared by hard links, the same in stat and readdir. */
uint64_t fs_present_ino(struct fs *fs, dev_t dev, ino_t ino)
{
    unsigned n = atomic_load_explicit(&fs->n_devs, memory_order_acquire);
    unsigned i = 0;
    while (i < n && fs->devs[i] != dev)
        i++;
    if (i == n) {
        pthread_mutex_lock(&fs->devs_lock);
        n = atomic_load_explicit(&fs->n_devs, memory_order_relaxed);
        for (i = 0; i < n && fs->devs[i] != dev; i++)
            ;
        if (i == n && n < FS_MAX_DEVS - 1) {
            fs->devs[n] = dev;
            atomic_store_explicit(&fs->n_devs, n + 1, memory_order_release);
        }
        pthread_mutex_unlock(&fs->devs_lock);
    }
    return i == 0 ? (uint64_t)ino : ((uint64_t)i << 48) ^ (uint64_t)ino;
}

/* What the build sees of a real stat: its inode number made unique (fs_present_ino), and its
 * owner (see fs_config.present_ids_as_own). */
void fs_present_stat(struct fs *fs, struct stat *st)
{
    st->st_ino = fs_present_ino(fs, st->st_dev, st->st_ino);
    if (!fs->present_ids_as_own)
        return;
    st->st_uid = fs->uid;
    st->st_gid = fs->gid;
}

int fs_inode_getattr(struct fs *fs, fuse_req_t req, struct fs_inode *in, struct stat *st)
{
    if (in->type != NODE_REAL) {
        fs_vroot_stat(fs, in, st);
        return 0;
    }
    struct fs_loc l;
    int r = fs_loc_get(fs, in, &l);
    if (r < 0)
        return r;
    struct fs_creds c = {false};
    if (req)
        fs_creds_enter(fs, req, &c);
    do
        r = fstatat(l.dirfd, l.name, st, fs_loc_flags(&l, AT_SYMLINK_NOFOLLOW)) < 0 ? -errno : 0;
    while (req && fs_creds_retry(fs, req, &c, -r));
    fs_creds_leave(fs, &c);
    fs_loc_put(fs, &l);
    if (r == 0 && (st->st_dev != in->dev || st->st_ino != in->ino))
        r = -ESTALE; /* the name now holds another file (changed outside the build) */
    if (r == 0)
        fs_present_stat(fs, st);
    return r;
}

/* Find or make the inode for `st`, seen as `name` in `parent`; takes one lookup.  `fd` is an
 * O_PATH fd for a directory (consumed) or -1. */
static struct fs_inode *inode_for_stat(struct fs *fs, int fd, const struct stat *st,
                                       struct fs_inode *parent, const char *name)
{
    struct ino_key k = {st->st_dev, st->st_ino};
    pthread_mutex_lock(&fs->lock);
    struct fs_inode *in = g_hash_table_lookup(fs->inodes, &k);
    if (in) {
        if (in->fd < 0 && fd >= 0)
            in->fd = fd;
        else if (fd >= 0)
            close(fd);
    } else {
        in = g_new0(struct fs_inode, 1);
        in->type = NODE_REAL;
        in->fd = fd;
        in->dev = st->st_dev;
        in->ino = st->st_ino;
        struct ino_key *kk = g_new(struct ino_key, 1);
        *kk = k;
        g_hash_table_insert(fs->inodes, kk, in);
    }
    in->nlookup++;
    fs_inode_set_name_locked(in, parent, name);
    pthread_mutex_unlock(&fs->lock);
    return in;
}

void fs_inode_fill_entry(struct fs *fs, struct fuse_entry_param *e, struct fs_inode *in,
                         const struct stat *st)
{
    memset(e, 0, sizeof *e);
    e->ino = (fuse_ino_t)(uintptr_t)in;
    e->attr = *st;
    e->attr_timeout = fs->timeout;
    e->entry_timeout = fs->timeout;
}

/* Look `name` up in `dir`; on success *e is filled and one lookup taken.  Returns 0/-errno. */
int fs_inode_lookup(struct fs *fs, fuse_req_t req, struct fs_inode *dir, const char *name,
                    struct fuse_entry_param *e, bool *denied)
{
    if (fs_inode_hidden(fs, dir, name))
        return -ENOENT;
    struct stat st;
    struct fs_creds c;
    fs_creds_enter(fs, req, &c); /* searching `dir` is the caller's right, or not */
    int r;
    do
        r = fstatat(dir->fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
    while (fs_creds_retry(fs, req, &c, -r));
    fs_creds_leave(fs, &c);
    if (r < 0)
        return r;
    if (fs_inode_gated(fs, dir, name, st.st_dev, st.st_ino, S_ISDIR(st.st_mode))) {
        if (denied)
            *denied = true;
        return -ENOENT;
    }
    int fd = -1;
    if (S_ISDIR(st.st_mode)) {
        /* Directories keep an fd: they are the parents every other inode is reached from.
         * (O_PATH needs only the search right just checked; the fd is the daemon's.) */
        fd = openat(dir->fd, name, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
            return -errno;
        if (fstatat(fd, "", &st, AT_EMPTY_PATH) < 0) {
            int err = errno;
            close(fd);
            return -err;
        }
    }
    struct fs_inode *in = inode_for_stat(fs, fd, &st, dir, name);
    fs_present_stat(fs, &st);
    fs_inode_fill_entry(fs, e, in, &st);
    return 0;
}

/* `name` in `dir` is about to stop naming its inode (unlink, or replaced by a rename).  If the
 * kernel still holds that inode and knows it by exactly this name, give it an fd of its own
 * first, so that fstat/fchmod/... on an open-but-unlinked file keep working (t2100). */
void fs_inode_pin_before_name_goes(struct fs *fs, struct fs_inode *dir, const char *name)
{
    struct stat st;
    if (fstatat(dir->fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || S_ISDIR(st.st_mode))
        return;
    struct ino_key k = {st.st_dev, st.st_ino};
    pthread_mutex_lock(&fs->lock);
    struct fs_inode *in = g_hash_table_lookup(fs->inodes, &k);
    bool needed = in && in->fd < 0 && in->parent == dir && in->name && !strcmp(in->name, name);
    pthread_mutex_unlock(&fs->lock);
    if (!needed)
        return;
    int fd = openat(dir->fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return;
    pthread_mutex_lock(&fs->lock);
    in = g_hash_table_lookup(fs->inodes, &k);
    if (in && in->fd < 0) {
        in->fd = fd;
        fd = -1;
    }
    pthread_mutex_unlock(&fs->lock);
    if (fd >= 0)
        close(fd);
}

void fs_inode_free(gpointer p)
{
    struct fs_inode *in = p;
    if (in->fd >= 0)
        close(in->fd);
    g_free(in->name);
    g_free(in);
}

bool fs_inode_hidden(struct fs *fs, struct fs_inode *dir, const char *name)
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

enum { MADE_NEW = 1, MADE_ADOPTED = 2 }; /* the values of fs->made */

static void mark_made(struct fs *fs, dev_t dev, ino_t ino, int how)
{
    if (!fs->gate)
        return;
    struct ino_key *k = g_new(struct ino_key, 1);
    *k = (struct ino_key){dev, ino};
    pthread_mutex_lock(&fs->made_lock);
    if (g_hash_table_contains(fs->made, k))
        g_free(k); /* marked already: as it was first */
    else
        g_hash_table_insert(fs->made, k, GINT_TO_POINTER(how));
    pthread_mutex_unlock(&fs->made_lock);
}

void fs_inode_mark_made(struct fs *fs, dev_t dev, ino_t ino)
{
    mark_made(fs, dev, ino, MADE_NEW);
}

void fs_inode_mark_adopted(struct fs *fs, dev_t dev, ino_t ino)
{
    mark_made(fs, dev, ino, MADE_ADOPTED);
}

bool fs_inode_made_new(struct fs *fs, dev_t dev, ino_t ino)
{
    struct ino_key k = {dev, ino};
    pthread_mutex_lock(&fs->made_lock);
    bool made = GPOINTER_TO_INT(g_hash_table_lookup(fs->made, &k)) == MADE_NEW;
    pthread_mutex_unlock(&fs->made_lock);
    return made;
}

bool fs_inode_gated(struct fs *fs, struct fs_inode *dir, const char *name, dev_t dev, ino_t ino,
                    bool is_dir)
{
    if (!fs->gate || dir->type != NODE_REAL)
        return false;
    struct ino_key k = {dev, ino};
    pthread_mutex_lock(&fs->made_lock);
    bool made = g_hash_table_contains(fs->made, &k);
    pthread_mutex_unlock(&fs->made_lock);
    if (made)
        return false;
    g_autofree char *path = fs_inode_path(fs, dir, name);
    return gate_judge(fs->gate, path, is_dir) == GATE_UNDECLARED ||
           (fs->pkggate && pkggate_judge(fs->pkggate, path));
}
