/* proc — the process table and who a caller is; see proc.h for the contract and the identity
 * model, proc-internal.h for how the table's files share it. */
#include "proc-internal.h"

#include "procfs.h"
#include "redact.h"

#include <errno.h>
#include <glib.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_ANCESTRY 1024

/* Take a reference to `img` (table_lock held). */
struct proc_image *proc_image_ref(struct proc_image *img)
{
    img->refs++;
    return img;
}

/* Drop a reference (table_lock held; a GDestroyNotify for the tables holding them); the last
 * one frees the image, and with it its reference to the image its tid's previous exec
 * started. */
void proc_image_unref(gpointer p)
{
    struct proc_image *img = p;
    while (img && --img->refs == 0) {
        struct proc_image *earlier = img->earlier_exec;
        img->table->images_held--;
        g_free(img->exe);
        g_free(img->argv);
        g_free(img);
        img = earlier;
    }
}

static void free_exec_watch(gpointer p)
{
    struct exec_watch *w = p;
    proc_image_unref(w->head);
    g_free(w);
}

static void free_task(gpointer p)
{
    struct proc_task *task = p;
    proc_image_unref(task->image);
    g_free(task);
}

struct proc_table *proc_table_new(struct rec *rec)
{
    struct proc_table *t = g_new0(struct proc_table, 1);
    t->rec = rec;
    long hz = sysconf(_SC_CLK_TCK);
    t->ns_per_tick = hz > 0 ? 1000000000L / hz : 10000000L;
    pthread_mutex_init(&t->table_lock, NULL);
    pthread_cond_init(&t->launcher_known, NULL);
    t->tasks = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, free_task);
    t->images = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, proc_image_unref);
    t->next_id = 1;
    t->exec_images = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, free_exec_watch);
    t->live = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, proc_image_unref);
    t->live_tasks = g_hash_table_new(g_direct_hash, g_direct_equal);
    t->attached_unsure = g_hash_table_new(g_direct_hash, g_direct_equal);
    t->exits_due = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, proc_owed_queue_free);
    pthread_mutex_init(&t->events_lock, NULL);
    t->stop_pipe[0] = t->stop_pipe[1] = -1;
    t->env_redact = g_new0(char *, 1);
    t->argv_redact = g_new0(char *, 1);
    return t;
}

static void strv_add(char ***v, const char *s)
{
    guint n = g_strv_length(*v);
    *v = g_renew(char *, *v, n + 2);
    (*v)[n] = g_strdup(s);
    (*v)[n + 1] = NULL;
}

void proc_table_add_env_redact(struct proc_table *t, const char *pattern)
{
    strv_add(&t->env_redact, pattern);
}

void proc_table_add_argv_redact(struct proc_table *t, const char *option)
{
    strv_add(&t->argv_redact, option);
}

void proc_table_free(struct proc_table *t)
{
    if (!t)
        return;
    proc_table_stop_events(t, 0);
    procev_close(t->events);
    g_strfreev(t->env_redact);
    g_strfreev(t->argv_redact);
    g_hash_table_destroy(t->exec_images);
    g_hash_table_destroy(t->live);
    g_hash_table_destroy(t->live_tasks);
    g_hash_table_destroy(t->attached_unsure);
    g_hash_table_destroy(t->exits_due);
    pthread_mutex_destroy(&t->events_lock);
    g_hash_table_destroy(t->tasks);
    g_hash_table_destroy(t->images);
    pthread_mutex_destroy(&t->table_lock);
    pthread_cond_destroy(&t->launcher_known);
    g_free(t);
}

void proc_table_set_launcher(struct proc_table *t, pid_t setup, pid_t init)
{
    pthread_mutex_lock(&t->table_lock);
    t->setup_pid = setup;
    if (init)
        t->init_pid = init;
    if (t->init_pid)
        pthread_cond_broadcast(&t->launcher_known);
    pthread_mutex_unlock(&t->table_lock);
    /* Events queued since the subscription can be classified now that setup is known. */
    if (setup)
        proc_event_thread_start(t);
}

pid_t proc_table_root_pid(struct proc_table *t)
{
    pthread_mutex_lock(&t->table_lock);
    pid_t p = t->root_pid;
    pthread_mutex_unlock(&t->table_lock);
    return p;
}

int64_t proc_table_root_id(struct proc_table *t)
{
    pthread_mutex_lock(&t->table_lock);
    int64_t id = t->root_id;
    pthread_mutex_unlock(&t->table_lock);
    return id;
}

unsigned proc_table_peak_images(struct proc_table *t)
{
    pthread_mutex_lock(&t->table_lock);
    unsigned n = t->images_peak;
    pthread_mutex_unlock(&t->table_lock);
    return n;
}

/* The environment process `pid` was started with (/proc/PID/environ), redacted, as an id
 * (0 when it cannot be read: a setuid program, a process already gone). */
int64_t proc_read_env_id(struct proc_table *t, pid_t pid)
{
    char *env = NULL;
    ssize_t n = procfs_read(pid, "environ", &env);
    int64_t id = 0;
    if (n >= 0) {
        size_t len;
        g_autofree char *kept = redact_env(env, (size_t)n, t->env_redact, &len);
        id = rec_env_id(t->rec, kept, len);
    }
    g_free(env);
    return id;
}

/* The arguments process `pid` runs with (/proc/PID/cmdline), redacted: their length, and
 * *out (g_malloc'd; NULL when they cannot be read, length 0). */
size_t proc_read_argv(struct proc_table *t, pid_t pid, char **out)
{
    char *argv = NULL;
    ssize_t n = procfs_read(pid, "cmdline", &argv);
    *out = NULL;
    if (n <= 0) {
        g_free(argv);
        return 0;
    }
    size_t len;
    *out = redact_argv(argv, (size_t)n, t->argv_redact, &len);
    g_free(argv);
    return len;
}

/* The recorded current image of task (pid, start), or NULL (table_lock held). */
static struct proc_image *current_image(struct proc_table *t, pid_t pid,
                                        unsigned long long start)
{
    struct proc_image *img = g_hash_table_lookup(t->images, GINT_TO_POINTER(pid));
    return img && img->start_ticks == start ? img : NULL;
}

/* `img` is now the current image of its task (table_lock held): an earlier task with its pid
 * has ended, and an image it replaces by exec is no longer current. */
void proc_image_set_current(struct proc_table *t, struct proc_image *img)
{
    g_hash_table_replace(t->images, GINT_TO_POINTER(img->pid), proc_image_ref(img));
}

static int64_t resolve_process(struct proc_table *t, pid_t pid, const struct proc_stat *si,
                               int depth);

/* Make an image from the process row `rp` describes and queue the row (table_lock held); the
 * caller files it (it has no reference yet).  Fills in rp's id, exec_seq, prev_image_id and
 * first_seen_ns; takes exe and argv. */
struct proc_image *proc_image_add(struct proc_table *t, struct rec_process *rp,
                                  struct proc_image *prev, int64_t began_ns, char *exe,
                                  char *argv)
{
    struct proc_image *img = g_new0(struct proc_image, 1);
    img->table = t;
    if (++t->images_held > t->images_peak)
        t->images_peak = t->images_held;
    img->id = rp->id = t->next_id++;
    img->parent_id = rp->parent_id;
    img->pid = rp->pid;
    img->start_ticks = rp->start_ticks;
    img->exec_seq = rp->exec_seq = prev ? prev->exec_seq + 1 : 0;
    g_strlcpy(img->comm, rp->comm ? rp->comm : "", sizeof img->comm);
    img->exe = exe;
    img->argv = argv;
    img->argv_len = rp->argv_len;
    img->env_id = rp->env_id;
    img->began_ns = began_ns;
    rp->prev_image_id = prev ? prev->id : 0;
    rp->first_seen_ns = rec_now_ns();
    rp->comm = img->comm;
    rp->exe = img->exe;
    rp->argv = img->argv;
    /* The recorder copies; the image's strings live until it ends (forget_program).  Queued
     * under the lock, so that images reach the trace in id order. */
    rec_add_process(t->rec, rp);
    return img;
}


/* `img` was started by an exec of process `tgid` (table_lock held): kept for the exec opens
 * still open, if any (none: no open made before this exec can ask about it). */
void proc_image_note_exec(struct proc_table *t, pid_t tgid, struct proc_image *img)
{
    struct exec_watch *w = g_hash_table_lookup(t->exec_images, GINT_TO_POINTER(tgid));
    if (!w)
        return;
    img->earlier_exec = w->head; /* the watch's reference passes to the newer image */
    w->head = proc_image_ref(img);
}

void proc_exec_hold(struct proc_table *t, pid_t tgid)
{
    pthread_mutex_lock(&t->table_lock);
    struct exec_watch *w = g_hash_table_lookup(t->exec_images, GINT_TO_POINTER(tgid));
    if (!w) {
        w = g_new0(struct exec_watch, 1);
        g_hash_table_insert(t->exec_images, GINT_TO_POINTER(tgid), w);
    }
    w->holds++;
    pthread_mutex_unlock(&t->table_lock);
}

void proc_exec_release(struct proc_table *t, pid_t tgid)
{
    pthread_mutex_lock(&t->table_lock);
    struct exec_watch *w = g_hash_table_lookup(t->exec_images, GINT_TO_POINTER(tgid));
    if (w && --w->holds == 0)
        g_hash_table_remove(t->exec_images, GINT_TO_POINTER(tgid));
    pthread_mutex_unlock(&t->table_lock);
}
int64_t proc_image_after(struct proc_table *t, pid_t tid, int64_t since_ns)
{
    if (t->events)
        proc_drain_events(t); /* the exec may have completed since the last request */
    pthread_mutex_lock(&t->table_lock);
    /* The first exec after the open used the file; later ones (sh -c 'exec cc', a wrapper)
     * came after it. */
    int64_t id = 0;
    struct exec_watch *w = g_hash_table_lookup(t->exec_images, GINT_TO_POINTER(tid));
    for (struct proc_image *img = w ? w->head : NULL; img && img->began_ns >= since_ns;
         img = img->earlier_exec)
        id = img->id;
    pthread_mutex_unlock(&t->table_lock);
    return id;
}

/* Record a new image of (pid, si) with the given parent/prev; returns its id.  `superseded`
 * is the image now current for this key that the new one replaces (prev for an exec, a stale
 * one for a reused pid, NULL for a first sighting); if another thread recorded the task
 * meanwhile, returns that one instead. */
static int64_t record_image(struct proc_table *t, pid_t pid, const struct proc_stat *si,
                            int64_t parent_id, bool orphan, bool is_root,
                            struct proc_image *prev, struct proc_image *superseded, char *exe,
                            char *argv, size_t argv_len)
{
    g_autofree char *cwd = procfs_read_link(pid, "cwd");
    struct rec_process rp = {0};
    rp.env_id = proc_read_env_id(t, pid);

    pthread_mutex_lock(&t->table_lock);
    struct proc_image *cur = current_image(t, pid, si->start_ticks);
    if (cur && cur != superseded) {
        /* Someone else got here first (first sighting, or the same exec). */
        int64_t id = cur->id;
        pthread_mutex_unlock(&t->table_lock);
        g_free(exe);
        g_free(argv);
        return id;
    }
    rp.pid = pid;
    rp.parent_id = parent_id;
    rp.orphan = orphan;
    rp.start_ticks = si->start_ticks;
    rp.start_ns = (int64_t)si->start_ticks * t->ns_per_tick;
    rp.comm = si->comm;
    rp.cwd = cwd;
    rp.argv_len = argv_len;
    struct proc_image *img = proc_image_add(t, &rp, prev, rec_now_ns(), exe, argv);
    img->ppid = si->ppid;
    memcpy(img->layout, si->layout, sizeof img->layout);
    proc_image_set_current(t, img);
    if (prev || is_root) /* the exec open (by the old image, or the launcher) is this one's */
        proc_image_note_exec(t, pid, img);
    if (is_root && !t->root_id) {
        t->root_id = img->id;
        t->root_pid = pid;
    }
    int64_t id = img->id;
    pthread_mutex_unlock(&t->table_lock);
    return id;
}

/* resolve_process() for a task whose recorded image `img` (a reference the caller holds, or
 * NULL: none) is not plainly its current one. */
static int64_t resolve_changed(struct proc_table *t, pid_t pid, const struct proc_stat *si,
                               int depth, struct proc_image *img)
{
    g_autofree char *exe = procfs_read_link(pid, "exe");
    char *argv = NULL;
    size_t argv_len = proc_read_argv(t, pid, &argv);

    if (img) {
        /* A new memory layout is an exec, whatever the names say.  Otherwise comm changed: an
         * exec, or a thread renaming itself (prctl) — told apart by exe/argv (read under the
         * lock: an ended image's are dropped, forget_program). */
        pthread_mutex_lock(&t->table_lock);
        bool new_layout = procfs_layout_known(img->layout) && procfs_layout_known(si->layout) &&
                          memcmp(img->layout, si->layout, sizeof img->layout) != 0;
        bool changed = new_layout || g_strcmp0(img->exe, exe) != 0 ||
                       (size_t)argv_len != img->argv_len ||
                       (argv_len && memcmp(img->argv, argv, (size_t)argv_len) != 0);
        if (!changed)
            g_strlcpy(img->comm, si->comm, sizeof img->comm);
        pthread_mutex_unlock(&t->table_lock);
        if (!changed) {
            g_free(argv);
            return img->id;
        }
        /* An exec keeps the parent; a different parent (or a recorded image without a layout,
         * read while it was exiting) means the pid was reused within one clock tick by
         * another task: a new process, not an exec of the old one. */
    }
    struct proc_image *superseded = img;
    if (img && (img->ppid != si->ppid || !procfs_layout_known(img->layout)))
        img = NULL;

    /* Parent first, so that every recorded image has its ancestors recorded. */
    int64_t parent_id = 0;
    bool orphan = false, is_root = false;
    if (si->ppid == t->init_pid) {
        /* Children of the namespace init: orphans it adopted (it forks none itself). */
        orphan = true;
    } else if (si->ppid == t->setup_pid) {
        /* Setup's children: its init (excluded above) and the build's root, pid 2 inside.
         * Until the root execs the build's command it runs the launcher's code (execvp
         * searching PATH, opening the program): that is the launcher's, as with process
         * events. */
        if (procfs_status_field(pid, "NSpid") != 2) {
            g_free(argv);
            return 0;
        }
        is_root = true;
        if (procfs_runs_launcher_code(pid)) {
            g_free(argv);
            return PROC_LAUNCHER;
        }
    } else if (si->ppid <= 1) {
        /* Not below the launcher: not part of the build. */
        g_free(argv);
        return 0;
    } else {
        struct proc_stat psi;
        if (procfs_read_stat(si->ppid, &psi) == 0) {
            parent_id = resolve_process(t, si->ppid, &psi, depth + 1);
            if (parent_id == PROC_LAUNCHER)
                parent_id = 0; /* the root, forking before its exec: not the build's */
            if (parent_id == 0) {
                /* The parent is not part of the build (or vanished): neither is this one,
                 * unless the parent vanished, which a blocked caller's parent can do. */
                if (kill(si->ppid, 0) == 0 || errno != ESRCH) {
                    g_free(argv);
                    return 0;
                }
                orphan = true;
            }
        } else {
            orphan = true; /* parent exited between our reads */
        }
    }
    return record_image(t, pid, si, parent_id, orphan, is_root, img, superseded,
                        g_steal_pointer(&exe), argv,
                        (size_t)argv_len);
}

/* The current image of process `pid` (described by `si`), recording what is new. */
static int64_t resolve_process(struct proc_table *t, pid_t pid, const struct proc_stat *si,
                               int depth)
{
    if (pid == t->setup_pid || pid == t->init_pid || pid <= 1)
        return 0;
    if (depth > MAX_ANCESTRY)
        return 0;

    pthread_mutex_lock(&t->table_lock);
    struct proc_image *img = current_image(t, pid, si->start_ticks);
    bool same = img && procfs_same_image(img->comm, img->layout, si->comm, si->layout);
    int64_t id = img ? img->id : 0;
    if (img && !same)
        proc_image_ref(img); /* it can be replaced and freed while /proc is read */
    pthread_mutex_unlock(&t->table_lock);
    if (same)
        return id;
    id = resolve_changed(t, pid, si, depth, img);
    if (img) {
        pthread_mutex_lock(&t->table_lock);
        proc_image_unref(img);
        pthread_mutex_unlock(&t->table_lock);
    }
    return id;
}

int64_t proc_resolve(struct proc_table *t, pid_t tid)
{
    if (tid <= 0)
        return 0;
    if (t->events) {
        proc_drain_events(t);
        pthread_mutex_lock(&t->table_lock);
        while (!t->init_pid && tid != t->setup_pid)
            pthread_cond_wait(&t->launcher_known, &t->table_lock);
        gpointer tg = g_hash_table_lookup(t->live_tasks, GINT_TO_POINTER(tid));
        struct proc_image *img = tg ? g_hash_table_lookup(t->live, tg) : NULL;
        bool launcher = tid == t->setup_pid || tid == t->init_pid ||
                        (t->pending_root && tid == t->pending_root);
        int64_t id = img ? img->id : 0;
        pthread_mutex_unlock(&t->table_lock);
        if (launcher)
            return PROC_LAUNCHER;
        if (id)
            return id;
        /* Not known from events (lost ones, or a task that is not the build's): /proc. */
    }
    struct proc_stat tsi;
    if (procfs_read_stat(tid, &tsi) < 0)
        return 0;

    pthread_mutex_lock(&t->table_lock);
    if (tid == t->setup_pid) {
        pthread_mutex_unlock(&t->table_lock);
        return PROC_LAUNCHER;
    }
    /* Requests from the namespace's processes can arrive before the daemon has read the init's
     * pid from the setup process; it is sent right after the fork, so this wait is short. */
    while (!t->init_pid)
        pthread_cond_wait(&t->launcher_known, &t->table_lock);
    struct proc_task *task = g_hash_table_lookup(t->tasks, GINT_TO_POINTER(tid));
    if (task && task->start_ticks == tsi.start_ticks &&
        procfs_same_image(task->comm, task->layout, tsi.comm, tsi.layout) && task->image) {
        int64_t id = task->image->id;
        pthread_mutex_unlock(&t->table_lock);
        return id;
    }
    pthread_mutex_unlock(&t->table_lock);

    pid_t tgid = procfs_status_field(tid, "Tgid");
    if (tgid <= 0)
        return 0;
    if (tgid == t->setup_pid || tgid == t->init_pid)
        return PROC_LAUNCHER;
    struct proc_stat psi = tsi;
    if (tgid != tid && procfs_read_stat(tgid, &psi) < 0)
        return 0;
    /* A main thread that has exited shows no memory layout; the process's other threads share
     * it (one mm), so the caller's own stat tells which image the process is. */
    if (!procfs_layout_known(psi.layout))
        memcpy(psi.layout, tsi.layout, sizeof psi.layout);
    int64_t id = resolve_process(t, tgid, &psi, 0);
    /* With events on, a build process found here was not reported (the kernel dropped events):
     * it is followed by events again from here on, with the threads it has now.  Listed and
     * attached with no event applied in between (events_lock), so that a thread's exit is
     * either not listed or applied after. */
    GArray *threads = NULL;
    bool leader_exited = false;
    struct proc_stat now = {0};
    if (t->events && id) {
        pthread_mutex_lock(&t->events_lock);
        threads = procfs_list_tasks(tgid);
        /* Still the image just recorded: an exec applied (and ignored) since /proc was read
         * would otherwise make the old image live. */
        leader_exited = procfs_leader_gone(tgid);
        if (procfs_read_stat(tgid, &now) == 0 && !procfs_layout_known(now.layout) && tid != tgid) {
            struct proc_stat tnow;
            if (procfs_read_stat(tid, &tnow) == 0)
                memcpy(now.layout, tnow.layout, sizeof now.layout);
        }
    }
    pthread_mutex_lock(&t->table_lock);
    struct proc_image *img = id ? current_image(t, tgid, psi.start_ticks) : NULL;
    if (img && img->id == id && threads && now.start_ticks == img->start_ticks &&
        procfs_same_image(img->comm, img->layout, now.comm, now.layout))
        proc_attach_live(t, tgid, img, threads, leader_exited);
    if (t->events && id)
        pthread_mutex_unlock(&t->events_lock);
    if (img && img->id == id) {
        task = g_hash_table_lookup(t->tasks, GINT_TO_POINTER(tid));
        if (!task) {
            task = g_new0(struct proc_task, 1);
            g_hash_table_insert(t->tasks, GINT_TO_POINTER(tid), task);
        }
        task->tid = tid;
        task->start_ticks = tsi.start_ticks;
        g_strlcpy(task->comm, tsi.comm, sizeof task->comm);
        memcpy(task->layout, tsi.layout, sizeof task->layout);
        if (task->image != img) {
            proc_image_unref(task->image);
            task->image = proc_image_ref(img);
        }
    }
    pthread_mutex_unlock(&t->table_lock);
    if (threads)
        g_array_free(threads, TRUE);
    return id;
}
