/* scratch — the run's private directory ($TMPDIR/buildtrail-XXXXXX): the staging mount point
 * and the backing of the build's private /tmp.
 *
 * Contract
 *   - scratch_create() makes a new directory under `base`, takes an exclusive flock on it and
 *     then writes the marker file OWNER in it: a directory with OWNER whose lock is free
 *     belongs to a run that is gone (killed with SIGKILL, or its machine crashed).
 *   - scratch_reclaim() removes such leftovers under `base`: only directories named
 *     buildtrail-XXXXXX, owned by the caller's euid, with OWNER and no lock holder (or, without
 *     OWNER, unlocked and untouched for an hour: a run killed between mkdtemp and the lock).
 *     It never crosses a mount point or follows a symlink, and never touches anything else.
 *   - scratch_remove() removes the run's own directory and drops the lock.
 *   - Returns 0 or -errno; never logs.  Not thread-safe: called by the launcher's main thread.
 */
#pragma once

struct scratch {
    char *path; /* g_free()d by scratch_remove */
    int fd;     /* holds the flock */
};

int scratch_create(const char *base, struct scratch *out);
/* How many leftovers were removed (>= 0). */
int scratch_reclaim(const char *base);
void scratch_remove(struct scratch *s);

/* Remove a directory tree, staying on its filesystem and never following symlinks. */
void scratch_remove_tree(const char *dir);
