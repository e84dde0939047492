/* serve — `buildtrail run` while the build runs: the daemon's signals, the FUSE session and its
 * loop threads, and the main loop that waits for the build (docs/architecture.md, "The
 * processes").
 *
 * Contract
 *   - serve_init, then serve_block_signals before anything is spawned (every thread and child
 *     inherits the mask: SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD go to a signalfd; SIGPIPE is
 *     ignored, so a closed stdout is EPIPE for the build's writer), serve_watch_start before
 *     the recorder runs (its hooks: serve_watch_hooks), then, once setup is spawned,
 *     serve_session_start with the /dev/fuse fd setup passed, serve_wait, serve_session_stop;
 *     serve_cleanup always.
 *   - serve_wait returns when setup has ended and its reports are read.  Meanwhile: a failed
 *     write of the trace, or its file deleted, renamed or replaced (trace_problem), stops the
 *     build (setup is killed, and the build's pid namespace with it; stop_reason says why);
 *     NS_STEP_STARTED publishes the trace (trace_publish); a signal sent to buildtrail alone
 *     is passed on to the build's root process (a terminal's Ctrl-C reached it already), and
 *     marks the run interrupted; one while the recorder waits for disk space gives up.
 *   - Main-level code of `run`: failures are one line on stderr.  The recorder's hooks run on
 *     its writer thread: they print and wake the main loop through the eventfd; the fields
 *     they set are atomics.  Everything else is the main thread's.
 */
#pragma once

#include "ns.h"

#include <fuse_lowlevel.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct fs;
struct rec;
struct rec_hooks;
struct proc_table;
struct nsguard;
struct trace;

/* What the recorder's hooks tell the main loop. */
struct serve_watch {
    const char *db_path;       /* for their messages */
    int wake_fd;               /* eventfd: the main loop polls it */
    atomic_int write_errno;    /* a write of the trace failed (not for lack of space) */
    atomic_bool disk_full;     /* the recorder is waiting for space */
    char *lost;                /* what happened to the trace file, if it went; main thread */
};

struct serve_loop {
    struct fuse_session *se;
    int max_threads;
    int result;
    bool done; /* protected by lock */
    pthread_mutex_t lock;
    pthread_cond_t cond;
};

struct serve {
    /* the daemon's signals */
    int sigfd;
    sigset_t handled, old_mask;
    bool signals_blocked;
    struct serve_watch watch;
    /* the FUSE session */
    struct fuse_session *se;
    int fuse_fd;       /* the connection, until the session owns it */
    struct serve_loop loop;
    pthread_t loop_thread;
    bool serving;      /* its loop threads were started */
    bool loop_running; /* ... and outlived the build: left to process exit */
    struct nsguard *guard;
    /* what the wait found */
    struct ns_report failure;      /* the first step setup reported as failed ({-1, ...}: none) */
    bool have_status, interrupted, setup_done;
    int wait_status, setup_wait;
    int64_t mono_to_boot_ns;       /* CLOCK_BOOTTIME - CLOCK_MONOTONIC, taken before the spawn */
    int64_t kill_left_ns;          /* when setup ended what the build left running (BOOTTIME), or 0 */
    char *stop_reason;             /* why buildtrail stopped the build itself */
};

void serve_init(struct serve *s);
/* Block the handled signals (the old mask and SIGPIPE's disposition go to `plan`, for the
 * build) and open their signalfd. */
void serve_block_signals(struct serve *s, struct ns_plan *plan);
/* The eventfd the recorder's hooks wake the main loop with.  0 or -1 (said). */
int serve_watch_start(struct serve *s, const char *db_path);
/* The hooks, for rec_set_hooks. */
struct rec_hooks serve_watch_hooks(struct serve *s);
/* Take the times' offset (before the spawn: setup's monotonic kill time then compares with the
 * process events' exit times). */
void serve_take_clock(struct serve *s);

/* Serve the FUSE connection setup passes over `sock` (then, with guard_len, watch the build's
 * mount calls from the listener it passes next), and tell `procs` setup's and init's pids.
 * Setup is killed when that fails (said); its report then says the rest. */
void serve_session_start(struct serve *s, int sock, pid_t setup, bool guard, struct fs *fs,
                         struct proc_table *procs);
/* Wait for the build: see above. */
void serve_wait(struct serve *s, int report_fd, pid_t setup, struct trace *trace,
                struct rec *rec, struct proc_table *procs);
/* Stop serving: wait (10 s at most) for the loop to end as the mount goes with the namespace,
 * then flush the open handles.  If something outside the build still holds the mount, the
 * session is left running (said; loop_running), to be ended by process exit. */
void serve_session_stop(struct serve *s, struct fs *fs);
/* Destroy the session (unless loop_running) and restore the signal mask. */
void serve_cleanup(struct serve *s);
