/* syswatch — the system trees (/usr, /etc, /opt) watched with fanotify instead of served
 * through FUSE: what `run --system` does as root (docs/architecture.md, "Watched system trees").
 *
 * Why: a FUSE mount sends a request for every lookup, getattr, readlink, open and release, and a
 *   build's compilers look up and open thousands of system headers and libraries; a fanotify
 *   permission event is sent for an open alone, and the rest costs nothing.
 *
 * How: the launcher makes a group (syswatch_group_new) before the build's namespaces exist;
 *   setup bind-mounts each system tree onto itself inside the build's mount namespace (so the
 *   mount is the build's own: nothing outside it is watched) and marks that mount with
 *   SYSWATCH_MARK_MASK.  The watcher thread reads the events.  An open blocks until its event
 *   is answered, and it is answered only after it is recorded, so the trace has the same causal
 *   order as a FUSE request: the opener is identified from the event's thread id (proc.h) while
 *   it waits.  The answer is always "allow": the watcher never changes what the build can do.
 *
 * What is recorded, per open (the event says neither the flags nor whether it is an exec: the
 *   opener's /proc/TID/syscall does, as the opener is blocked in that call):
 *   - an open for reading: a read row bound to the version it opened (a file first seen is
 *     hashed from the event's descriptor, off the event path, as versions.h does);
 *   - an open made by execve: an exec row of the program that exec started (the first exec of
 *     that process at or after the open: proc_image_after), resolved once the process events
 *     say so, or at syswatch_stop;
 *   - an open for writing: a new version begun at the open (as a FUSE write-open does) and
 *     finished at the file's last close (FAN_CLOSE_WRITE), with a write row for the opener.
 *   - the symlinks the open's path went through (a readlink row each, for the opener, as the
 *     kernel's path walk through a FUSE mount would show): the path the opener gave is read
 *     from its memory and, unless it is already the file's own path, walked again in the
 *     opener's root (/proc/TID/root), recorded only if the walk ends at the opened file;
 *   Every mount inside a watched tree is marked too (the launcher lists them).  Not recorded
 *   in watched trees (runs.notes says so): failed lookups, stat(), access(), directory
 *   listings, bytes moved, renames, links and removals, and which opens created the file (a
 *   creating open shows as a truncation and a write).  When the syscall cannot be told (an
 *   io_uring open, a 32-bit program), the open counts as a read and the note counts it.
 *
 * Threads and locking: one watcher thread per CPU (up to 4), each reading one event at a time,
 *   so that two compilers' opens are answered at once.  syswatch.lock protects the pending exec
 *   opens and the open writers; it is taken before proc's, vers's and the recorder's locks
 *   (settle_execs calls into proc with it held) and is never held while waiting for a hash.
 *   The watchers call into proc, vers and the recorder as FUSE handlers do.
 *
 * Failures: every permission event read is answered FAN_ALLOW, whatever recording did, and a
 *   watcher never ends before syswatch_stop (a transient read error is retried): an unread or
 *   unanswered event would hold its opener forever.  The kernel makes each event's descriptor
 *   in our read(); when it cannot (EMFILE: our table full), it denies a permission event
 *   itself and drops any other, and read() fails.  So no descriptor is kept per open writer,
 *   and what the watchers keep stops short of the limit (FD_RESERVE); an event lost anyway
 *   is counted and syswatch_stop says so (the run is then incomplete).
 */
#pragma once

#include "proc.h"
#include "recorder.h"
#include "versions.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/fanotify.h>

/* What setup marks each watched mount with. */
#define SYSWATCH_MARK_MASK (FAN_OPEN_PERM | FAN_CLOSE_WRITE)

/* A fanotify group for permission events (close-on-exec), or -errno (-EPERM without
 * CAP_SYS_ADMIN, -EINVAL or -ENOSYS on a kernel without permission events). */
int syswatch_group_new(void);

struct syswatch;

/* Start the watcher thread on `group` (taken over).  `paths` (NULL-terminated) are the watched
 * trees as the build sees them; `served` (NULL-terminated) the trees served through FUSE, which
 * a symlink walk never enters (the daemon would be asking itself, and FUSE records those).
 * `rec`, `procs` and `vers` are the launcher's, the same three the filesystem is given
 * (fs_config), and outlive the watcher.  NULL on failure (*err gets -errno). */
struct syswatch *syswatch_start(int group, struct rec *rec, struct proc_table *procs,
                                struct vers *vers, char *const *paths, char *const *served,
                                int *err);

/* After the build has ended and the process events have stopped (exec opens wait for the last
 * exec events), before the recorder stops: stop the threads (after reading the events still
 * queued), record the exec opens not resolved yet (to the program started, else the opener),
 * finish the versions of files still open for writing (hashed from their path, if it still
 * names the file written), wait until every version it finished is hashed and its row queued
 * (vers_drain), and free.  Returns what the watcher saw, for
 * runs.notes ("system_trees=watched (...)"; the caller frees), or NULL for a NULL watcher.
 * *lost (if not NULL) gets why the trace misses something of the watched trees (events the
 * kernel could not give us, opens not recorded; the caller frees), or NULL. */
char *syswatch_stop(struct syswatch *w, char **lost);

/* ---- pure helpers, exposed for tests and fuzzing ------------------------------------------ */

/* Parse /proc/TID/syscall ("NR ARG1 ... ARG6 SP PC", numbers in decimal or 0x hex).  0, or
 * -EAGAIN when the task is running (ask again once it blocks), -ENODATA when it is blocked
 * outside a syscall ("-1 SP PC"), -EINVAL when malformed. */
int syswatch_parse_syscall(const char *buf, size_t len, long *nr, unsigned long long args[6]);

enum syswatch_call {
    SYSWATCH_UNKNOWN = 0, /* not an open this machine's numbering knows */
    SYSWATCH_EXEC,        /* execve / execveat: the open is an exec */
    SYSWATCH_OPEN,        /* *flags are the open's flags */
    SYSWATCH_OPEN_HOW,    /* openat2: the flags are the u64 at *how in the opener's memory */
};

/* What syscall `nr` with `args` (this architecture's numbering) says about an open it made;
 * *path gets the address of the path name it was given in the opener's memory (0: none) and
 * *dirfd the directory it is relative to (AT_FDCWD: the current directory). */
enum syswatch_call syswatch_classify(long nr, const unsigned long long args[6], int *flags,
                                     unsigned long long *how, unsigned long long *path,
                                     int *dirfd);

/* Split `path` (absolute) into the directory part already resolved and the components still to
 * walk, the way the kernel does: one step of a symlink walk.  Exposed for tests: given the
 * resolved prefix `done` (absolute, no trailing slash, "" for /) and the rest `todo`, takes
 * the next component into *comp (NUL-terminated, at most NAME_MAX) and returns the rest after
 * it, or NULL when nothing is left.  "." is skipped and ".." drops done's last component. */
const char *syswatch_next_component(char *done, const char *todo, char comp[256]);
