/* syswatch — see syswatch.h. */
#include "syswatch.h"

#include "tracedb.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

/* An exec open waiting for the exec it is for to show in the process events. */
struct pending_exec {
    pid_t tgid;
    int64_t opener; /* the image that opened it (PROC_LAUNCHER: the build's first exec) */
    int64_t file_id, version_id, open_ns;
    GArray *links;  /* int64 file ids: symlinks the launcher's exec went through, or NULL */
};

/* A file open for writing in a watched tree (one per open; FAN_CLOSE_WRITE ends one).  No
 * descriptor is kept: a build holding thousands of files open would take as many of ours, and
 * a fanotify read that cannot make the event's descriptor makes the kernel deny the open. */
struct open_writer {
    struct vers_writer *vw;
    int64_t opener, file_id, version_id, open_ns;
    char *path;     /* to hash from at the end if no close was seen (checked against dev/ino) */
    dev_t dev;
    ino_t ino;
};

/* A /proc/TID/syscall descriptor kept open (see read_syscall_line). */
#define SYSCALL_FDS 32
struct syscall_fd {
    pid_t tid;
    int fd; /* -1: free */
};

/* One watcher thread (one per CPU, up to SYSWATCH_THREADS: two compilers' opens are answered
 * at once) and what only it uses. */
#define SYSWATCH_THREADS 4
struct watcher {
    struct syswatch *w;
    pthread_t thread;
    bool started;
    struct syscall_fd syscall_fds[SYSCALL_FDS];
    unsigned syscall_next; /* the slot to reuse next */
};

struct syswatch {
    int group;
    int stop_fd; /* eventfd: syswatch_stop wakes the threads (read by none: it stays set) */
    struct watcher threads[SYSWATCH_THREADS];
    int n_threads;
    struct rec *rec;
    struct proc_table *procs;
    struct vers *vers;
    char **paths;  /* the watched trees; fixed */
    char **served; /* the trees served through FUSE; fixed */
    /* lock protects pending, writers and lost_errno.  Taken before proc's, vers's and the
     * recorder's locks (calls into them are made with it held); never held while waiting for
     * a hash (vers_write_begin). */
    pthread_mutex_t lock;
    GArray *pending;       /* struct pending_exec */
    GHashTable *writers;   /* "dev:ino" -> GQueue of struct open_writer * */
    int lost_errno;        /* the first errno that lost an event (a failed read), 0 if none */
    /* Counts for the note (atomic).  lost: events the kernel took back or we could not read
     * (each makes the trace incomplete); unrecorded: opens answered but not recorded. */
    uint64_t opens, execs, writes, links, unknown_calls, outside, errors, lost, unrecorded,
        closes_unseen;
};

#define COUNT(w, field) __atomic_add_fetch(&(w)->field, 1, __ATOMIC_RELAXED)

/* Descriptors left free for the fanotify reads.  The kernel makes each event's descriptor in
 * the read; when it cannot (our table is full: EMFILE), it denies a permission event itself
 * (the build's open fails with EPERM where it succeeds natively) and drops any other event.
 * So what the watchers keep (cached /proc descriptors, copies queued for hashing) stops this
 * many short of the limit.  FUSE's descriptors (one per file the build holds open through a
 * mount) are not bounded so: docs/architecture.md, "Out of descriptors". */
#define FD_RESERVE 64

/* Whether descriptor `fd` lies in the last FD_RESERVE below our limit. */
static bool fd_scarce(int fd)
{
    struct rlimit l;
    if (getrlimit(RLIMIT_NOFILE, &l) < 0 || l.rlim_cur == RLIM_INFINITY)
        return false;
    return (rlim_t)fd + FD_RESERVE >= l.rlim_cur;
}

int syswatch_group_new(void)
{
    /* FAN_UNLIMITED_QUEUE: the close events (not permission events) must never be dropped.
     * FAN_NONBLOCK: every watcher thread is woken for an event and one of them gets it.  The
     * event descriptors are opened without updating access times, and non-blocking so that a
     * FIFO never holds the event up. */
    int fd = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC | FAN_NONBLOCK | FAN_UNLIMITED_QUEUE |
                               FAN_UNLIMITED_MARKS | FAN_REPORT_TID,
                           O_RDONLY | O_LARGEFILE | O_CLOEXEC | O_NOATIME | O_NONBLOCK);
    return fd < 0 ? -errno : fd;
}

/* ---- the opener's syscall ---------------------------------------------------------------- */

static const char *parse_number(const char *p, const char *end, unsigned long long *out)
{
    if (p >= end)
        return NULL;
    unsigned long long v = 0;
    int base = 10;
    if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
    }
    const char *start = p;
    for (; p < end; p++) {
        int d;
        if (*p >= '0' && *p <= '9')
            d = *p - '0';
        else if (base == 16 && *p >= 'a' && *p <= 'f')
            d = *p - 'a' + 10;
        else if (base == 16 && *p >= 'A' && *p <= 'F')
            d = *p - 'A' + 10;
        else
            break;
        if (v > (ULLONG_MAX - (unsigned)d) / (unsigned)base)
            return NULL;
        v = v * (unsigned)base + (unsigned)d;
    }
    if (p == start)
        return NULL;
    *out = v;
    return p;
}

int syswatch_parse_syscall(const char *buf, size_t len, long *nr, unsigned long long args[6])
{
    const char *p = buf, *end = buf + len;
    if (len >= 7 && !memcmp(buf, "running", 7))
        return -EAGAIN;
    if (p < end && *p == '-')
        return -ENODATA; /* "-1 SP PC": blocked, but not in a syscall (an io_uring worker) */
    unsigned long long v;
    if (!(p = parse_number(p, end, &v)) || v > LONG_MAX)
        return -EINVAL;
    *nr = (long)v;
    for (int i = 0; i < 6; i++) {
        if (p >= end || *p != ' ')
            return -EINVAL;
        if (!(p = parse_number(p + 1, end, &args[i])))
            return -EINVAL;
    }
    return 0;
}

enum syswatch_call syswatch_classify(long nr, const unsigned long long args[6], int *flags,
                                     unsigned long long *how, unsigned long long *path,
                                     int *dirfd)
{
    *path = 0;
    *dirfd = AT_FDCWD;
    switch (nr) {
#ifdef SYS_execve
    case SYS_execve:
        *path = args[0];
        return SYSWATCH_EXEC;
#endif
#ifdef SYS_execveat
    case SYS_execveat:
        *dirfd = (int)args[0];
        *path = args[1];
        return SYSWATCH_EXEC;
#endif
#ifdef SYS_open
    case SYS_open:
        *path = args[0];
        *flags = (int)args[1];
        return SYSWATCH_OPEN;
#endif
#ifdef SYS_creat
    case SYS_creat:
        *path = args[0];
        *flags = O_CREAT | O_WRONLY | O_TRUNC;
        return SYSWATCH_OPEN;
#endif
#ifdef SYS_openat
    case SYS_openat:
        *dirfd = (int)args[0];
        *path = args[1];
        *flags = (int)args[2];
        return SYSWATCH_OPEN;
#endif
#ifdef SYS_open_by_handle_at
    case SYS_open_by_handle_at:
        *flags = (int)args[2]; /* a handle, no path */
        return SYSWATCH_OPEN;
#endif
#ifdef SYS_openat2
    case SYS_openat2:
        *dirfd = (int)args[0];
        *path = args[1];
        *how = args[2];
        return SYSWATCH_OPEN_HOW;
#endif
    default:
        return SYSWATCH_UNKNOWN;
    }
}

/* What the opener (blocked in the open) asked for. */
struct opener_call {
    enum syswatch_call call;
    int flags;
    int dirfd;
    char path[PATH_MAX]; /* "" when not known */
};

/* Read `len` bytes at `addr` of process `tid`'s memory; the bytes read, or -1. */
static ssize_t read_memory(pid_t tid, unsigned long long addr, void *out, size_t len)
{
    struct iovec local = {out, len}, remote = {(void *)(uintptr_t)addr, len};
    return process_vm_readv(tid, &local, 1, &remote, 1, 0);
}

/* Read a NUL-terminated string at `addr` of process `tid`, a page at a time (the string may
 * end just before an unmapped page).  0 or -1. */
static int read_string(pid_t tid, unsigned long long addr, char *out, size_t size)
{
    size_t have = 0;
    while (have < size - 1) {
        unsigned long long at = addr + have;
        size_t chunk = 4096 - (size_t)(at % 4096);
        if (chunk > size - 1 - have)
            chunk = size - 1 - have;
        ssize_t n = read_memory(tid, at, out + have, chunk);
        if (n <= 0)
            return -1;
        if (memchr(out + have, '\0', (size_t)n))
            return 0;
        have += (size_t)n;
    }
    return -1; /* longer than PATH_MAX: the open failed with ENAMETOOLONG anyway */
}

/* Open /proc/TID/syscall descriptors are kept (syswatch.syscall_fds): a compiler opens
 * hundreds of headers, and opening the file costs more than reading it.  A descriptor stays
 * bound to its task (a reused tid is another task: reading the old descriptor fails with
 * ESRCH, and it is opened again). */
static ssize_t read_syscall_line(struct watcher *th, pid_t tid, char *buf, size_t size)
{
    struct syscall_fd *slot = NULL;
    for (int i = 0; i < SYSCALL_FDS; i++)
        if (th->syscall_fds[i].fd >= 0 && th->syscall_fds[i].tid == tid)
            slot = &th->syscall_fds[i];
    for (int attempt = 0; attempt < 2; attempt++) {
        if (!slot) {
            slot = &th->syscall_fds[th->syscall_next++ % SYSCALL_FDS];
            if (slot->fd >= 0)
                close(slot->fd);
            char p[64];
            snprintf(p, sizeof p, "/proc/%d/syscall", (int)tid);
            slot->tid = tid;
            slot->fd = open(p, O_RDONLY | O_CLOEXEC);
            if (slot->fd < 0)
                return -1;
        }
        ssize_t n;
        do
            n = pread(slot->fd, buf, size, 0);
        while (n < 0 && errno == EINTR);
        if (n > 0 && !fd_scarce(slot->fd))
            return n;
        close(slot->fd); /* an ended task's (open the new one's), or one not to keep */
        slot->fd = -1;
        slot = NULL;
        if (n > 0)
            return n;
    }
    return -1;
}

static void opener_call(struct watcher *th, pid_t tid, struct opener_call *c)
{
    char buf[256];
    c->call = SYSWATCH_UNKNOWN;
    c->flags = O_RDONLY;
    c->path[0] = '\0';
    long nr;
    unsigned long long args[6], how = 0, path = 0;
    /* The event is queued before the opener goes to sleep waiting for the answer: read while
     * it still runs, the file says "running".  It is about to block (until we answer), so
     * look again, yielding the CPU to it. */
    for (int attempt = 0;; attempt++) {
        ssize_t n = read_syscall_line(th, tid, buf, sizeof buf - 1);
        int r = n <= 0 ? -EIO : syswatch_parse_syscall(buf, (size_t)n, &nr, args);
        if (r == 0)
            break;
        if (r != -EAGAIN || attempt >= 1000)
            return;
        if (attempt < 100)
            sched_yield();
        else
            usleep(50);
    }
    enum syswatch_call call = syswatch_classify(nr, args, &c->flags, &how, &path, &c->dirfd);
    if (call == SYSWATCH_UNKNOWN)
        return;
    if (call == SYSWATCH_OPEN_HOW) {
        uint64_t f; /* struct open_how begins with the u64 flags */
        if (read_memory(tid, how, &f, sizeof f) != (ssize_t)sizeof f)
            return;
        c->flags = (int)f;
        call = SYSWATCH_OPEN;
    }
    if (path && read_string(tid, path, c->path, sizeof c->path) < 0)
        c->path[0] = '\0';
    c->call = call;
}

static void record(struct syswatch *w, int64_t process_id, int64_t file_id, int kind, int flags,
                   int64_t first_ns, int64_t version_id)
{
    if (process_id < 0)
        return; /* the launcher's own */
    struct rec_access a = {
        .process_id = process_id, .file_id = file_id, .kind = kind, .open_flags = flags,
        .bytes = -1, .first_ns = first_ns, .last_ns = rec_now_ns(), .version_id = version_id};
    rec_add_access(w->rec, &a);
}

/* ---- symlinks followed ------------------------------------------------------------------- */

const char *syswatch_next_component(char *done, const char *todo, char comp[256])
{
    for (;;) {
        while (*todo == '/')
            todo++;
        if (!*todo)
            return NULL;
        size_t l = strcspn(todo, "/");
        const char *rest = todo + l;
        if (l == 1 && todo[0] == '.') {
            todo = rest;
            continue;
        }
        if (l == 2 && todo[0] == '.' && todo[1] == '.') {
            char *slash = strrchr(done, '/');
            if (slash)
                *slash = '\0'; /* ".." of / is / */
            todo = rest;
            continue;
        }
        if (l > 255)
            l = 255; /* longer names do not exist: the walk's lstat fails */
        memcpy(comp, todo, l);
        comp[l] = '\0';
        return rest;
    }
}

static bool under_any(const char *path, char *const *trees)
{
    for (; trees && *trees; trees++) {
        size_t l = strlen(*trees);
        if (!strncmp(path, *trees, l) && (path[l] == '/' || !path[l]))
            return true;
    }
    return false;
}

/* Walk `given` (absolute) as the kernel did for thread `tid`, in its root, and add to `out`
 * the file id of every symlink under a watched tree it went through, if the walk ends at
 * (dev, ino).  A walk that enters a served tree or fails adds nothing. */
static void walk_symlinks(struct syswatch *w, pid_t tid, const char *given, dev_t dev,
                          ino_t ino, GArray *out)
{
    char root[64];
    int rl = snprintf(root, sizeof root, "/proc/%d/root", (int)tid);
    char done[PATH_MAX] = "", todo[PATH_MAX], comp[256], probe[PATH_MAX + 64];
    GPtrArray *links = g_ptr_array_new_with_free_func(g_free);
    if (g_strlcpy(todo, given, sizeof todo) >= sizeof todo)
        goto out;
    int n_links = 0;
    const char *rest = todo;
    while ((rest = syswatch_next_component(done, rest, comp))) {
        size_t dl = strlen(done), cl = strlen(comp);
        if (dl + 1 + cl >= sizeof done)
            goto out;
        done[dl] = '/';
        memcpy(done + dl + 1, comp, cl + 1);
        if (under_any(done, w->served))
            goto out;
        memcpy(probe, root, (size_t)rl);
        memcpy(probe + rl, done, strlen(done) + 1);
        struct stat st;
        if (lstat(probe, &st) < 0)
            goto out;
        if (!S_ISLNK(st.st_mode))
            continue;
        char target[PATH_MAX];
        ssize_t n = readlink(probe, target, sizeof target - 1);
        if (n <= 0 || ++n_links > 40)
            goto out;
        target[n] = '\0';
        if (under_any(done, w->paths))
            g_ptr_array_add(links, g_strdup(done));
        /* Continue with the target, then what was left after the link. */
        char next[PATH_MAX];
        if (snprintf(next, sizeof next, "%s%s", target, rest) >= (int)sizeof next)
            goto out;
        done[dl] = '\0'; /* a relative target is relative to the link's directory */
        if (target[0] == '/')
            done[0] = '\0';
        memcpy(todo, next, strlen(next) + 1);
        rest = todo;
    }
    struct stat end;
    memcpy(probe, root, (size_t)rl);
    memcpy(probe + rl, done, strlen(done) + 1);
    if (links->len && stat(probe, &end) == 0 && end.st_dev == dev && end.st_ino == ino) {
        for (guint i = 0; i < links->len; i++) {
            int64_t id = rec_file_id(w->rec, links->pdata[i]);
            g_array_append_val(out, id);
        }
    }
out:
    g_ptr_array_free(links, TRUE);
}

/* Whether `path` has no ".", ".." or empty component: resolved, it names the same directories
 * as written, but for symlinks. */
static bool plain_path(const char *path)
{
    for (const char *p = path; *p; p++) {
        if (*p != '/')
            continue;
        if (p[1] == '/' || p[1] == '\0')
            return false;
        if (p[1] == '.' && (p[2] == '/' || !p[2] || (p[2] == '.' && (p[3] == '/' || !p[3]))))
            return false;
    }
    return true;
}

/* Whether `path` (absolute) reaches `final` (the file's own path, which has no symlink in it)
 * through a symlink at the top of the opener's root alone (/lib -> usr/lib on a merged-/usr
 * system, how ld.so names every library), which lies in no tree and is not recorded: then
 * nothing is to be walked.  A cheap test (one readlink) for the commonest case. */
static bool through_root_link_only(struct syswatch *w, pid_t tid, const char *path,
                                   const char *final)
{
    const char *rest = strchr(path + 1, '/');
    if (!rest || !plain_path(path))
        return false;
    char top[PATH_MAX];
    if ((size_t)(rest - path) >= sizeof top)
        return false;
    memcpy(top, path, (size_t)(rest - path));
    top[rest - path] = '\0';
    if (under_any(top, w->paths) || under_any(top, w->served))
        return false;
    char probe[PATH_MAX + 64], target[PATH_MAX];
    snprintf(probe, sizeof probe, "/proc/%d/root%s", (int)tid, top);
    ssize_t n = readlink(probe, target, sizeof target - 1);
    if (n <= 0)
        return false;
    target[n] = '\0';
    char resolved[PATH_MAX];
    int l = snprintf(resolved, sizeof resolved, "%s%s%s", target[0] == '/' ? "" : "/", target,
                     rest);
    return l < (int)sizeof resolved && plain_path(resolved) && !strcmp(resolved, final);
}

/* The symlinks the opener's path went through (file ids added to `out`), if any could have
 * been: the path it gave is made absolute and compared with the file's own. */
static void find_symlinks(struct syswatch *w, pid_t tid, const struct opener_call *c,
                          const char *final, dev_t dev, ino_t ino, GArray *out)
{
    if (!c->path[0] || !strcmp(c->path, final))
        return; /* the common case: the file's own path, no symlink in it */
    char abs[PATH_MAX];
    if (c->path[0] == '/') {
        g_strlcpy(abs, c->path, sizeof abs);
    } else {
        char p[64], base[PATH_MAX];
        if (c->dirfd == AT_FDCWD)
            snprintf(p, sizeof p, "/proc/%d/cwd", (int)tid);
        else
            snprintf(p, sizeof p, "/proc/%d/fd/%d", (int)tid, c->dirfd);
        ssize_t n = readlink(p, base, sizeof base - 1);
        if (n <= 0 || base[0] != '/')
            return;
        base[n] = '\0';
        if (snprintf(abs, sizeof abs, "%s/%s", base, c->path) >= (int)sizeof abs)
            return;
    }
    if (!strcmp(abs, final) || through_root_link_only(w, tid, abs, final))
        return;
    walk_symlinks(w, tid, abs, dev, ino, out);
}

static void record_links(struct syswatch *w, int64_t process_id, const GArray *links)
{
    for (guint i = 0; links && i < links->len; i++) {
        COUNT(w, links);
        record(w, process_id, g_array_index(links, int64_t, i), TRACEDB_READLINK, -1,
               rec_now_ns(), 0);
    }
}

/* ---- events -------------------------------------------------------------------------------- */

/* The path of the event's file as the build sees it; NULL when it lies outside the watched
 * trees (the descriptor's path from another mount namespace is the build's path). */
static char *event_path(struct syswatch *w, int fd)
{
    char p[64], buf[PATH_MAX];
    snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(p, buf, sizeof buf - 1);
    if (n <= 0)
        return NULL;
    buf[n] = '\0';
    return under_any(buf, w->paths) ? g_strdup(buf) : NULL;
}


static char *inode_key(const struct stat *st)
{
    return g_strdup_printf("%lu:%lu", (unsigned long)st->st_dev, (unsigned long)st->st_ino);
}

/* Our own descriptor of an event's file, for the hashers (versions.h takes -errno too).  Each
 * hash queued holds one: when they come near the limit, wait for the queue to drain first. */
static int dup_for_hash(struct syswatch *w, int fd)
{
    for (int attempt = 0;; attempt++) {
        int d = fcntl(fd, F_DUPFD_CLOEXEC, 0);
        if (d < 0 && errno != EMFILE && errno != ENFILE)
            return -errno;
        if (d >= 0 && !fd_scarce(d))
            return d;
        if (d >= 0)
            close(d);
        if (attempt)
            return -EMFILE; /* FUSE holds them: the version is recorded unhashed (hash_error) */
        vers_drain(w->vers);
    }
}

/* The version a read (or exec) of the event's file binds to; a file first seen is hashed from
 * a copy of the event's descriptor, off the event path. */
static int64_t read_version(struct syswatch *w, const struct stat *st, int64_t file_id, int fd)
{
    bool hash_needed;
    int64_t v = vers_read(w->vers, st->st_dev, st->st_ino, file_id, &hash_needed);
    if (hash_needed)
        vers_hash_found(w->vers, st->st_dev, st->st_ino, dup_for_hash(w, fd));
    return v;
}

static void on_open(struct watcher *th, const struct fanotify_event_metadata *m)
{
    struct syswatch *w = th->w;
    struct stat st;
    if (fstat(m->fd, &st) < 0) {
        COUNT(w, unrecorded);
        return;
    }
    if (!S_ISREG(st.st_mode))
        return; /* a device or FIFO in /etc: not content the build reads as a file */
    g_autofree char *path = event_path(w, m->fd);
    if (!path) {
        COUNT(w, outside);
        return;
    }
    pid_t tid = m->pid;
    struct opener_call c;
    opener_call(th, tid, &c);
    enum syswatch_call call = c.call;
    int flags = c.flags;
    if (call == SYSWATCH_UNKNOWN) {
        COUNT(w, unknown_calls);
        flags = O_RDONLY;
    }
    int64_t caller = proc_resolve(w->procs, tid);
    GArray *links = g_array_new(FALSE, FALSE, sizeof(int64_t));
    find_symlinks(w, tid, &c, path, st.st_dev, st.st_ino, links);
    int64_t file_id = rec_file_id(w->rec, path);
    bool writing = call == SYSWATCH_OPEN &&
                   ((flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC));
    if (call == SYSWATCH_EXEC) {
        COUNT(w, execs);
        pid_t tgid = proc_task_tgid(w->procs, tid);
        /* Held before the open's time is taken, as a FUSE exec open does (proc.h). */
        proc_exec_hold(w->procs, tgid);
        struct pending_exec pe = {tgid, caller, file_id, 0, rec_now_ns(), NULL};
        /* The path walk of the build's own command is the launcher's (not recorded): its
         * symlinks go to the program it started. */
        if (caller < 0 && links->len)
            pe.links = g_steal_pointer(&links);
        pe.version_id = read_version(w, &st, file_id, m->fd);
        pthread_mutex_lock(&w->lock);
        g_array_append_val(w->pending, pe);
        pthread_mutex_unlock(&w->lock);
    } else if (writing) {
        COUNT(w, writes);
        int64_t now = rec_now_ns(), version_id = 0;
        /* Waits until the content it replaces is hashed: the opener is still blocked. */
        struct vers_writer *vw = vers_write_begin(w->vers, st.st_dev, st.st_ino, file_id,
                                                  (flags & O_TRUNC) != 0, &version_id, NULL);
        struct open_writer *ow = g_new0(struct open_writer, 1);
        *ow = (struct open_writer){vw, caller, file_id, version_id, now, g_strdup(path),
                                   st.st_dev, st.st_ino};
        char *key = inode_key(&st);
        pthread_mutex_lock(&w->lock);
        GQueue *q = g_hash_table_lookup(w->writers, key);
        if (!q) {
            q = g_queue_new();
            g_hash_table_insert(w->writers, key, q);
        } else {
            g_free(key);
        }
        g_queue_push_tail(q, ow);
        pthread_mutex_unlock(&w->lock);
        if (flags & O_TRUNC)
            record(w, caller, file_id, TRACEDB_TRUNCATE, flags, now, version_id);
    } else {
        COUNT(w, opens);
        record(w, caller, file_id, TRACEDB_READ, flags, rec_now_ns(),
               read_version(w, &st, file_id, m->fd));
    }
    if (links) {
        record_links(w, caller, links);
        g_array_free(links, TRUE);
    }
}

static void writer_end(struct syswatch *w, struct open_writer *ow, int hash_fd)
{
    record(w, ow->opener, ow->file_id, TRACEDB_WRITE, O_WRONLY, ow->open_ns, ow->version_id);
    vers_write_end(w->vers, ow->vw, hash_fd);
    g_free(ow->path);
    g_free(ow);
}

/* A writer whose close was never seen (the file is still open outside the build): hash what
 * its path holds now, if that is still the file written. */
static int reopen_for_hash(const struct open_writer *ow)
{
    int fd = vers_open_for_hash(ow->path);
    struct stat st;
    if (fd >= 0 && (fstat(fd, &st) < 0 || st.st_dev != ow->dev || st.st_ino != ow->ino)) {
        close(fd);
        fd = -ESTALE;
    }
    return fd;
}

/* Ends the file's writer with the event's own descriptor for its hash: true when it took
 * m->fd over. */
static bool on_close_write(struct syswatch *w, const struct fanotify_event_metadata *m)
{
    struct stat st;
    if (m->fd < 0 || fstat(m->fd, &st) < 0)
        return false; /* its writer ends at syswatch_stop */
    g_autofree char *key = inode_key(&st);
    pthread_mutex_lock(&w->lock);
    GQueue *q = g_hash_table_lookup(w->writers, key);
    struct open_writer *ow = q ? g_queue_pop_head(q) : NULL;
    if (ow && g_queue_is_empty(q))
        g_hash_table_remove(w->writers, key);
    pthread_mutex_unlock(&w->lock);
    if (!ow) /* opened before the mark was made, by setup */
        return false;
    if (fd_scarce(m->fd))
        vers_drain(w->vers); /* the hashes queued hold descriptors */
    writer_end(w, ow, m->fd);
    return true;
}

/* Record the exec opens whose exec has shown (all of them when `final`). */
static void settle_execs(struct syswatch *w, bool final)
{
    pthread_mutex_lock(&w->lock);
    guint keep = 0;
    for (guint i = 0; i < w->pending->len; i++) {
        struct pending_exec pe = g_array_index(w->pending, struct pending_exec, i);
        int64_t started = proc_image_after(w->procs, pe.tgid, pe.open_ns);
        if (started <= 0 && final && pe.opener < 0) {
            /* The build's own command, and no event said so: look now. */
            proc_resolve(w->procs, pe.tgid);
            started = proc_image_after(w->procs, pe.tgid, pe.open_ns);
        }
        if (started <= 0 && !final) {
            g_array_index(w->pending, struct pending_exec, keep++) = pe;
            continue;
        }
        /* An exec that never completed (ENOEXEC, killed) stays the opener's. */
        record(w, started > 0 ? started : pe.opener, pe.file_id, TRACEDB_EXEC, O_RDONLY,
               pe.open_ns, pe.version_id);
        if (pe.links) {
            record_links(w, started > 0 ? started : pe.opener, pe.links);
            g_array_free(pe.links, TRUE);
        }
        proc_exec_release(w->procs, pe.tgid);
    }
    g_array_set_size(w->pending, keep);
    pthread_mutex_unlock(&w->lock);
}

/* Whether exec opens wait for their exec. */
static bool execs_pending(struct syswatch *w)
{
    pthread_mutex_lock(&w->lock);
    bool any = w->pending->len > 0;
    pthread_mutex_unlock(&w->lock);
    return any;
}

static void respond(struct syswatch *w, int fd)
{
    struct fanotify_response r = {.fd = fd, .response = FAN_ALLOW};
    ssize_t n;
    do
        n = write(w->group, &r, sizeof r);
    while (n < 0 && errno == EINTR);
    if (n != (ssize_t)sizeof r)
        COUNT(w, errors); /* the opener was killed meanwhile: nothing waits */
}

/* An event was lost: read() failed (the kernel could not make its descriptor: it then denied
 * a permission event itself and dropped any other), or it came without a descriptor. */
static void lose(struct syswatch *w, int e)
{
    COUNT(w, lost);
    pthread_mutex_lock(&w->lock);
    if (!w->lost_errno)
        w->lost_errno = e;
    pthread_mutex_unlock(&w->lock);
}

static void *watch_main(void *arg)
{
    struct watcher *th = arg;
    struct syswatch *w = th->w;
    /* One event per read: another watcher answers the next one meanwhile. */
    char buf[FAN_EVENT_METADATA_LEN]
        __attribute__((aligned(__alignof__(struct fanotify_event_metadata))));
    struct pollfd pf[2] = {{.fd = w->group, .events = POLLIN}, {.fd = w->stop_fd, .events = POLLIN}};
    bool stopping = false;
    for (;;) {
        /* While exec opens wait for their exec, look again soon; once stopping, read what the
         * build's last closes queued (without waiting), then end.  The group is non-blocking:
         * every watcher is woken for an event, one of them gets it. */
        /* A watcher never ends before syswatch_stop, whatever fails: an event left unread
         * holds its opener forever.  A failure that may pass (ENOMEM, EMFILE) is retried
         * after a millisecond. */
        int r = poll(pf, stopping ? 1 : 2, stopping ? 0 : execs_pending(w) ? 20 : -1);
        if (r < 0 && errno != EINTR)
            usleep(1000);
        if (r > 0 && (pf[0].revents & POLLIN)) {
            ssize_t n = read(w->group, buf, sizeof buf);
            if (n < 0 && errno != EINTR && errno != EAGAIN) {
                lose(w, errno);
                usleep(1000);
            }
            const struct fanotify_event_metadata *m = (const void *)buf;
            if (n > 0 && FAN_EVENT_OK(m, n)) {
                bool taken = false;
                if (m->vers != FANOTIFY_METADATA_VERSION) {
                    lose(w, EPROTO); /* still answered below: fd and mask never moved */
                } else if (m->mask & FAN_OPEN_PERM) {
                    if (m->fd >= 0)
                        on_open(th, m);
                    else
                        lose(w, EBADF); /* the kernel has denied it already */
                } else if (m->mask & FAN_CLOSE_WRITE) {
                    taken = on_close_write(w, m);
                } else if (m->mask & FAN_Q_OVERFLOW) {
                    lose(w, EOVERFLOW); /* cannot happen with an unlimited queue */
                }
                /* Always allow (never deny what the build may do natively): the answer is
                 * sent whatever recording did. */
                if ((m->mask & FAN_OPEN_PERM) && m->fd >= 0)
                    respond(w, m->fd);
                if (m->fd >= 0 && !taken)
                    close(m->fd);
            }
        }
        if (execs_pending(w))
            settle_execs(w, false);
        if (stopping && r == 0)
            break;
        if (!stopping && r > 0 && (pf[1].revents & POLLIN))
            stopping = true;
    }
    return NULL;
}

static void stop_threads(struct syswatch *w)
{
    uint64_t one = 1;
    ssize_t n;
    do /* an eventfd write fails only at a counter of 2^64-1: never here */
        n = write(w->stop_fd, &one, sizeof one);
    while (n < 0 && errno == EINTR);
    for (int i = 0; i < w->n_threads; i++)
        if (w->threads[i].started)
            pthread_join(w->threads[i].thread, NULL);
}

struct syswatch *syswatch_start(int group, struct rec *rec, struct proc_table *procs,
                                struct vers *vers, char *const *paths, char *const *served,
                                int *err)
{
    struct syswatch *w = g_new0(struct syswatch, 1);
    w->group = group;
    w->rec = rec;
    w->procs = procs;
    w->vers = vers;
    w->paths = g_strdupv((char **)paths);
    w->served = g_strdupv((char **)served);
    pthread_mutex_init(&w->lock, NULL);
    w->pending = g_array_new(FALSE, FALSE, sizeof(struct pending_exec));
    w->writers = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
                                       (GDestroyNotify)g_queue_free);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    w->n_threads = ncpu < 1 ? 1 : ncpu > SYSWATCH_THREADS ? SYSWATCH_THREADS : (int)ncpu;
    for (int i = 0; i < w->n_threads; i++) {
        w->threads[i].w = w;
        for (int k = 0; k < SYSCALL_FDS; k++)
            w->threads[i].syscall_fds[k].fd = -1;
    }
    w->stop_fd = eventfd(0, EFD_CLOEXEC);
    int e = w->stop_fd < 0 ? errno : 0;
    for (int i = 0; !e && i < w->n_threads; i++) {
        e = pthread_create(&w->threads[i].thread, NULL, watch_main, &w->threads[i]);
        w->threads[i].started = !e;
    }
    if (e) {
        *err = -e;
        if (w->stop_fd >= 0) {
            stop_threads(w);
            close(w->stop_fd);
        }
        close(group);
        g_strfreev(w->paths);
        g_strfreev(w->served);
        g_array_free(w->pending, TRUE);
        g_hash_table_destroy(w->writers);
        pthread_mutex_destroy(&w->lock);
        g_free(w);
        return NULL;
    }
    return w;
}

/* Why the trace misses something of the watched trees, or NULL. */
static char *lost_of(const struct syswatch *w)
{
    GString *s = g_string_new(NULL);
    if (w->lost)
        g_string_append_printf(s, "%" G_GUINT64_FORMAT " fanotify event%s in the system trees "
                               "lost (%s; the kernel denied any open among them: EPERM)",
                               w->lost, w->lost == 1 ? "" : "s", g_strerror(w->lost_errno));
    if (w->unrecorded)
        g_string_append_printf(s, "%s%" G_GUINT64_FORMAT " open%s in the system trees allowed "
                               "but not recorded (the file could not be examined)",
                               s->len ? "; " : "", w->unrecorded, w->unrecorded == 1 ? "" : "s");
    return s->len ? g_string_free(s, FALSE) : (g_string_free(s, TRUE), NULL);
}

static char *note_of(const struct syswatch *w)
{
    g_autofree char *unknown =
        w->unknown_calls ? g_strdup_printf("; %" G_GUINT64_FORMAT " opens of unknown kind "
                                           "counted as reads", w->unknown_calls)
                         : g_strdup("");
    g_autofree char *lost = lost_of(w);
    g_autofree char *unseen =
        w->closes_unseen ? g_strdup_printf("; %" G_GUINT64_FORMAT " write-opens whose close was "
                                           "not seen (hashed at the end)", w->closes_unseen)
                         : g_strdup("");
    return g_strdup_printf("system_trees=watched (fanotify: %" G_GUINT64_FORMAT " reads, %"
                           G_GUINT64_FORMAT " execs, %" G_GUINT64_FORMAT " write-opens, %"
                           G_GUINT64_FORMAT " symlinks followed; not "
                           "recorded there: failed lookups, stat/access, listings, "
                           "renames and removals)%s%s%s%s%s%s",
                           w->opens, w->execs, w->writes, w->links, unknown,
                           w->outside ? "; opens outside the trees ignored" : "",
                           w->errors ? "; answers the kernel refused (the opener was gone)" : "",
                           unseen, lost ? "; INCOMPLETE: " : "", lost ? lost : "");
}

char *syswatch_stop(struct syswatch *w, char **lost)
{
    if (lost)
        *lost = NULL;
    if (!w)
        return NULL;
    stop_threads(w);
    /* No build process is left: nothing waits on an event any more. */
    close(w->group);
    w->group = -1;
    settle_execs(w, true);
    GHashTableIter it;
    gpointer q;
    g_hash_table_iter_init(&it, w->writers);
    while (g_hash_table_iter_next(&it, NULL, &q)) {
        struct open_writer *ow;
        while ((ow = g_queue_pop_head(q))) {
            COUNT(w, closes_unseen);
            writer_end(w, ow, reopen_for_hash(ow));
        }
    }
    g_hash_table_destroy(w->writers);
    /* The versions ended here, and by the watchers' last close events, are hashed off this
     * thread; the caller stops the recorder next: wait until their rows are queued (t3011
     * lost the unseen writer's version when the hash came after the recorder's stop). */
    vers_drain(w->vers);
    g_array_free(w->pending, TRUE);
    close(w->stop_fd);
    for (int i = 0; i < w->n_threads; i++)
        for (int k = 0; k < SYSCALL_FDS; k++)
            if (w->threads[i].syscall_fds[k].fd >= 0)
                close(w->threads[i].syscall_fds[k].fd);
    g_strfreev(w->paths);
    g_strfreev(w->served);
    pthread_mutex_destroy(&w->lock);
    char *note = note_of(w);
    if (lost)
        *lost = lost_of(w);
    g_free(w);
    return note;
}
