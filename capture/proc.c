/* proc — see proc.h for the contract and the identity model. */
#include "proc.h"

#include "procevents.h"
#include "redact.h"

#include <errno.h>
#include <poll.h>
#include <fcntl.h>
#include <glib.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_ANCESTRY 1024

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
    /* tid -> tgid of the tasks attach_live made live whose fork event may still be queued
     * (made after the request's drain, before the listing): that fork is theirs, not a reuse
     * of the tid.  Emptied at the end of each drain, which has applied every event queued
     * before the attach (attach_live and drains hold events_lock); table_lock */
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

/* Take a reference to `img` (table_lock held). */
static struct proc_image *image_ref(struct proc_image *img)
{
    img->refs++;
    return img;
}

/* Drop a reference (table_lock held; a GDestroyNotify for the tables holding them); the last
 * one frees the image, and with it its reference to the image its tid's previous exec
 * started. */
static void image_unref(gpointer p)
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
    image_unref(w->head);
    g_free(w);
}

static void free_task(gpointer p)
{
    struct proc_task *task = p;
    image_unref(task->image);
    g_free(task);
}

/* An exit event still owed for a tid that was reused (see exits_due). */
struct owed_exit {
    pid_t tgid;
    struct proc_image *img; /* a reference; NULL: a thread's exit, nothing to record */
};

static void free_owed_exit(gpointer p)
{
    struct owed_exit *o = p;
    image_unref(o->img);
    g_free(o);
}

static void free_queue(gpointer q)
{
    g_queue_free_full(q, free_owed_exit);
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
    t->images = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, image_unref);
    t->next_id = 1;
    t->exec_images = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, free_exec_watch);
    t->live = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, image_unref);
    t->live_tasks = g_hash_table_new(g_direct_hash, g_direct_equal);
    t->attached_unsure = g_hash_table_new(g_direct_hash, g_direct_equal);
    t->exits_due = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, free_queue);
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

static void *event_thread_main(void *arg);

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
    if (t->events && setup && !t->event_thread_started && pipe2(t->stop_pipe, O_CLOEXEC) == 0) {
        if (pthread_create(&t->event_thread, NULL, event_thread_main, t) == 0)
            t->event_thread_started = true;
    }
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

int proc_parse_stat(const char *buf, size_t len, struct proc_stat *out)
{
    /* "PID (COMM) S PPID ..." — COMM may hold spaces and ')' so take the last ')'. */
    const char *open = memchr(buf, '(', len);
    const char *close = NULL;
    for (const char *p = buf + len; p > buf; p--) {
        if (p[-1] == ')') {
            close = p - 1;
            break;
        }
    }
    if (!open || !close || close < open)
        return -EINVAL;
    memset(out, 0, sizeof *out);
    size_t clen = (size_t)(close - open - 1);
    if (clen > 63)
        clen = 63;
    memcpy(out->comm, open + 1, clen);
    out->comm[clen] = '\0';

    /* After ") " come fields 3.. separated by single spaces. */
    const char *p = close + 1;
    const char *end = buf + len;
    int field = 2;
    long long ppid_v = -1;
    bool have_start = false;
    while (p < end && field < 49) {
        while (p < end && *p == ' ')
            p++;
        if (p >= end || *p == '\n')
            break;
        field++;
        const char *tok = p;
        while (p < end && *p != ' ' && *p != '\n')
            p++;
        int slot = field == 4 ? 0 : field == 22 ? 1 : field == 26 ? 2 : field == 48 ? 3
                 : field == 49 ? 4 : -1;
        if (slot < 0)
            continue;
        char num[32];
        size_t n = (size_t)(p - tok);
        if (n == 0 || n >= sizeof num)
            return -EINVAL;
        memcpy(num, tok, n);
        num[n] = '\0';
        char *e;
        errno = 0;
        unsigned long long v = strtoull(num, &e, 10);
        if (*e || errno || num[0] == '-')
            return -EINVAL;
        if (slot == 0)
            ppid_v = (long long)v;
        else if (slot == 1) {
            out->start_ticks = v;
            have_start = true;
        } else
            out->layout[slot - 2] = v;
    }
    if (ppid_v < 0 || !have_start || ppid_v > INT32_MAX)
        return -EINVAL;
    out->ppid = (pid_t)ppid_v;
    return 0;
}

/* Read a whole file; returns bytes read or -errno.  *out is g_malloc'd, NUL-terminated. */
static ssize_t read_whole(const char *path, char **out)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    size_t cap = 512, len = 0;
    char *buf = g_malloc(cap);
    for (;;) {
        if (len + 1 >= cap) {
            cap *= 2;
            buf = g_realloc(buf, cap);
        }
        ssize_t n = read(fd, buf + len, cap - len - 1);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            close(fd);
            g_free(buf);
            return -e;
        }
        if (n == 0)
            break;
        len += (size_t)n;
    }
    close(fd);
    buf[len] = '\0';
    *out = buf;
    return (ssize_t)len;
}

/* A process whose main thread has exited (pthread_exit() in main) runs on in its other threads,
 * but what /proc/PID shows through the main thread — cmdline, exe, cwd — is then empty.  Those
 * belong to the process, so they are read through another of its threads: one of them, or 0. */
static pid_t other_thread(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    GDir *d = g_dir_open(path, 0, NULL);
    if (!d)
        return 0;
    pid_t found = 0;
    const char *name;
    while (!found && (name = g_dir_read_name(d))) {
        long tid = strtol(name, NULL, 10);
        if (tid > 0 && tid != pid)
            found = (pid_t)tid;
    }
    g_dir_close(d);
    return found;
}

/* /proc/PID/NAME as read_whole() gives it; a process's own entry (cmdline) that its exited
 * main thread shows empty is read through another thread. */
static ssize_t read_proc(pid_t pid, const char *name, char **out)
{
    char path[96];
    snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, name);
    ssize_t n = read_whole(path, out);
    pid_t tid;
    if (n == 0 && !strcmp(name, "cmdline") && (tid = other_thread(pid)) > 0) {
        snprintf(path, sizeof path, "/proc/%d/task/%d/%s", (int)pid, (int)tid, name);
        g_free(*out);
        n = read_whole(path, out);
    }
    return n;
}

/* The environment process `pid` was started with (/proc/PID/environ), redacted, as an id
 * (0 when it cannot be read: a setuid program, a process already gone). */
static int64_t read_env_id(struct proc_table *t, pid_t pid)
{
    char *env = NULL;
    ssize_t n = read_proc(pid, "environ", &env);
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
static size_t read_argv(struct proc_table *t, pid_t pid, char **out)
{
    char *argv = NULL;
    ssize_t n = read_proc(pid, "cmdline", &argv);
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

/* The target of the symlink /proc/PID/NAME (exe, cwd), through another thread if the main one
 * has exited; NULL if unreadable. */
static char *read_link(pid_t pid, const char *name)
{
    char path[96];
    snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, name);
    char buf[4096];
    ssize_t n = readlink(path, buf, sizeof buf - 1);
    pid_t tid;
    if (n < 0 && errno == ENOENT && (tid = other_thread(pid)) > 0) {
        snprintf(path, sizeof path, "/proc/%d/task/%d/%s", (int)pid, (int)tid, name);
        n = readlink(path, buf, sizeof buf - 1);
    }
    if (n < 0)
        return NULL;
    buf[n] = '\0';
    return g_strdup(buf);
}

#define stat_info proc_stat

static bool layout_known(const unsigned long long l[3])
{
    return l[0] || l[1] || l[2];
}

/* A layout without its arguments yet belongs to an exec in progress: the kernel reads the new
 * binary (through us, when it is traced) after switching to the new memory map and before
 * placing argv.  Such a caller is still the old image for our purposes (t5100). */
static bool layout_in_exec(const unsigned long long l[3])
{
    return layout_known(l) && (l[1] == 0 || l[2] <= l[1]);
}

/* Same image as far as /proc can tell: same comm and, where visible, same memory layout. */
static bool same_image(const char *comm_a, const unsigned long long la[3], const char *comm_b,
                       const unsigned long long lb[3])
{
    if (layout_in_exec(lb))
        return true;
    if (strcmp(comm_a, comm_b) != 0)
        return false;
    /* An image recorded without a layout (read as the process was already exiting) is not a
     * live task that shows one: its pid was reused within the same clock tick. */
    if (!layout_known(la) && layout_known(lb))
        return false;
    return !layout_known(la) || !layout_known(lb) || memcmp(la, lb, 3 * sizeof la[0]) == 0;
}

/* /proc/PID/stat into buf (NUL-terminated): its length, or -errno (-ESRCH when empty). */
static ssize_t read_stat_text(pid_t pid, char *buf, size_t size)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    ssize_t n = read(fd, buf, size - 1);
    int e = errno;
    close(fd);
    if (n <= 0)
        return n < 0 ? -e : -ESRCH;
    buf[n] = '\0';
    return n;
}

static int read_stat(pid_t pid, struct stat_info *si)
{
    char buf[1024];
    ssize_t n = read_stat_text(pid, buf, sizeof buf);
    return n < 0 ? (int)n : proc_parse_stat(buf, (size_t)n, si);
}

/* The value of a field of /proc/PID/status ("Tgid", "NSpid", ...): the last number on its line
 * (NSpid lists one pid per namespace, innermost last).  -1 if unreadable. */
static pid_t read_status_field(pid_t pid, const char *field)
{
    g_autofree char *s = NULL;
    if (read_proc(pid, "status", &s) < 0)
        return -1;
    g_autofree char *needle = g_strdup_printf("\n%s:", field);
    const char *t = strstr(s, needle);
    if (!t)
        return -1;
    t += strlen(needle);
    const char *eol = strchr(t, '\n');
    const char *last = t;
    for (const char *p = t; *p && p != eol; p++)
        if (*p == '\t' || *p == ' ')
            last = p + 1;
    return (pid_t)strtol(last, NULL, 10);
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
static void set_current_image(struct proc_table *t, struct proc_image *img)
{
    g_hash_table_replace(t->images, GINT_TO_POINTER(img->pid), image_ref(img));
}

static int64_t resolve_process(struct proc_table *t, pid_t pid, const struct stat_info *si,
                               int depth);

/* Make an image from the process row `rp` describes and queue the row (table_lock held); the
 * caller files it (it has no reference yet).  Fills in rp's id, exec_seq, prev_image_id and
 * first_seen_ns; takes exe and argv. */
static struct proc_image *add_image(struct proc_table *t, struct rec_process *rp,
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
static void note_exec_image(struct proc_table *t, pid_t tgid, struct proc_image *img)
{
    struct exec_watch *w = g_hash_table_lookup(t->exec_images, GINT_TO_POINTER(tgid));
    if (!w)
        return;
    img->earlier_exec = w->head; /* the watch's reference passes to the newer image */
    w->head = image_ref(img);
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

/* Whether process `pid` still runs this program (the launcher's, before the build's command
 * replaced it): /proc/PID/exe is the file /proc/self/exe is. */
static bool runs_launcher_code(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/exe", (int)pid);
    struct stat a, b;
    return stat(path, &a) == 0 && stat("/proc/self/exe", &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}

/* Record a new image of (pid, si) with the given parent/prev; returns its id.  `superseded`
 * is the image now current for this key that the new one replaces (prev for an exec, a stale
 * one for a reused pid, NULL for a first sighting); if another thread recorded the task
 * meanwhile, returns that one instead. */
static int64_t record_image(struct proc_table *t, pid_t pid, const struct stat_info *si,
                            int64_t parent_id, bool orphan, bool is_root,
                            struct proc_image *prev, struct proc_image *superseded, char *exe,
                            char *argv, size_t argv_len)
{
    g_autofree char *cwd = read_link(pid, "cwd");
    struct rec_process rp = {0};
    rp.env_id = read_env_id(t, pid);

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
    struct proc_image *img = add_image(t, &rp, prev, rec_now_ns(), exe, argv);
    img->ppid = si->ppid;
    memcpy(img->layout, si->layout, sizeof img->layout);
    set_current_image(t, img);
    if (prev || is_root) /* the exec open (by the old image, or the launcher) is this one's */
        note_exec_image(t, pid, img);
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
static int64_t resolve_changed(struct proc_table *t, pid_t pid, const struct stat_info *si,
                               int depth, struct proc_image *img)
{
    g_autofree char *exe = read_link(pid, "exe");
    char *argv = NULL;
    size_t argv_len = read_argv(t, pid, &argv);

    if (img) {
        /* A new memory layout is an exec, whatever the names say.  Otherwise comm changed: an
         * exec, or a thread renaming itself (prctl) — told apart by exe/argv (read under the
         * lock: an ended image's are dropped, forget_program). */
        pthread_mutex_lock(&t->table_lock);
        bool new_layout = layout_known(img->layout) && layout_known(si->layout) &&
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
    if (img && (img->ppid != si->ppid || !layout_known(img->layout)))
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
        if (read_status_field(pid, "NSpid") != 2) {
            g_free(argv);
            return 0;
        }
        is_root = true;
        if (runs_launcher_code(pid)) {
            g_free(argv);
            return PROC_LAUNCHER;
        }
    } else if (si->ppid <= 1) {
        /* Not below the launcher: not part of the build. */
        g_free(argv);
        return 0;
    } else {
        struct stat_info psi;
        if (read_stat(si->ppid, &psi) == 0) {
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
static int64_t resolve_process(struct proc_table *t, pid_t pid, const struct stat_info *si,
                               int depth)
{
    if (pid == t->setup_pid || pid == t->init_pid || pid <= 1)
        return 0;
    if (depth > MAX_ANCESTRY)
        return 0;

    pthread_mutex_lock(&t->table_lock);
    struct proc_image *img = current_image(t, pid, si->start_ticks);
    bool same = img && same_image(img->comm, img->layout, si->comm, si->layout);
    int64_t id = img ? img->id : 0;
    if (img && !same)
        image_ref(img); /* it can be replaced and freed while /proc is read */
    pthread_mutex_unlock(&t->table_lock);
    if (same)
        return id;
    id = resolve_changed(t, pid, si, depth, img);
    if (img) {
        pthread_mutex_lock(&t->table_lock);
        image_unref(img);
        pthread_mutex_unlock(&t->table_lock);
    }
    return id;
}

/* ---- process events ---------------------------------------------------------------------- */

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
    struct proc_image *img = add_image(t, &rp, prev, start_ns, exe, argv);
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
    g_hash_table_replace(t->live, GINT_TO_POINTER(tgid), image_ref(img));
    g_hash_table_replace(t->live_tasks, GINT_TO_POINTER(tgid), GINT_TO_POINTER(tgid));
    if (start_ticks)
        set_current_image(t, img);
    return img;
}

/* Whether process `tgid` (whose main thread has exited) still runs as the image `img`: after a
 * non-main thread's exec killed the main thread, the exec'ing thread carries on as the process
 * (same pid, same start time, a memory map); when the main thread merely exited first, /proc
 * shows it as a zombie without one.  Reads /proc/TGID/stat, which takes no lock of the target,
 * under table_lock: only for this rare case. */
static bool still_runs(pid_t tgid, const struct proc_image *img)
{
    struct stat_info si;
    return read_stat(tgid, &si) == 0 && si.start_ticks == img->start_ticks &&
           layout_known(si.layout);
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
        owe_exit(t, GPOINTER_TO_INT(tid), tgid, image_ref(img));
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
            owe_exit(t, tid, GPOINTER_TO_INT(tg), image_ref(img));
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
            pthread_mutex_unlock(&t->table_lock); /* attach_live counted it already */
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

    struct stat_info si = {0};
    read_stat(ev->pid, &si); /* best effort: it may be gone already */
    g_autofree char *cwd = read_link(ev->pid, "cwd");
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
    struct stat_info si = {0};
    read_stat(ev->tgid, &si);
    char *exe = read_link(ev->tgid, "exe");
    char *argv = NULL;
    size_t argv_len = read_argv(t, ev->tgid, &argv);
    g_autofree char *cwd = read_link(ev->tgid, "cwd");
    int64_t env_id = read_env_id(t, ev->tgid);
    pthread_mutex_lock(&t->table_lock);
    prev = g_hash_table_lookup(t->live, GINT_TO_POINTER(ev->tgid));
    if (prev)
        image_ref(prev); /* the new image replaces it in the tables */
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
    note_exec_image(t, ev->tgid, img); /* the exec'ing thread has the tgid now */
    if (prev) {
        forget_program(prev); /* replaced: only its id and times are needed now */
        image_unref(prev);
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
        free_owed_exit(o);
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
static void drain_events(struct proc_table *t)
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
            drain_events(t);
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
        drain_events(t);
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

unsigned proc_table_peak_images(struct proc_table *t)
{
    pthread_mutex_lock(&t->table_lock);
    unsigned n = t->images_peak;
    pthread_mutex_unlock(&t->table_lock);
    return n;
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
        tgid = read_status_field(tid, "Tgid");
    return tgid > 0 ? tgid : tid;
}

int64_t proc_image_after(struct proc_table *t, pid_t tid, int64_t since_ns)
{
    if (t->events)
        drain_events(t); /* the exec may have completed since the last request */
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

/* The tids of process `tgid`'s threads (from /proc/TGID/task), or NULL. */
static GArray *list_tasks(pid_t tgid)
{
    char p[64];
    snprintf(p, sizeof p, "/proc/%d/task", (int)tgid);
    GDir *d = g_dir_open(p, 0, NULL);
    if (!d)
        return NULL;
    GArray *tids = g_array_new(FALSE, FALSE, sizeof(pid_t));
    const char *name;
    while ((name = g_dir_read_name(d))) {
        char *end;
        long v = strtol(name, &end, 10);
        if (!*end && v > 0 && v <= INT32_MAX) {
            pid_t tid = (pid_t)v;
            g_array_append_val(tids, tid);
        }
    }
    g_dir_close(d);
    return tids;
}

/* Whether the main thread of process `tgid` has exited (a zombie while other threads run on:
 * /proc/TGID/stat shows its state). */
static bool leader_gone(pid_t tgid)
{
    char buf[1024];
    if (read_stat_text(tgid, buf, sizeof buf) < 0)
        return false;
    const char *paren = strrchr(buf, ')');
    return paren && paren[1] == ' ' && (paren[2] == 'Z' || paren[2] == 'X');
}

/* A build process that events never reported (they were dropped: ENOBUFS) was found from /proc
 * as `img`: make it live, with its threads `tids` (its main thread among them unless it has
 * exited), so that its forks, execs and exit are applied from the events that come after
 * (without this its children would be ignored and it would be held to the end).  A thread
 * made after the request's drain has its fork event still queued: noted, so that it is not
 * counted twice.  Nothing to do if events know it already (events_lock and table_lock held). */
static void attach_live(struct proc_table *t, pid_t tgid, struct proc_image *img,
                        const GArray *tids, bool leader_exited)
{
    if (g_hash_table_contains(t->live, GINT_TO_POINTER(tgid)))
        return;
    g_hash_table_replace(t->live, GINT_TO_POINTER(tgid), image_ref(img));
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

int64_t proc_resolve(struct proc_table *t, pid_t tid)
{
    if (tid <= 0)
        return 0;
    if (t->events) {
        drain_events(t);
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
    struct stat_info tsi;
    if (read_stat(tid, &tsi) < 0)
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
        same_image(task->comm, task->layout, tsi.comm, tsi.layout) && task->image) {
        int64_t id = task->image->id;
        pthread_mutex_unlock(&t->table_lock);
        return id;
    }
    pthread_mutex_unlock(&t->table_lock);

    pid_t tgid = read_status_field(tid, "Tgid");
    if (tgid <= 0)
        return 0;
    if (tgid == t->setup_pid || tgid == t->init_pid)
        return PROC_LAUNCHER;
    struct stat_info psi = tsi;
    if (tgid != tid && read_stat(tgid, &psi) < 0)
        return 0;
    /* A main thread that has exited shows no memory layout; the process's other threads share
     * it (one mm), so the caller's own stat tells which image the process is. */
    if (!layout_known(psi.layout))
        memcpy(psi.layout, tsi.layout, sizeof psi.layout);
    int64_t id = resolve_process(t, tgid, &psi, 0);
    /* With events on, a build process found here was not reported (the kernel dropped events):
     * it is followed by events again from here on, with the threads it has now.  Listed and
     * attached with no event applied in between (events_lock), so that a thread's exit is
     * either not listed or applied after. */
    GArray *threads = NULL;
    bool leader_exited = false;
    struct stat_info now = {0};
    if (t->events && id) {
        pthread_mutex_lock(&t->events_lock);
        threads = list_tasks(tgid);
        /* Still the image just recorded: an exec applied (and ignored) since /proc was read
         * would otherwise make the old image live. */
        leader_exited = leader_gone(tgid);
        if (read_stat(tgid, &now) == 0 && !layout_known(now.layout) && tid != tgid) {
            struct stat_info tnow;
            if (read_stat(tid, &tnow) == 0)
                memcpy(now.layout, tnow.layout, sizeof now.layout);
        }
    }
    pthread_mutex_lock(&t->table_lock);
    struct proc_image *img = id ? current_image(t, tgid, psi.start_ticks) : NULL;
    if (img && img->id == id && threads && now.start_ticks == img->start_ticks &&
        same_image(img->comm, img->layout, now.comm, now.layout))
        attach_live(t, tgid, img, threads, leader_exited);
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
            image_unref(task->image);
            task->image = image_ref(img);
        }
    }
    pthread_mutex_unlock(&t->table_lock);
    if (threads)
        g_array_free(threads, TRUE);
    return id;
}
