/* fs-inodes — the inode table (fs-inodes.c); internal to fs*.c.
 *
 * Owns: struct fs_inode (nodeid = pointer, keyed by (st_dev, st_ino) in fs.inodes), each
 * inode's (parent, name) link and the paths computed from it, the *at() locations of real
 * objects (fs_loc), the inode numbers and attributes the build sees (present_*, getattr,
 * entries), lookup by name, which names are hidden (fs_config.hide, and the gate of
 * `run --only-inputs` with the inodes the build made), and pinning an fd before a name goes.
 * fs.made_lock (a leaf) protects fs.made.
 * Locks: fs.lock protects fs.inodes and every inode's nlookup, child_refs, parent and name
 * (and the pinning of an fd); fs.devs_lock (a leaf) serialises appends to fs.devs.  Never
 * holds fs.lock while calling the real filesystem.
 * Calls fs-creds.h (lookups and getattr made as the caller) and fs-vroot.h (the attributes of
 * the virtual stdout/stderr: the one link back up, inherent to real and virtual nodes sharing
 * getattr and entries).
 */
#pragma once

#include <fuse_lowlevel.h>
#include <glib.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

struct fs;

enum fs_node_type { NODE_REAL, NODE_STDOUT, NODE_STDERR };

struct fs_inode {
    enum fs_node_type type;
    /* O_PATH fd of the real object: directories (and tree roots) always have one; other inodes
     * are reached through their parent's fd and name (fd -1), unless the name they are known
     * by was unlinked or replaced while the kernel still held them: then one is pinned first.
     * Written under fs.lock (pinning); a directory's fd never changes. */
    int fd;
    dev_t dev;
    ino_t ino;
    uint64_t nlookup;        /* protected by fs.lock */
    unsigned child_refs;     /* inodes naming this one as parent; protected by fs.lock */
    struct fs_inode *parent; /* protected by fs.lock; NULL for tree roots */
    char *name;              /* protected by fs.lock; a tree root's absolute path */
    bool tree_root;
};

/* The inode number the build sees for the virtual stdout/stderr: a device index no real
 * device gets. */
#define FS_VIRTUAL_INO(n) ((UINT64_C(0xffff) << 48) | (n))

/* Where an inode's real object is, for *at() calls: its own fd with "" (AT_EMPTY_PATH), or
 * its parent's fd and its name.  fs_loc_get() holds the parent (as a child reference) until
 * fs_loc_put(), so a concurrent rename or forget cannot free it under us. */
struct fs_loc {
    int dirfd;
    const char *name;            /* "" when dirfd is the object itself */
    char namebuf[NAME_MAX + 1];
    struct fs_inode *held;       /* the parent held, or NULL */
    char path[PATH_MAX];         /* the same as a /proc/self/fd path, for path-only calls */
};

static inline struct fs_inode *fs_inode_get(fuse_req_t req, fuse_ino_t ino)
{
    (void)req;
    return (struct fs_inode *)(uintptr_t)ino;
}

/* Drop one reference of kind `lookups` (nlookup) or a child ref; free when both reach zero.
 * Called with fs.lock held. */
void fs_inode_unref_locked(struct fs *fs, struct fs_inode *in, uint64_t lookups, bool child);

/* Set where an inode was last seen.  Called with fs.lock held. */
void fs_inode_set_name_locked(struct fs_inode *in, struct fs_inode *parent, const char *name);

/* The path the build sees for `in`, plus "/name" when name is given.  g_free() it. */
char *fs_inode_path(struct fs *fs, struct fs_inode *in, const char *name);

int fs_loc_get(struct fs *fs, struct fs_inode *in, struct fs_loc *l);

void fs_loc_put(struct fs *fs, struct fs_loc *l);

bool fs_loc_self(const struct fs_loc *l);

/* Flags for *at() calls on a location (AT_EMPTY_PATH when it is the object's own fd). */
int fs_loc_flags(const struct fs_loc *l, int flags);

/* The inode number the build sees for real (dev, ino).  The mount has one st_dev for files of
 * many real devices, so a real inode number alone is not unique (two tmpfs trees both have an
 * inode 2, and stdout/stderr had 2 and 3: `cat a b` said "input file is output file").  The
 * first device's numbers pass through; the k-th device's get k in bits 48..63 (real inode
 * numbers stay below 2^48 on every common filesystem; above, they are folded in and may
 * collide).  Stable for the run, shared by hard links, the same in stat and readdir. */
uint64_t fs_present_ino(struct fs *fs, dev_t dev, ino_t ino);

/* What the build sees of a real stat: its inode number made unique (fs_present_ino), and its
 * owner (see fs_config.present_ids_as_own). */
void fs_present_stat(struct fs *fs, struct stat *st);

int fs_inode_getattr(struct fs *fs, fuse_req_t req, struct fs_inode *in, struct stat *st);

void fs_inode_fill_entry(struct fs *fs, struct fuse_entry_param *e, struct fs_inode *in,
                         const struct stat *st);

/* Look `name` up in `dir`; on success *e is filled and one lookup taken.  Returns 0/-errno:
 * -ENOENT also for a name the gate hides (fs_inode_gated), and then *denied is set when
 * `denied` is given. */
int fs_inode_lookup(struct fs *fs, fuse_req_t req, struct fs_inode *dir, const char *name,
                    struct fuse_entry_param *e, bool *denied);

/* run --only-inputs: the build made (dev, ino) — created it, or wrote, renamed or linked it
 * into place — so the gate never hides it.  No-op without a gate. */
void fs_inode_mark_made(struct fs *fs, dev_t dev, ino_t ino);

/* run --only-inputs: the build took over (dev, ino), a directory that existed before it (mkdir
 * over a hidden one): visible as if made, but what it holds is not the build's. */
void fs_inode_mark_adopted(struct fs *fs, dev_t dev, ino_t ino);

/* Did the build make (dev, ino) itself (not adopted)?  (A pre-existing directory moved to
 * another path would take hidden contents where the gate lets them through.) */
bool fs_inode_made_new(struct fs *fs, dev_t dev, ino_t ino);

/* run --only-inputs: does the gate hide `name` in `dir`, an object (dev, ino) that the build did
 * not make?  `is_dir`: it is (or may be) a directory.  False without a gate. */
bool fs_inode_gated(struct fs *fs, struct fs_inode *dir, const char *name, dev_t dev, ino_t ino,
                    bool is_dir);

/* `name` in `dir` is about to stop naming its inode (unlink, or replaced by a rename).  If the
 * kernel still holds that inode and knows it by exactly this name, give it an fd of its own
 * first, so that fstat/fchmod/... on an open-but-unlinked file keep working (t2100). */
void fs_inode_pin_before_name_goes(struct fs *fs, struct fs_inode *dir, const char *name);

void fs_inode_free(gpointer p);

/* Whether `name` in `dir` is one of fs_config.hide (the trace and its side files, the private
 * directory): every handler then acts as if it were not there. */
bool fs_inode_hidden(struct fs *fs, struct fs_inode *dir, const char *name);
