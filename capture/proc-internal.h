/* proc-internal — what the files of the process table share; not for the rest of buildtrail,
 * which uses proc.h.
 *
 * The files, each with its part of proc.h's contract:
 *   proc.c            the table: images and their references, tasks, exec watches, and who a
 *                     caller is (proc_resolve: from the events' live tables, else from /proc,
 *                     recording the image and its ancestors on first sight)
 *   proc-lifecycle.c  fork, exec and exit applied from the process events (procevents.c reads
 *                     them), the event thread, the last exits at the end, the tree's note
 *   procfs.c          what /proc says about a task (procfs.h); no table, no lock
 * Dependency order: procfs.c, then proc.c and proc-lifecycle.c, which call each other through
 * this header (resolution drains the events first and makes a task found from /proc live;
 * events make images as resolution does).
 *
 * Locks (the order: events_lock, then table_lock, then the recorder's; proc.h says why a
 * recorder call under table_lock cannot deadlock):
 *   table_lock   every table of struct proc_table and every image's fields but the fixed ones;
 *                image references are taken and dropped under it.
 *   events_lock  serialises draining and applying events (procevents.h is not thread-safe),
 *                and keeps events out between listing a process's threads and making it live.
 * /proc is read with neither held, but for still_runs (a rare case, proc-lifecycle.c).
 */
#pragma once

#include "proc.h"

#include <glib.h>
#include <pthread.h>
#include <stdbool.h>

struct proc_image {
    int64_t id;
    int64_t parent_id;
    int64_t began_ns; /* when this image began (exec or fork event; first sighting from /proc) */
    pid_t pid;
    unsigned long long start_ticks;
    int exec_seq;
    pid_t ppid;      /* the parent pid when recorded (/proc mode: an exec keeps it) */
    char comm[64];
    unsigned long long layout[3]; /* see struct proc_stat */
    char *exe;       /* owned */
    char *argv;      /* owned, argv_len bytes */
    size_t argv_len;
    int64_t env_id;  /* its environment (rec_env_id), 0 unknown; a fork's is its parent's */
    /* Events mode, while live: its other threads still live, and whether its leader thread has
     * exited (pthread_exit() in main, or a non-leader thread's exec killing it): the process
     * ends when both say so. */
    unsigned threads;
    bool leader_exited;
    /* The main thread's exit status, once reported: the process's when it is not 0 (its
     * threads joined before it returned from main report 0, and may be reported after it). */
    int leader_code;
    /* The image the previous exec of this process started (an exec_watch chain; a
     * reference). */
    struct proc_image *earlier_exec;
    /* References (table_lock): one from each of images, live, a task, an owed exit, an
     * exec_watch's head or a later image's earlier_exec.  Freed at 0: an ended image nobody
     * can ask about again costs nothing (see "Process identity" in docs/architecture.md). */
    unsigned refs;
    struct proc_table *table; /* counts the images held (images_held) */
};

/* The exec opens of one process (tgid) still open, and the images its execs started since the
 * oldest of them (newest first, chained by earlier_exec): what proc_image_after() answers
 * from.  With no exec open outstanding nothing can ask, and the chain is dropped. */
struct exec_watch {
    unsigned holds;
    struct proc_image *head; /* a reference, or NULL */
};

struct proc_task {
    pid_t tid;
    unsigned long long start_ticks;
    char comm[64];           /* the thread's comm when last checked */
    unsigned long long layout[3];
    struct proc_image *image; /* a reference */
};

struct proc_table {
    struct rec *rec;
    char **env_redact;  /* glob patterns on names whose values are not recorded; fixed */
    char **argv_redact; /* argument options whose values are not recorded; fixed */
    long ns_per_tick;
    pthread_mutex_t table_lock;
    GHashTable *tasks;  /* tid -> struct proc_task*; protected by table_lock */
    /* pid -> the current image of the task with that pid (its start_ticks tell which task:
     * one with other start_ticks is an earlier task, ended); protected by table_lock */
    GHashTable *images;
    int64_t next_id;    /* protected by table_lock */
    unsigned images_held, images_peak; /* images not yet freed, and the most at once; table_lock */
    pid_t setup_pid, init_pid; /* protected by table_lock; init_pid 0 until known */
    pthread_cond_t launcher_known; /* signalled when init_pid is set */
    pid_t root_pid;     /* protected by table_lock */
    int64_t root_id;    /* protected by table_lock */
    GHashTable *exec_images; /* tgid -> struct exec_watch; protected by table_lock */

    /* Process events (proc_table_enable_events): when on, they are the truth about fork, exec
     * and exit; /proc is only read for what an event does not carry (argv, exe, cwd). */
    struct procev *events;        /* NULL: /proc-only mode */
    pthread_mutex_t events_lock;  /* serialises draining and applying events; before table_lock */
    bool events_lost;             /* protected by table_lock */
    unsigned reattached;          /* processes found from /proc and made live; table_lock */
    /* tid -> tgid of the tasks proc_attach_live made live whose fork event may still be queued
     * (made after the request's drain, before the listing): that fork is theirs, not a reuse
     * of the tid.  Emptied at the end of each drain, which has applied every event queued
     * before the attach (proc_attach_live and drains hold events_lock); table_lock */
    GHashTable *attached_unsure;
    GHashTable *live;             /* tgid -> current image of a live build process; table_lock */
    GHashTable *live_tasks;       /* tid -> tgid of live build tasks, threads too; table_lock */
    /* The kernel reports an exit only after the parent could reap it (exit_notify() comes before
     * proc_exit_connector() in do_exit()), so a fork that reuses a pid can be reported before
     * the exit of the task that had it.  tid -> GQueue of struct owed_exit (the earlier task's
     * thread group, and its image or NULL for a thread), oldest first: the next exit of this
     * tid in that thread group is theirs.  (Not any exit of the tid: the new task can be a
     * thread of another process, and exit before the late event comes.) */
    GHashTable *exits_due;        /* table_lock */
    unsigned due_images;          /* images (not threads) queued in exits_due; table_lock */
    unsigned exits_missing;       /* exits still owed when events stopped; table_lock */
    pid_t pending_root;           /* forked by setup, not exec'd yet; protected by table_lock */
    bool root_forked;             /* setup has forked the build's command; table_lock */
    pthread_t event_thread;
    bool event_thread_started;    /* written once, before any reader */
    int stop_pipe[2];
};

/* ---- proc.c ---- */

/* Take a reference to `img` (table_lock held). */
struct proc_image *proc_image_ref(struct proc_image *img);

/* Drop a reference (table_lock held; a GDestroyNotify for the tables holding them); the last
 * one frees the image, and with it its reference to the image its tid's previous exec
 * started. */
void proc_image_unref(gpointer p);

/* Make an image from the process row `rp` describes and queue the row (table_lock held); the
 * caller files it (it has no reference yet).  Fills in rp's id, exec_seq, prev_image_id and
 * first_seen_ns; takes exe and argv. */
struct proc_image *proc_image_add(struct proc_table *t, struct rec_process *rp,
                                  struct proc_image *prev, int64_t began_ns, char *exe,
                                  char *argv);

/* `img` is now the current image of its task (table_lock held): an earlier task with its pid
 * has ended, and an image it replaces by exec is no longer current. */
void proc_image_set_current(struct proc_table *t, struct proc_image *img);

/* `img` was started by an exec of process `tgid` (table_lock held): kept for the exec opens
 * still open, if any (none: no open made before this exec can ask about it). */
void proc_image_note_exec(struct proc_table *t, pid_t tgid, struct proc_image *img);

/* The environment process `pid` was started with (/proc/PID/environ), redacted, as an id
 * (0 when it cannot be read: a setuid program, a process already gone). */
int64_t proc_read_env_id(struct proc_table *t, pid_t pid);

/* The arguments process `pid` runs with (/proc/PID/cmdline), redacted: their length, and
 * *out (g_malloc'd; NULL when they cannot be read, length 0). */
size_t proc_read_argv(struct proc_table *t, pid_t pid, char **out);

/* ---- proc-lifecycle.c ---- */

/* A GDestroyNotify for exits_due's queues. */
void proc_owed_queue_free(gpointer q);

/* Start the thread that applies events as they come, once (no-op without events). */
void proc_event_thread_start(struct proc_table *t);

/* Apply every event queued so far.  Called before attributing a request: whatever happened
 * before the request (its caller's fork, exec) is then in the table. */
void proc_drain_events(struct proc_table *t);

/* A build process that events never reported (they were dropped: ENOBUFS) was found from /proc
 * as `img`: make it live, with its threads `tids` (its main thread among them unless it has
 * exited), so that its forks, execs and exit are applied from the events that come after.
 * Nothing to do if events know it already (events_lock and table_lock held). */
void proc_attach_live(struct proc_table *t, pid_t tgid, struct proc_image *img,
                      const GArray *tids, bool leader_exited);
