/* proc-lifecycle — fork, exec and exit applied to the process table from the kernel's process
 * events (read by procevents.c), the thread that applies them, and how complete the tree is;
 * see proc.h for the contract, proc-internal.h for what the table's files share. */
#include "proc-internal.h"

#include "procfs.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* An exit event still owed for a tid that was reused (see exits_due). */
struct owed_exit {
    pid_t tgid;
    struct proc_image *img; /* a reference; NULL: a thread's exit, nothing to record */
};

static void proc_owed_exit_free(gpointer p)
{
    struct owed_exit *o = p;
    proc_image_unref(o->img);
    g_free(o);
}

/* A GDestroyNotify for exits_due's queues. */
void proc_owed_queue_free(gpointer q)
{
    g_queue_free_full(q, proc_owed_exit_free);
}

int proc_table_enable_events(struct proc_table *t)
{
    return procev_open(&t->events);
}

/* An ended process's program and arguments are in the trace and nothing here reads them
 * again (a fork copies a live parent's; only /proc mode, which has no exits, compares them):
 * dropped, so that what the daemon holds per ended process is a small fixed record. */
static void forget_program(struct proc_image *img)
{
    g_free(img->exe);
    img->exe = NULL;
    g_free(img->argv);
    img->argv = NULL;
    img->argv_len = 0;
}

/* Process image `img` has ended (table_lock held): its task is no longer current. */
static void image_ended(struct proc_table *t, struct proc_image *img)
{
    forget_program(img);
    if (g_hash_table_lookup(t->images, GINT_TO_POINTER(img->pid)) == img)
        g_hash_table_remove(t->images, GINT_TO_POINTER(img->pid));
}

/* Make, record and register the image an event announced (table_lock held). */
static struct proc_image *emit_event_image(struct proc_table *t, pid_t tgid,
                                           unsigned long long start_ticks, int64_t parent_id,
                                           struct proc_image *prev, const char *comm, char *exe,
                                           char *argv, size_t argv_len, const char *cwd,
                                           int64_t env_id, int64_t start_ns)
{
    struct rec_process rp = {
        .env_id = env_id,
        .parent_id = parent_id,
        .pid = tgid,
        .start_ticks = start_ticks,
        .start_ns = start_ns,
        .comm = comm,
        .cwd = cwd,
        .argv_len = argv_len,
    };
    struct proc_image *img = proc_image_add(t, &rp, prev, start_ns, exe, argv);
    if (prev && (prev->threads || prev->leader_exited)) {
        /* An exec leaves one thread, with the process's pid (a non-leader thread that execs
         * takes it over; the kernel reports no exit for its old tid). */
        GHashTableIter it;
        gpointer tid, tg;
        g_hash_table_iter_init(&it, t->live_tasks);
        while (g_hash_table_iter_next(&it, &tid, &tg))
            if (GPOINTER_TO_INT(tg) == tgid && GPOINTER_TO_INT(tid) != tgid)
                g_hash_table_iter_remove(&it);
    }
    g_hash_table_replace(t->live, GINT_TO_POINTER(tgid), proc_image_ref(img));
    g_hash_table_replace(t->live_tasks, GINT_TO_POINTER(tgid), GINT_TO_POINTER(tgid));
    if (start_ticks)
        proc_image_set_current(t, img);
    return img;
}

/* Whether process `tgid` (whose main thread has exited) still runs as the image `img`: after a
 * non-main thread's exec killed the main thread, the exec'ing thread carries on as the process
 * (same pid, same start time, a memory map); when the main thread merely exited first, /proc
 * shows it as a zombie without one.  Reads /proc/TGID/stat, which takes no lock of the target,
 * under table_lock: only for this rare case. */
static bool still_runs(pid_t tgid, const struct proc_image *img)
{
    struct proc_stat si;
    return procfs_read_stat(tgid, &si) == 0 && si.start_ticks == img->start_ticks &&
           procfs_layout_known(si.layout);
}

/* Owe the next exit of `tid` in thread group `tgid` to `img` (a reference, or NULL: a
 * thread's exit, nothing to record) (table_lock held). */
static void owe_exit(struct proc_table *t, pid_t tid, pid_t tgid, struct proc_image *img)
{
    GQueue *q = g_hash_table_lookup(t->exits_due, GINT_TO_POINTER(tid));
    if (!q) {
        q = g_queue_new();
        g_hash_table_insert(t->exits_due, GINT_TO_POINTER(tid), q);
    }
    struct owed_exit *o = g_new(struct owed_exit, 1);
    o->tgid = tgid;
    o->img = img;
    g_queue_push_tail(q, o);
}

/* Live process `tgid` (image `img`) has ended and been reaped, but the exits of its tasks
 * still in live_tasks are not reported yet: each of them is owed to it, and the last one to
 * come is the process's (exit_group() gives every thread the same status).  Its pid is free
 * for another task from here on (table_lock held). */
static void set_process_aside(struct proc_table *t, pid_t tgid, struct proc_image *img)
{
    unsigned owed = 0;
    GHashTableIter it;
    gpointer tid, tg;
    g_hash_table_iter_init(&it, t->live_tasks);
    while (g_hash_table_iter_next(&it, &tid, &tg)) {
        if (GPOINTER_TO_INT(tg) != tgid)
            continue;
        owe_exit(t, GPOINTER_TO_INT(tid), tgid, proc_image_ref(img));
        g_hash_table_iter_remove(&it);
        owed++;
    }
    if (owed) {
        img->threads = owed; /* from here on: the exits it still waits for */
        img->leader_exited = true;
        t->due_images++;
    } else {
        image_ended(t, img); /* no task of it left to report its end: unknown */
    }
    g_hash_table_remove(t->live, GINT_TO_POINTER(tgid));
}

/* A fork reports task `tid`.  If the table still has a task with that id as live, that earlier
 * task has ended and been reaped, but its exit is not reported yet; if it has a live process
 * with that pid whose main thread's exit was reported, that process has ended, with the exits
 * of its other threads still to come.  Either is set aside so that their exits, when they
 * come, are credited to them and not to the new task (table_lock held). */
static void settle_reused_tid(struct proc_table *t, pid_t tid)
{
    gpointer tg;
    if (!g_hash_table_lookup_extended(t->live_tasks, GINT_TO_POINTER(tid), NULL, &tg)) {
        struct proc_image *img = g_hash_table_lookup(t->live, GINT_TO_POINTER(tid));
        if (img)
            set_process_aside(t, tid, img);
        return;
    }
    struct proc_image *img = g_hash_table_lookup(t->live, tg);
    if (img && GPOINTER_TO_INT(tg) == tid) { /* the main thread's: the whole process ended */
        set_process_aside(t, tid, img);
        return;
    }
    g_hash_table_remove(t->live_tasks, GINT_TO_POINTER(tid));
    if (img) { /* a thread */
        if (img->threads)
            img->threads--;
        /* A thread that exec'd took over the process's pid and gave up its own tid without
         * an exit: nothing is owed for it (the exec event is still to come). */
        if (img->leader_exited && still_runs(GPOINTER_TO_INT(tg), img))
            return;
        if (img->leader_exited && !img->threads) {
            /* It was the last thread of the process: its late exit is the process's. */
            owe_exit(t, tid, GPOINTER_TO_INT(tg), proc_image_ref(img));
            img->threads = 1;
            t->due_images++;
            g_hash_table_remove(t->live, tg);
            return;
        }
    }
    owe_exit(t, tid, GPOINTER_TO_INT(tg), NULL);
}

static void apply_fork(struct proc_table *t, const struct procev_event *ev)
{
    pthread_mutex_lock(&t->table_lock);
    gpointer tg;
    if (g_hash_table_lookup_extended(t->attached_unsure, GINT_TO_POINTER(ev->pid), NULL, &tg)) {
        g_hash_table_remove(t->attached_unsure, GINT_TO_POINTER(ev->pid));
        if (GPOINTER_TO_INT(tg) == ev->tgid &&
            g_hash_table_lookup(t->live_tasks, GINT_TO_POINTER(ev->pid)) == tg) {
            pthread_mutex_unlock(&t->table_lock); /* proc_attach_live counted it already */
            return;
        }
    }
    settle_reused_tid(t, ev->pid);
    if (ev->pid != ev->tgid) { /* a new thread (io_uring workers too): belongs to its process */
        struct proc_image *img = g_hash_table_lookup(t->live, GINT_TO_POINTER(ev->tgid));
        if (img) {
            g_hash_table_replace(t->live_tasks, GINT_TO_POINTER(ev->pid), GINT_TO_POINTER(ev->tgid));
            img->threads++;
        }
        pthread_mutex_unlock(&t->table_lock);
        return;
    }
    if (ev->parent_tgid == t->setup_pid) {
        /* Setup forks twice: the namespace's init, then the build's command (still the
         * launcher's code until it execs: recorded at exec).  A later fork "by setup" is by
         * another process that got setup's pid after the build ended.  Setup also reports
         * init's pid over its socket, which the daemon may read before this event is applied:
         * the fork of a known init is init's, never the root's (unit/proctable
         * init-known-before-its-fork: the whole tree was lost so, the trace "complete"). */
        if (!t->init_pid || ev->tgid == t->init_pid) {
            t->init_pid = ev->pid;
            pthread_cond_broadcast(&t->launcher_known);
        } else if (!t->root_forked) {
            t->pending_root = ev->tgid;
            t->root_forked = true;
        }
        pthread_mutex_unlock(&t->table_lock);
        return;
    }
    if (t->init_pid && ev->parent_tgid == t->init_pid) {
        /* Init forks nothing: another process that got init's pid after the build ended. */
        pthread_mutex_unlock(&t->table_lock);
        return;
    }
    struct proc_image *parent = g_hash_table_lookup(t->live, GINT_TO_POINTER(ev->parent_tgid));
    if (!parent) {
        pthread_mutex_unlock(&t->table_lock);
        return; /* not part of the build */
    }
    /* The child runs its parent's program until it execs: same argv and exe. */
    char *argv = parent->argv ? g_memdup2(parent->argv, parent->argv_len) : NULL;
    size_t argv_len = parent->argv_len;
    char *exe = g_strdup(parent->exe);
    char comm[64];
    g_strlcpy(comm, parent->comm, sizeof comm);
    int64_t parent_id = parent->id, env_id = parent->env_id;
    pthread_mutex_unlock(&t->table_lock);

    struct proc_stat si = {0};
    procfs_read_stat(ev->pid, &si); /* best effort: it may be gone already */
    g_autofree char *cwd = procfs_read_link(ev->pid, "cwd");
    pthread_mutex_lock(&t->table_lock);
    emit_event_image(t, ev->tgid, si.start_ticks, parent_id, NULL, comm, exe, argv, argv_len, cwd,
                     env_id, ev->time_ns);
    pthread_mutex_unlock(&t->table_lock);
}

static void apply_exec(struct proc_table *t, const struct procev_event *ev)
{
    pthread_mutex_lock(&t->table_lock);
    struct proc_image *prev = g_hash_table_lookup(t->live, GINT_TO_POINTER(ev->tgid));
    bool is_root = !prev && t->pending_root == ev->tgid;
    pthread_mutex_unlock(&t->table_lock);
    if (!prev && !is_root)
        return;
    /* The exec has completed (the connector reports it after the point of no return), so
     * /proc shows the new image; it may already have exited (then what /proc still says). */
    struct proc_stat si = {0};
    procfs_read_stat(ev->tgid, &si);
    char *exe = procfs_read_link(ev->tgid, "exe");
    char *argv = NULL;
    size_t argv_len = proc_read_argv(t, ev->tgid, &argv);
    g_autofree char *cwd = procfs_read_link(ev->tgid, "cwd");
    int64_t env_id = proc_read_env_id(t, ev->tgid);
    pthread_mutex_lock(&t->table_lock);
    prev = g_hash_table_lookup(t->live, GINT_TO_POINTER(ev->tgid));
    if (prev)
        proc_image_ref(prev); /* the new image replaces it in the tables */
    if (prev && prev->start_ticks && si.start_ticks != prev->start_ticks) {
        /* The task ended and its pid went to another before we read /proc: what we read is
         * not this image's.  Record the exec without it rather than with another's argv. */
        g_clear_pointer(&exe, g_free);
        g_clear_pointer(&argv, g_free);
        g_clear_pointer(&cwd, g_free);
        env_id = 0;
        argv_len = 0;
        si.comm[0] = '\0';
        si.start_ticks = prev->start_ticks;
    }
    struct proc_image *img = emit_event_image(t, ev->tgid, si.start_ticks,
                                              prev ? prev->parent_id : 0, prev, si.comm, exe,
                                              argv, (size_t)argv_len, cwd, env_id, ev->time_ns);
    proc_image_note_exec(t, ev->tgid, img); /* the exec'ing thread has the tgid now */
    if (prev) {
        forget_program(prev); /* replaced: only its id and times are needed now */
        proc_image_unref(prev);
    }
    if (is_root) {
        t->pending_root = 0;
        t->root_id = img->id;
        t->root_pid = ev->tgid;
    }
    pthread_mutex_unlock(&t->table_lock);
}

/* The wait status of process `img`, ended by the exit `ev` of its last task: the main
 * thread's if that is not 0 (a process that returns 3 from main after joining its threads: the
 * threads' own exits say 0, and may be reported after the main thread's), else the last
 * task's (exit_group() from another thread after the main one's pthread_exit(): every thread
 * then says the group's status). */
static int process_status(const struct proc_image *img, const struct procev_event *ev)
{
    return img->leader_code ? img->leader_code : ev->exit_code;
}

static void apply_exit(struct proc_table *t, const struct procev_event *ev)
{
    pthread_mutex_lock(&t->table_lock);
    GQueue *due = g_hash_table_lookup(t->exits_due, GINT_TO_POINTER(ev->pid));
    GList *owed = NULL;
    for (GList *l = due ? due->head : NULL; l && !owed; l = l->next)
        if (((struct owed_exit *)l->data)->tgid == ev->tgid)
            owed = l;
    if (owed) { /* the exit of an earlier task with this tid (settle_reused_tid) */
        struct owed_exit *o = owed->data;
        if (o->img && o->img->threads)
            o->img->threads--; /* a set-aside image counts the exits it still waits for */
        if (o->img && ev->pid == ev->tgid)
            o->img->leader_code = ev->exit_code;
        if (o->img && !o->img->threads) {
            rec_add_exit(t->rec, o->img->id, ev->time_ns, process_status(o->img, ev));
            image_ended(t, o->img);
            t->due_images--;
        }
        proc_owed_exit_free(o);
        g_queue_delete_link(due, owed);
        if (g_queue_is_empty(due))
            g_hash_table_remove(t->exits_due, GINT_TO_POINTER(ev->pid));
        pthread_mutex_unlock(&t->table_lock);
        return;
    }
    gpointer tg;
    bool was_live = g_hash_table_lookup_extended(t->live_tasks, GINT_TO_POINTER(ev->pid), NULL, &tg);
    g_hash_table_remove(t->live_tasks, GINT_TO_POINTER(ev->pid));
    struct proc_image *img = g_hash_table_lookup(t->live, GINT_TO_POINTER(ev->tgid));
    if (ev->pid == ev->tgid) {
        if (img) {
            img->leader_exited = true;
            img->leader_code = ev->exit_code;
        }
        if (t->pending_root == ev->tgid)
            t->pending_root = 0;
    } else if (img && was_live && GPOINTER_TO_INT(tg) == ev->tgid && img->threads) {
        img->threads--;
    }
    /* The process has ended when its leader and all its other threads have: its last exit
     * (exit_group() gives every thread the same status) is the process's. */
    if (img && img->leader_exited && !img->threads) {
        rec_add_exit(t->rec, img->id, ev->time_ns, process_status(img, ev));
        image_ended(t, img);
        g_hash_table_remove(t->live, GINT_TO_POINTER(ev->tgid)); /* may free it */
    }
    pthread_mutex_unlock(&t->table_lock);
}

void proc_table_apply_event(struct proc_table *t, const struct procev_event *ev)
{
    switch (ev->type) {
    case PROCEV_FORK:
        apply_fork(t, ev);
        break;
    case PROCEV_EXEC:
        apply_exec(t, ev);
        break;
    case PROCEV_EXIT:
        apply_exit(t, ev);
        break;
    }
}

static void apply_event(void *ctx, const struct procev_event *ev)
{
    proc_table_apply_event(ctx, ev);
}

/* Apply every event queued so far.  Called before attributing a request: whatever happened
 * before the request (its caller's fork, exec) is then in the table. */
void proc_drain_events(struct proc_table *t)
{
    pthread_mutex_lock(&t->events_lock);
    int r = procev_drain(t->events, apply_event, t);
    pthread_mutex_lock(&t->table_lock);
    if (g_hash_table_size(t->attached_unsure))
        g_hash_table_remove_all(t->attached_unsure); /* their forks, if queued, are applied */
    if (r < 0)
        t->events_lost = true;
    pthread_mutex_unlock(&t->table_lock);
    pthread_mutex_unlock(&t->events_lock);
}

static void *event_thread_main(void *arg);

void proc_event_thread_start(struct proc_table *t)
{
    if (t->events && !t->event_thread_started && pipe2(t->stop_pipe, O_CLOEXEC) == 0) {
        if (pthread_create(&t->event_thread, NULL, event_thread_main, t) == 0)
            t->event_thread_started = true;
    }
}

static void *event_thread_main(void *arg)
{
    struct proc_table *t = arg;
    struct pollfd pfd[2] = {{procev_fd(t->events), POLLIN, 0}, {t->stop_pipe[0], POLLIN, 0}};
    for (;;) {
        if (poll(pfd, 2, -1) < 0 && errno != EINTR)
            break;
        if (pfd[1].revents)
            break;
        if (pfd[0].revents)
            proc_drain_events(t);
    }
    return NULL;
}

/* Exits still owed: build processes whose exit has not been reported (table_lock held). */
static unsigned exits_owed(struct proc_table *t)
{
    return g_hash_table_size(t->live) + t->due_images;
}

void proc_table_stop_events(struct proc_table *t, int grace_ms)
{
    bool started = t->event_thread_started;
    if (started) {
        ssize_t n = write(t->stop_pipe[1], "x", 1);
        (void)n;
        pthread_join(t->event_thread, NULL);
        t->event_thread_started = false;
    }
    for (int i = 0; i < 2; i++)
        if (t->stop_pipe[i] >= 0) {
            close(t->stop_pipe[i]);
            t->stop_pipe[i] = -1;
        }
    if (!started)
        return;
    /* The last exits: a parent can reap a child (and so the build can end) before the kernel
     * has reported the child's exit, so wait a little for any that are still owed. */
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        proc_drain_events(t);
        pthread_mutex_lock(&t->table_lock);
        unsigned owed = t->events_lost ? 0 : exits_owed(t);
        t->exits_missing = owed;
        pthread_mutex_unlock(&t->table_lock);
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        int64_t left_ns = (int64_t)grace_ms * 1000000 - ((int64_t)(now.tv_sec - start.tv_sec) *
                                                         1000000000 + (now.tv_nsec - start.tv_nsec));
        if (!owed || left_ns <= 0)
            break;
        int left = (int)((left_ns + 999999) / 1000000); /* poll() rounds down: round up */
        struct pollfd pfd = {procev_fd(t->events), POLLIN, 0};
        if (poll(&pfd, 1, left) < 0 && errno != EINTR)
            break;
    }
}

char *proc_table_tree_note(struct proc_table *t)
{
    pthread_mutex_lock(&t->table_lock);
    bool lost = t->events_lost;
    unsigned missing = t->exits_missing, reattached = t->reattached;
    pthread_mutex_unlock(&t->table_lock);
    if (!t->events)
        return g_strdup("partial: no process events (the connector needs root, or Linux 6.6+ "
                        "for other users); processes that touched no traced file are missing and "
                        "exits are not recorded");
    if (lost)
        return g_strdup_printf("incomplete: the kernel dropped process events under load; "
                               "processes were completed from /proc where they touched traced "
                               "files (%u found so, and followed by events from then on)",
                               reattached);
    if (missing)
        return g_strdup_printf("complete, except the exit%s of %u process%s: not reported by "
                               "the end of the run", missing == 1 ? "" : "s", missing,
                               missing == 1 ? "" : "es");
    return g_strdup("complete");
}

pid_t proc_task_tgid(struct proc_table *t, pid_t tid)
{
    pthread_mutex_lock(&t->table_lock);
    pid_t tgid = GPOINTER_TO_INT(g_hash_table_lookup(t->live_tasks, GINT_TO_POINTER(tid)));
    if (!tgid) {
        struct proc_task *task = g_hash_table_lookup(t->tasks, GINT_TO_POINTER(tid));
        if (task && task->image)
            tgid = task->image->pid;
    }
    pthread_mutex_unlock(&t->table_lock);
    if (!tgid) /* the launcher, or lost events: the caller is blocked, /proc is its own */
        tgid = procfs_status_field(tid, "Tgid");
    return tgid > 0 ? tgid : tid;
}

/* A build process that events never reported (they were dropped: ENOBUFS) was found from /proc
 * as `img`: make it live, with its threads `tids` (its main thread among them unless it has
 * exited), so that its forks, execs and exit are applied from the events that come after
 * (without this its children would be ignored and it would be held to the end).  A thread
 * made after the request's drain has its fork event still queued: noted, so that it is not
 * counted twice.  Nothing to do if events know it already (events_lock and table_lock held). */
void proc_attach_live(struct proc_table *t, pid_t tgid, struct proc_image *img,
                      const GArray *tids, bool leader_exited)
{
    if (g_hash_table_contains(t->live, GINT_TO_POINTER(tgid)))
        return;
    g_hash_table_replace(t->live, GINT_TO_POINTER(tgid), proc_image_ref(img));
    img->threads = 0;
    img->leader_exited = leader_exited;
    for (guint i = 0; i < tids->len; i++) {
        pid_t tid = g_array_index(tids, pid_t, i);
        if ((tid == tgid && leader_exited) || g_hash_table_contains(t->live_tasks, GINT_TO_POINTER(tid)))
            continue;
        g_hash_table_replace(t->live_tasks, GINT_TO_POINTER(tid), GINT_TO_POINTER(tgid));
        g_hash_table_replace(t->attached_unsure, GINT_TO_POINTER(tid), GINT_TO_POINTER(tgid));
        if (tid != tgid)
            img->threads++;
    }
    t->reattached++;
}
