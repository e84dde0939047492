/* engine — the capture engine of one `buildtrail run`, made, stopped and freed in one place:
 * the recorder (recorder.h), the process table (proc.h), the version table (versions.h), the
 * filesystem that records through them (fs.h), and with watched system trees (--system as
 * root) the fanotify group and its watcher (syswatch.h), given the same three.  The launcher owns them: engine_start makes them all, in that order,
 * and hands each to those that use it; engine_free frees them all.
 *
 * Contract
 *   - engine_init; engine_open_watch while planning (it decides whether the system trees are
 *     watched: watch_fd >= 0); engine_start before setup is spawned (the process events are
 *     subscribed before any fork of the build); engine_stop once the FUSE loop has ended;
 *     engine_free always (engine_leave first when the loop threads outlived the build: what
 *     they use is then left to process exit).
 *   - Main-level code of `run`: a failure is one line on stderr and -1.  Main thread only.
 */
#pragma once

#include "fs.h"

#include <glib.h>
#include <stdbool.h>

struct rec;
struct rec_hooks;
struct proc_table;
struct syswatch;
struct vers;

/* --system=HOW */
enum engine_system { ENGINE_SYSTEM_AUTO, ENGINE_SYSTEM_OPENS, ENGINE_SYSTEM_FULL };

struct engine {
    struct rec *rec;
    struct proc_table *procs;
    struct vers *vers;
    struct fs *fs;
    struct syswatch *syswatch;
    int watch_fd;          /* the system trees' fanotify group until the watcher takes it */
    char *watch_why_not;   /* why --system serves them through FUSE as root */
    char *watch_note;      /* the watcher's words for runs.notes, once stopped */
};

struct engine_config {
    struct fs_config fs;            /* the filesystem's options (rec, procs, vers: filled in) */
    int64_t hash_limit;             /* the version table's: files larger are not hashed */
    const struct rec_hooks *hooks;  /* the recorder's, for the main loop */
    const char *db_path;            /* the trace, for messages */
    const GPtrArray *env_redact;    /* char*: --env-redact */
    char *const *argv_redact;       /* --argv-redact, NULL-terminated */
    const GPtrArray *watched;       /* char*: the watched system trees */
};

void engine_init(struct engine *e);
/* As root, --system watches the system trees with fanotify unless --system=full; where the
 * kernel or a container refuses (fanotify permission events, or seccomp user notifications
 * for the mount-call guard), they are served through FUSE as without root, and watch_why_not
 * says why — but for --system=opens, which then fails.  0 or -1 (said). */
int engine_open_watch(struct engine *e, bool system, enum engine_system how);
/* The recorder (its trace comes when the build's command starts), the process table (with
 * process events unless BUILDTRAIL_NO_PROC_EVENTS=1), the version table, the filesystem on c->fs's trees (whose
 * fds it takes), and with watch_fd the watcher.  0 or -1 (said; the trees' fds closed when the
 * filesystem was not made). */
int engine_start(struct engine *e, const struct engine_config *c);
/* The process events stopped and the process tree's note (*tree_note: g_free it), the watcher
 * stopped: its note, and the tree's note made "incomplete: ..." if it lost accesses. */
void engine_stop(struct engine *e, char **tree_note);
/* What the loop threads still use, left to process exit. */
void engine_leave(struct engine *e);
void engine_free(struct engine *e);
