/* inokey — a file's identity (st_dev, st_ino) as a GHashTable key, for the inode table
 * (fs-inodes.c) and the version table (versions.c).  Header-only; no state. */
#pragma once

#include <glib.h>
#include <sys/types.h>

struct ino_key {
    dev_t dev;
    ino_t ino;
};

static inline guint ino_key_hash(gconstpointer p)
{
    const struct ino_key *k = p;
    return (guint)(k->ino ^ (k->ino >> 32) ^ (k->dev * 0x9e3779b9u));
}

static inline gboolean ino_key_equal(gconstpointer a, gconstpointer b)
{
    const struct ino_key *x = a, *y = b;
    return x->dev == y->dev && x->ino == y->ino;
}
