/* proc — who is calling: turn the thread id of a FUSE request into a process-image record.
 *
 * Identity model (docs/architecture.md, "Process identity")
 *   - A task is (pid, start_ticks): start_ticks is field 22 of /proc/PID/stat, which a reused
 *     pid never repeats for a live task.  Threads map to their thread group (Tgid).
 *   - A process image is one exec of a task.  With process events (root) every fork and exec
 *     is an event.  From /proc alone, an exec is seen as a new memory layout in /proc/PID/stat
 *     (struct proc_stat.layout), or, where the kernel hides it, as a new comm with a new
 *     exe/argv; the new image's prev_image_id points at the one it replaced.
 *   - Every recorded image has its ancestors recorded before it: parents are resolved lazily,
 *     walking /proc up to the launcher's init.  The build's root command has no parent; a
 *     process reparented to the init before it was first seen is recorded as an orphan.
 *   - The launcher's own processes (the namespace-setup process and the pid-namespace init) are
 *     not part of the build: proc_resolve() returns PROC_LAUNCHER (-1) for them.  Setup forks
 *     the init first and the build's root second (launcher/ns.h); processes the build leaves
 *     behind are reparented to the init, and recorded as orphans if first seen there.
 *
 * Caller contract: call proc_resolve() while the caller of the FUSE request is blocked in it
 * (its /proc entries are then guaranteed to exist and be its own).
 *
 * Locking: table_lock protects the task and image tables and the id counter.  /proc is read
 * without the lock held; a racing first sighting is settled under the lock (first insert wins).
 * A new image's row is queued (rec_add_process) with table_lock held, so that rows reach the
 * trace in id order; when the recorder's queue is full that call waits for the writer thread,
 * which never takes table_lock: other resolvers stall behind it (backpressure), nothing
 * deadlocks.  No other recorder call is made under table_lock.  Images are reference-counted
 * under table_lock and freed when the last table lets go of one: code that uses an image after
 * dropping the lock (resolve_process while it reads /proc) holds a reference of its own.
 *
 * Implementation: proc.c (the table, proc_resolve), proc-lifecycle.c (the process events
 * applied), procfs.c (reading /proc); proc-internal.h says what they share and the lock order.
 */
#pragma once

#include "procevents.h"
#include "recorder.h"

#include <stdint.h>
#include <sys/types.h>

struct proc_table;

struct proc_table *proc_table_new(struct rec *rec);
void proc_table_free(struct proc_table *t);

/* The launcher's processes, by pid in our namespace: `setup` (the namespace-setup process, the
 * parent of the build's root) and `init` (pid 1 of the build's pid namespace, the parent of
 * the build's orphans).  `init` may be 0 while not yet known (events tell it too). */
void proc_table_set_launcher(struct proc_table *t, pid_t setup, pid_t init);

#define PROC_LAUNCHER (-1)

/* The process-image id of the process the thread `tid` belongs to, recording it (and its
 * ancestors) on first sight.  PROC_LAUNCHER: the launcher's own setup or init process (not
 * part of the build, not recorded).  0: unknown (gone before it could be read, or not below
 * the launcher's init).  Blocks until proc_table_set_launcher() has named the init. */
int64_t proc_resolve(struct proc_table *t, pid_t tid);

/* Subscribe to the kernel's process events (needs root; call before the build is spawned).
 * 0, or -errno and the table stays in /proc-only mode.  With events, fork/exec/exit are exact:
 * every request is attributed after applying all events queued before it, exits are recorded,
 * processes that never touch a traced file are in the trace, and orphans keep their parent. */
int proc_table_enable_events(struct proc_table *t);

/* Stop the event thread after the build has ended and apply the last events.  The kernel
 * reports an exit only after the parent could reap the process, so the build can end before
 * the last exits are reported: wait up to `grace_ms` for every exit still owed (a build
 * process that left the build's namespaces may never send one; the tree note then says how
 * many are missing). */
void proc_table_stop_events(struct proc_table *t, int grace_ms);

/* Apply one process event as the event thread would: for tests that script an event sequence
 * (the event thread's own events must not concern the same pids, but for an event fed by hand
 * in place of one the kernel will not send again). */
void proc_table_apply_event(struct proc_table *t, const struct procev_event *ev);

/* The most process images the table held at once.  An image is held while it is live, its
 * task current, an exec open of its process outstanding, or its exit owed: this follows the
 * build's concurrency, not its length (runs.notes daemon_peak_images). */
unsigned proc_table_peak_images(struct proc_table *t);

/* How complete the recorded process tree is, as a sentence for runs.process_tree. */
char *proc_table_tree_note(struct proc_table *t);

/* Exec opens.  An exec open is attributed to the program it starts, once the exec has
 * completed: proc_exec_hold() when process `tgid` opens a file for exec (before the open's
 * time is taken), proc_exec_release() when that handle is released.  While a process has an
 * exec open outstanding the images its execs start are kept for proc_image_after(); with none,
 * they are not (no open made before them can ask). */
void proc_exec_hold(struct proc_table *t, pid_t tgid);
void proc_exec_release(struct proc_table *t, pid_t tgid);

/* The image that the first exec of process `tgid` at or after `since_ns` started (0 if none
 * seen), for an exec open it holds. */
int64_t proc_image_after(struct proc_table *t, pid_t tgid, int64_t since_ns);

/* The process (thread group id) of task `tid`, which is blocked in a request (a non-main
 * thread that execs takes over this pid); `tid` itself if it cannot be told. */
pid_t proc_task_tgid(struct proc_table *t, pid_t tid);

/* The pid of the build's root process, once seen (0 before). */
pid_t proc_table_root_pid(struct proc_table *t);

/* The id of the build's root process image, once seen (0 before). */
int64_t proc_table_root_id(struct proc_table *t);

/* What proc reads from /proc/PID/stat. */
struct proc_stat {
    char comm[64];                  /* the command name (up to 15 bytes, ')' and spaces kept) */
    pid_t ppid;
    unsigned long long start_ticks; /* field 22 */
    /* Fields 26, 48, 49: start_code, arg_start, arg_end.  Every exec builds a new memory layout
     * (and ASLR moves it), so a change here is an exec even when comm, exe and argv are the
     * same; all 0 when the kernel hides them. */
    unsigned long long layout[3];
};

/* Parse the contents of /proc/PID/stat.  Returns 0 or -EINVAL.  Exposed for tests/fuzzing. */
int proc_parse_stat(const char *buf, size_t len, struct proc_stat *out);

/* Environments and argv are recorded with each image (read at exec from /proc/PID/environ and
 * cmdline) as capture/redact.h leaves them: the values of secret-looking variables, of the
 * variables whose names match a pattern added here, of the argument options added here, and
 * URL credentials are dropped before anything is queued.  Added before the build starts. */
void proc_table_add_env_redact(struct proc_table *t, const char *pattern);
void proc_table_add_argv_redact(struct proc_table *t, const char *option);
