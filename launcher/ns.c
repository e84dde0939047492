/* ns — see ns.h.  After the clone, only async-signal-safe calls: no malloc, no stdio. */
#include "ns.h"

#include "vary.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <linux/seccomp.h>
#include <sys/fanotify.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

const char *ns_step_describe(int step)
{
    switch (step) {
    case NS_STEP_SETGROUPS: return "deny setgroups in the user namespace";
    case NS_STEP_UID_MAP: return "map the user id in the user namespace";
    case NS_STEP_GID_MAP: return "map the group id in the user namespace";
    case NS_STEP_MAKE_PRIVATE: return "make the build's mounts private";
    case NS_STEP_OPEN_FUSE: return "open /dev/fuse";
    case NS_STEP_MOUNT_FUSE: return "mount the FUSE filesystem";
    case NS_STEP_SEND_FD: return "pass the FUSE connection to the daemon";
    case NS_STEP_OPEN_STAGING: return "open the traced trees on the FUSE mount";
    case NS_STEP_BIND_TREE: return "bind-mount a traced tree over its path";
    case NS_STEP_DETACH_STAGING: return "detach the staging mount";
    case NS_STEP_UNSHARE_PID: return "create the build's pid namespace";
    case NS_STEP_FORK_INIT: return "start the pid namespace's init";
    case NS_STEP_MOUNT_PROC: return "mount /proc for the build (or filter its init's calls)";
    case NS_STEP_FORK_BUILD: return "start the build";
    case NS_STEP_CHDIR: return "enter the working directory";
    case NS_STEP_EXEC: return "execute the build command";
    case NS_STEP_INIT_DIED: return "keep the build's pid-namespace init running";
    case NS_STEP_WATCH_TREE: return "bind-mount a system tree to watch";
    case NS_STEP_WATCH_MARK: return "watch a system tree's mount with fanotify";
    case NS_STEP_GUARD: return "watch the build's mount calls (seccomp)";
    case NS_STEP_STARTED: return "start the build command";
    case NS_STEP_VARY: return "apply a variation";
    case NS_STEP_DROP_CAPS: return "drop the build's mount capabilities (--only-inputs)";
    default: return "set up the build";
    }
}

static void report(const struct ns_plan *p, int step, int value, int tree)
{
    struct ns_report r = {step, value, tree, 0};
    ssize_t n;
    do
        n = write(p->report_fd, &r, sizeof r);
    while (n < 0 && errno == EINTR);
}

static _Noreturn void fail(const struct ns_plan *p, int step, int tree)
{
    report(p, step, errno, tree);
    _exit(125);
}

/* Append decimal `v` to buf (async-signal-safe). */
static char *append_uint(char *at, char *end, unsigned v)
{
    char tmp[16];
    int n = 0;
    do
        tmp[n++] = (char)('0' + v % 10);
    while ((v /= 10) && n < 16);
    while (n && at < end)
        *at++ = tmp[--n];
    return at;
}

static char *append_str(char *at, char *end, const char *s)
{
    while (*s && at < end)
        *at++ = *s++;
    return at;
}

/* Write `data` to `path` (relative to `dirfd`, or AT_FDCWD) in one write, as /proc's id map
 * files need: 0, or -1 with errno (EIO for a short write). */
static int write_file_at(int dirfd, const char *path, const char *data)
{
    int fd = openat(dirfd, path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t len = strlen(data);
    ssize_t n = write(fd, data, len);
    int e = n < 0 ? errno : n != (ssize_t)len ? EIO : 0;
    close(fd);
    errno = e;
    return e ? -1 : 0;
}

static int send_fd(int sock, int fd)
{
    char dummy = 'F';
    struct iovec iov = {&dummy, 1};
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } u;
    memset(&u, 0, sizeof u);
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
                         .msg_controllen = sizeof u.buf};
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof fd);
    ssize_t n;
    do
        n = sendmsg(sock, &msg, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    return n == 1 ? 0 : -1;
}

int ns_recv_fd(int sock)
{
    char dummy;
    struct iovec iov = {&dummy, 1};
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } u;
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
                         .msg_controllen = sizeof u.buf};
    ssize_t n;
    do
        n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return -errno;
    if (n == 0)
        return -EPIPE;
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    if (!c || c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(sizeof(int)))
        return -EPROTO;
    int fd;
    memcpy(&fd, CMSG_DATA(c), sizeof fd);
    return fd;
}

/* The signal state the caller of buildtrail gave us, as a native build would inherit it: the
 * daemon changed only its mask and SIGPIPE's disposition (exec resets handlers to SIG_DFL but
 * keeps SIG_IGN, so an ignored signal, as under nohup, stays ignored). */
static void restore_signals(const struct ns_plan *p)
{
    signal(SIGPIPE, p->sigpipe_ignored ? SIG_IGN : SIG_DFL);
    sigprocmask(SIG_SETMASK, &p->sigmask, NULL);
}

/* Close every descriptor from `from` up, except the `n` (at most 4) in `keep`, each >= from,
 * in any order.  (Async-signal-safe: sorts a copy on the stack.) */
static void close_all_but(int from, const int *keep, int n)
{
    int k[4];
    for (int i = 0; i < n; i++) { /* insertion sort */
        int j = i;
        for (; j > 0 && k[j - 1] > keep[i]; j--)
            k[j] = k[j - 1];
        k[j] = keep[i];
    }
    int lo = from;
    for (int i = 0; i < n; i++) {
        if (k[i] > lo)
            syscall(SYS_close_range, (unsigned)lo, (unsigned)k[i] - 1, 0u);
        lo = k[i] + 1;
    }
    syscall(SYS_close_range, (unsigned)lo, ~0u, 0u);
}

/* The build failed before its command ran: say so on `started_fd` (setup reads EOF there when
 * the exec succeeded), keeping errno. */
static void not_started(int started_fd)
{
    int e = errno;
    ssize_t n;
    do
        n = write(started_fd, "x", 1);
    while (n < 0 && errno == EINTR);
    errno = e;
}

/* The build, in its own new user namespace: tells setup its pid (in the build's pid namespace,
 * as setup's /proc shows it) on nest[1] and waits on nest[0] for setup to have written its
 * maps: 0, or -1 with errno (setup's, or EPROTO when setup said nothing). */
static int await_nest_map(const int nest[2])
{
    pid_t self = getpid();
    ssize_t n;
    do
        n = write(nest[1], &self, sizeof self);
    while (n < 0 && errno == EINTR);
    if (n != (ssize_t)sizeof self)
        return -1;
    int err = EPROTO;
    do
        n = read(nest[0], &err, sizeof err);
    while (n < 0 && errno == EINTR);
    close(nest[0]);
    close(nest[1]);
    if (n != (ssize_t)sizeof err)
        err = EPROTO;
    errno = err;
    return err ? -1 : 0;
}

/* Setup's side: the build's maps written (wide when `wide`, else its own ids), setgroups
 * denied first; the result sent to the build.  Setup holds CAP_SETUID and CAP_SETGID in the
 * parent of the build's namespace, as the kernel asks of a map of more than one's own id. */
static void write_nest_map(const struct ns_plan *p, int proc_fd, int from_build, int to_build,
                           bool wide)
{
    pid_t pid = 0;
    ssize_t n;
    do
        n = read(from_build, &pid, sizeof pid);
    while (n < 0 && errno == EINTR);
    close(from_build);
    if (n != (ssize_t)sizeof pid) { /* the build ended before (and says why itself) */
        close(to_build);
        return;
    }
    const struct ns_vary *v = &p->vary;
    /* Wide maps were planned (and said), but setup's namespace holds the caller's ids alone
     * (newuidmap failed): refused, as the kernel would refuse them, not made narrow unsaid. */
    bool planned_wide = v->uid_map_wide[0] && v->gid_map_wide[0];
    const char *files[3] = {"setgroups", "uid_map", "gid_map"};
    const char *data[3] = {"deny", planned_wide ? v->uid_map_wide : v->uid_map,
                           planned_wide ? v->gid_map_wide : v->gid_map};
    int err = proc_fd < 0 ? ENOENT : planned_wide && !wide ? EPERM : 0;
    for (int i = 0; i < 3 && !err; i++) {
        char path[48];
        char *at = append_uint(path, path + 20, (unsigned)pid);
        *append_str(append_str(at, path + sizeof path - 1, "/"), path + sizeof path - 1,
                    files[i]) = '\0';
        if (write_file_at(proc_fd, path, data[i]) < 0)
            err = errno;
        if (err == ENOENT && i == 0)
            err = 0; /* no setgroups file (before Linux 3.19): nothing to deny */
    }
    do
        n = write(to_build, &err, sizeof err);
    while (n < 0 && errno == EINTR);
    close(to_build);
}

/* The variations (ns.h: plan->vary), each failure reported with its name (vary.h's enum). */
static void apply_vary(const struct ns_plan *p, int started_fd, const int nest[2])
{
    const struct ns_vary *v = &p->vary;
    int failed = -1;
    if (v->umask >= 0)
        umask((mode_t)v->umask);
    if (v->affinity && sched_setaffinity(0, sizeof v->cpus, &v->cpus) < 0)
        failed = VARY_NUM_CPUS;
    else if (v->personality && personality(v->persona) < 0)
        failed = VARY_KERNEL;
    else if (v->uts && (unshare(CLONE_NEWUTS) < 0 || sethostname(v->hostname, strlen(v->hostname)) < 0 ||
                        setdomainname(v->domainname, strlen(v->domainname)) < 0))
        failed = VARY_DOMAIN_HOST;
    else if (v->nest_user && (unshare(CLONE_NEWUSER) < 0 || await_nest_map(nest) < 0))
        failed = VARY_USER_GROUP;
    if (failed >= 0) {
        not_started(started_fd);
        fail(p, NS_STEP_VARY, failed);
    }
    if (v->envp)
        environ = (char **)v->envp;
}

static _Noreturn void run_build(const struct ns_plan *p, int out_fd, int err_fd, int started_fd,
                                const int nest[2])
{
    restore_signals(p);
    if (dup2(out_fd, STDOUT_FILENO) < 0 || dup2(err_fd, STDERR_FILENO) < 0) {
        not_started(started_fd);
        fail(p, NS_STEP_FORK_BUILD, -1);
    }
    /* The build holds stdin, the FUSE stdout and stderr, the report pipe and the started pipe
     * until its exec (close-on-exec), and with a user namespace of its own the two pipes to
     * setup until it is mapped: nothing else of the launcher's. */
    int keep[] = {p->report_fd, started_fd, nest[0], nest[1]};
    close_all_but(STDERR_FILENO + 1, keep, nest[0] >= 0 ? 4 : 2);
    apply_vary(p, started_fd, nest);
    if (chdir(p->cwd) < 0) {
        not_started(started_fd);
        fail(p, NS_STEP_CHDIR, -1);
    }
    if (p->drop_mount_caps && (prctl(PR_CAPBSET_DROP, CAP_SYS_ADMIN, 0, 0, 0) < 0 ||
                               prctl(PR_CAPBSET_DROP, CAP_DAC_READ_SEARCH, 0, 0, 0) < 0)) {
        not_started(started_fd);
        fail(p, NS_STEP_DROP_CAPS, -1);
    }
    execvp(p->argv[0], p->argv);
    int e = errno;
    not_started(started_fd);
    report(p, NS_STEP_EXEC, e, -1);
    _exit(e == ENOENT ? 127 : 126);
}

/* pid 1 of the build's pid namespace: mounts the namespace's /proc, says so (or why not) on
 * `ready_fd`, then holds nothing but that pipe (whose end tells setup that init died) and reaps
 * the orphans the build leaves, until setup kills it when the build has ended. */
static _Noreturn void run_init(const struct ns_plan *p, int ready_fd)
{
    int keep[] = {ready_fd};
    close_all_but(0, keep, 1);
    /* Its working directory was setup's, the real one beneath the FUSE mounts: through
     * /proc/1/cwd a (root) build would read there what the mounts hide and trace. */
    int err = chdir("/") < 0 ? errno : 0;
    if (!err && mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
        err = errno;
    if (!err && p->guard_len) {
        /* The build's processes carry setup's filter (and orphans come here); init gets the
         * same calls refused, so that no process of the namespace is without one. */
        struct sock_fprog prog = {.len = p->init_len, .filter = (struct sock_filter *)p->init_filter};
        if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0)
            err = errno;
    }
    ssize_t n;
    do
        n = write(ready_fd, &err, sizeof err);
    while (n < 0 && errno == EINTR);
    if (err)
        _exit(125);
    /* SIGCHLD blocked, so that it stays pending between the reaping and the wait. */
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_SETMASK, &chld, NULL);
    for (;;) {
        while (waitpid(-1, NULL, WNOHANG) > 0)
            ;
        sigwaitinfo(&chld, NULL);
    }
}

/* Opens `path` under `dir_fd` without crossing a mount or following a symlink: a build may
 * mount over its /proc, and nothing it mounts there may make setup wait (a FIFO, a FUSE
 * file).  fd or -1. */
static int open_beneath(int dir_fd, const char *path, int flags)
{
    struct open_how how = {.flags = (unsigned)flags | O_CLOEXEC | O_NONBLOCK | O_NOCTTY,
                           .resolve = RESOLVE_NO_XDEV | RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH};
    return (int)syscall(SYS_openat2, dir_fd, path, &how, sizeof how);
}

/* Calls fn(dir_fd, name) for each entry of directory `dir_fd` named by a number (a pid or tid
 * in /proc) until it returns true: true then. */
static bool any_numbered(int dir_fd, bool (*fn)(int, const char *))
{
    if (lseek(dir_fd, 0, SEEK_SET) < 0)
        return false;
    char buf[4096];
    for (;;) {
        long n = syscall(SYS_getdents64, dir_fd, buf, sizeof buf);
        if (n <= 0)
            return false;
        for (long off = 0; off < n;) {
            struct dirent64 *d = (struct dirent64 *)(buf + off);
            off += d->d_reclen;
            if (d->d_name[0] >= '1' && d->d_name[0] <= '9' && fn(dir_fd, d->d_name))
                return true;
        }
    }
}

/* Is thread `name` (of a /proc/N/task directory, `task_fd`) dying: killed (SIGKILL pending) or
 * exiting (PF_EXITING), not a zombie yet? */
static bool thread_dying(int task_fd, const char *name)
{
    char path[32];
    *append_str(append_str(path, path + sizeof path - 6, name), path + sizeof path - 1, "/stat") =
        '\0';
    int fd = open_beneath(task_fd, path, O_RDONLY);
    if (fd < 0)
        return false; /* gone (reaped) meanwhile */
    char buf[1024];
    ssize_t n;
    do
        n = read(fd, buf, sizeof buf - 1);
    while (n < 0 && errno == EINTR);
    close(fd);
    if (n <= 0)
        return false;
    buf[n] = '\0';
    /* "tid (comm) state ppid ...": comm may hold anything, the last ')' ends it.  Fields from
     * the state (3) on: flags is the 9th, the thread's pending signals the 31st. */
    char *at = NULL;
    for (char *c = buf; *c; c++)
        if (*c == ')')
            at = c;
    if (!at || at[1] != ' ' || !at[2])
        return false;
    char state = at[2];
    if (state == 'Z' || state == 'X' || state == 'x')
        return false;
    unsigned long long field[32] = {0};
    int k = 3;
    for (char *c = at + 3; *c && k < 32; c++) {
        if (*c == ' ')
            k++;
        else if (*c >= '0' && *c <= '9')
            field[k] = field[k] * 10 + (unsigned)(*c - '0');
    }
    const unsigned long long pf_exiting = 0x4; /* include/linux/sched.h */
    return (field[9] & pf_exiting) || (field[31] & (1ULL << (SIGKILL - 1)));
}

/* Is a thread of process `name` (a directory of /proc, `proc_fd`) dying (thread_dying)?  Every
 * thread is asked: a process ends when its last thread does, and its first (the one /proc/N
 * shows) may be a zombie already while the others are still on their way out. */
static bool process_dying(int proc_fd, const char *name)
{
    if (!strcmp(name, "1"))
        return false; /* init */
    char path[32];
    *append_str(append_str(path, path + sizeof path - 6, name), path + sizeof path - 1, "/task") =
        '\0';
    int task_fd = open_beneath(proc_fd, path, O_RDONLY | O_DIRECTORY);
    if (task_fd < 0)
        return false;
    bool dying = any_numbered(task_fd, thread_dying);
    close(task_fd);
    return dying;
}

/* Before setup marks the instant it kills what the build left running: let the processes the
 * build killed itself (a SIGKILL sent just before it ended, not yet taken) die first, else they
 * would die after that instant and look left running.  At most ~2 s (a process stuck in an
 * uninterruptible wait); `proc_fd` -1: no wait (without openat2, before Linux 5.6, the quiet
 * time alone). */
static void settle_dying(int proc_fd)
{
    if (proc_fd < 0)
        return;
    /* Quiet for 10 looks 1 ms apart: a process's last thread leaves /proc a moment before the
     * kernel reports its exit, and under load that moment lasts milliseconds. */
    for (int i = 0, quiet = 0; i < 2000 && quiet < 10; i++) {
        quiet = any_numbered(proc_fd, process_dying) ? 0 : quiet + 1;
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
}

/* Has the write end of `fd` (a pipe init holds) closed?  Anything a build wrote into it
 * through /proc/1/fd is drained and ignored. */
static bool init_gone(int fd)
{
    if (fcntl(fd, F_SETFL, O_NONBLOCK) < 0)
        return false;
    char buf[256];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n == 0)
            return true;
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return false; /* EAGAIN: init still holds it */
    }
}

/* Setup's first steps: only its own descriptors kept, its ids mapped (by the daemon, or its
 * own), every mount private, the watched trees bind-mounted onto themselves and marked.
 * Returns whether setup's user namespace holds ids beyond the caller's own (root: none made;
 * or mapped from outside), which the build's own namespace may then map (ns_vary's wide maps). */
static bool setup_namespace(const struct ns_plan *p)
{
    /* A clone without exec holds a copy of every descriptor of the daemon (the trace, the real
     * trees, the event socket, the signalfd): keep stdin/out/err and our two channels only. */
    int keep[4] = {p->sock_fd, p->report_fd}, n_keep = 2;
    if (p->map_sync_fd >= 0)
        keep[n_keep++] = p->map_sync_fd;
    if (p->watch_fd >= 0)
        keep[n_keep++] = p->watch_fd;
    close_all_but(STDERR_FILENO + 1, keep, n_keep);

    char mapped = 'S';
    if (p->user_namespace && p->map_sync_fd >= 0) {
        ssize_t n;
        do
            n = read(p->map_sync_fd, &mapped, 1);
        while (n < 0 && errno == EINTR);
        if (n != 1)
            mapped = 'S';
        close(p->map_sync_fd);
    }
    if (p->user_namespace && mapped != 'M') {
        if (write_file_at(AT_FDCWD, "/proc/self/setgroups", "deny") < 0 && errno != ENOENT)
            fail(p, NS_STEP_SETGROUPS, -1);
        if (write_file_at(AT_FDCWD, "/proc/self/uid_map", p->uid_map) < 0)
            fail(p, NS_STEP_UID_MAP, -1);
        if (write_file_at(AT_FDCWD, "/proc/self/gid_map", p->gid_map) < 0)
            fail(p, NS_STEP_GID_MAP, -1);
    }
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
        fail(p, NS_STEP_MAKE_PRIVATE, -1);
    /* A watched tree's mount of its own, so that the mark sees the build's opens alone. */
    for (int i = 0; i < p->n_watched && p->watch_fd >= 0; i++)
        if (mount(p->watched_paths[i], p->watched_paths[i], NULL, MS_BIND | MS_REC, NULL) < 0)
            fail(p, NS_STEP_WATCH_TREE, i);
    for (int i = 0; i < p->n_watch_marks && p->watch_fd >= 0; i++)
        if (fanotify_mark(p->watch_fd, FAN_MARK_ADD | FAN_MARK_MOUNT, p->watch_mask, AT_FDCWD,
                          p->watch_marks[i]) < 0)
            fail(p, NS_STEP_WATCH_MARK, i);
    if (p->watch_fd >= 0)
        close(p->watch_fd);
    return !p->user_namespace || mapped == 'M';
}

/* The FUSE filesystem mounted on the staging directory, its connection passed to the daemon,
 * each tree bind-mounted from it over its own path, the staging mount detached; the build's
 * stdout and stderr (FUSE files) in *out_fd and *err_fd. */
static void setup_mounts(const struct ns_plan *p, int *out_fd, int *err_fd)
{
    int fuse_fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
    if (fuse_fd < 0)
        fail(p, NS_STEP_OPEN_FUSE, -1);
    char opts[320];
    char *at = opts, *end = opts + sizeof opts - 1;
    at = append_str(at, end, "fd=");
    at = append_uint(at, end, (unsigned)fuse_fd);
    at = append_str(at, end, ",");
    at = append_str(at, end, p->fuse_options);
    *at = '\0';
    if (mount("buildtrail", p->staging, "fuse.buildtrail", 0, opts) < 0)
        fail(p, NS_STEP_MOUNT_FUSE, -1);
    if (send_fd(p->sock_fd, fuse_fd) < 0)
        fail(p, NS_STEP_SEND_FD, -1);
    close(fuse_fd);

    /* Everything below goes through the mount: the daemon is serving it now. */
    int staging_fd = open(p->staging, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (staging_fd < 0)
        fail(p, NS_STEP_OPEN_STAGING, -1);
    int tree_fds[NS_MAX_TREES];
    for (int i = 0; i < p->n_trees; i++) {
        char name[16] = "t";
        *append_uint(name + 1, name + sizeof name - 1, (unsigned)i) = '\0';
        tree_fds[i] = openat(staging_fd, name, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (tree_fds[i] < 0)
            fail(p, NS_STEP_OPEN_STAGING, i);
    }
    *out_fd = openat(staging_fd, "stdout", O_WRONLY | O_CLOEXEC);
    *err_fd = *out_fd < 0 ? -1 : openat(staging_fd, "stderr", O_WRONLY | O_CLOEXEC);
    if (*out_fd < 0 || *err_fd < 0)
        fail(p, NS_STEP_OPEN_STAGING, -1);

    for (int k = 0; k < p->n_trees; k++) {
        int i = p->mount_order[k];
        char src[32] = "/proc/self/fd/";
        *append_uint(src + 14, src + sizeof src - 1, (unsigned)tree_fds[i]) = '\0';
        if (mount(src, p->tree_paths[i], NULL, MS_BIND, NULL) < 0)
            fail(p, NS_STEP_BIND_TREE, i);
        if (p->tree_flags[i] &&
            mount(NULL, p->tree_paths[i], NULL, MS_REMOUNT | MS_BIND | p->tree_flags[i], NULL) < 0)
            fail(p, NS_STEP_BIND_TREE, i);
        close(tree_fds[i]);
    }
    char src[32] = "/proc/self/fd/";
    *append_uint(src + 14, src + sizeof src - 1, (unsigned)staging_fd) = '\0';
    if (umount2(src, MNT_DETACH) < 0)
        fail(p, NS_STEP_DETACH_STAGING, -1);
    close(staging_fd);
}

/* The new pid namespace and its init, which mounts its /proc; returns init's pid, and in
 * *ready_fd the end of the pipe whose closing tells that init died. */
static pid_t setup_init(const struct ns_plan *p, int *ready_fd)
{
    /* Every child of setup from here on is in the new pid namespace: the first is its init,
     * the second the build.  The build is setup's own child, so its status comes from the
     * kernel (waitpid), never from a channel the build could write into: setup is outside
     * the namespace, where the build cannot see it. */
    if (unshare(CLONE_NEWPID) < 0)
        fail(p, NS_STEP_UNSHARE_PID, -1);
    int ready[2];
    if (pipe2(ready, O_CLOEXEC) < 0)
        fail(p, NS_STEP_FORK_INIT, -1);
    pid_t init = fork();
    if (init < 0)
        fail(p, NS_STEP_FORK_INIT, -1);
    if (init == 0) {
        /* If setup dies, init (and with it the whole namespace) dies too. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        run_init(p, ready[1]);
    }
    close(ready[1]);
    int init_err = -1;
    ssize_t n;
    do
        n = read(ready[0], &init_err, sizeof init_err);
    while (n < 0 && errno == EINTR);
    if (n != (ssize_t)sizeof init_err || init_err) {
        errno = n == (ssize_t)sizeof init_err ? init_err : ECHILD;
        fail(p, NS_STEP_MOUNT_PROC, -1);
    }
    if (p->guard_len) {
        /* On setup itself, so that the build and all it starts inherit it (init has its own,
         * see run_init); setup makes none of the filtered calls from here on. */
        struct sock_fprog prog = {.len = p->guard_len, .filter = (struct sock_filter *)p->guard_filter};
        long guard = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
                             SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
        if (guard < 0)
            fail(p, NS_STEP_GUARD, -1);
        if (send_fd(p->sock_fd, (int)guard) < 0)
            fail(p, NS_STEP_GUARD, -1);
        close((int)guard);
    }
    *ready_fd = ready[0];
    return init;
}

/* The build forked, init's pid sent to the daemon, and NS_STEP_STARTED reported once the
 * build's exec succeeded; returns the build's pid. */
static pid_t setup_build(const struct ns_plan *p, pid_t init, int proc_fd, int out_fd,
                         int err_fd, bool wide)
{
    int started[2], up[2] = {-1, -1}, down[2] = {-1, -1};
    if (pipe2(started, O_CLOEXEC) < 0 ||
        (p->vary.nest_user && (pipe2(up, O_CLOEXEC) < 0 || pipe2(down, O_CLOEXEC) < 0)))
        fail(p, NS_STEP_FORK_BUILD, -1);
    pid_t build = fork();
    if (build < 0)
        fail(p, NS_STEP_FORK_BUILD, -1);
    if (build == 0) {
        close(p->sock_fd);
        close(started[0]);
        if (proc_fd >= 0)
            close(proc_fd);
        int nest[2] = {down[0], up[1]};
        if (up[0] >= 0) {
            close(up[0]);
            close(down[1]);
        }
        run_build(p, out_fd, err_fd, started[1], nest);
    }
    close(started[1]);
    if (up[0] >= 0) {
        close(up[1]);
        close(down[0]);
        write_nest_map(p, proc_fd, up[0], down[1], wide);
    }
    close(out_fd);
    close(err_fd);
    ssize_t n;
    do
        n = write(p->sock_fd, &init, sizeof init);
    while (n < 0 && errno == EINTR);
    close(p->sock_fd);
    /* EOF: the build's exec succeeded (its end was close-on-exec) — the daemon then puts the
     * trace in place of the old one.  A byte: it failed, and says why itself. */
    char byte;
    do
        n = read(started[0], &byte, 1);
    while (n < 0 && errno == EINTR);
    close(started[0]);
    if (n == 0)
        report(p, NS_STEP_STARTED, 0, -1);
    return build;
}

/* Wait for the build and report its status; then, unless init is gone already, the time and
 * init killed, with whatever the build left running. */
static _Noreturn void setup_wait(const struct ns_plan *p, pid_t init, pid_t build, int ready_fd,
                                 int proc_fd)
{
    /* Init killed from outside (nothing inside can) ends the namespace: the kernel kills the
     * build, and we reap it before init's own exit completes (init waits for that).  But
     * init's descriptors are closed before the build is killed, so the ready pipe's end
     * tells: it is reported before the build's status. */
    bool init_done = false;
    int status = 0x7f00;
    for (;;) {
        int st;
        pid_t w = waitpid(-1, &st, 0);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            break;
        if (w == init && !init_done) {
            init_done = true;
            report(p, NS_STEP_INIT_DIED, WIFSIGNALED(st) ? WTERMSIG(st) : 0, -1);
        } else if (w == build) {
            status = st;
            break;
        }
    }
    if (!init_done && init_gone(ready_fd)) {
        init_done = true;
        report(p, NS_STEP_INIT_DIED, SIGKILL, -1); /* only SIGKILL ends it from outside */
    }
    close(ready_fd);
    report(p, NS_STEP_STATUS, status, -1);
    if (!init_done) {
        /* The daemon marks what dies of SIGKILL from now on as left running by the build. */
        settle_dying(proc_fd);
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        struct ns_report r = {NS_STEP_KILL_LEFT, 0, -1,
                              (long long)now.tv_sec * 1000000000LL + now.tv_nsec};
        ssize_t w;
        do
            w = write(p->report_fd, &r, sizeof r);
        while (w < 0 && errno == EINTR);
    }
    close(p->report_fd);
    if (!init_done) {
        kill(init, SIGKILL); /* and with it whatever the build left running */
        while (waitpid(init, NULL, 0) < 0 && errno == EINTR)
            ;
    }
    _exit(0);
}

static _Noreturn void run_setup(const struct ns_plan *p)
{
    /* If the daemon dies, so does the build: nothing may be left behind. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    bool wide = setup_namespace(p);
    int out_fd, err_fd, ready_fd;
    setup_mounts(p, &out_fd, &err_fd);
    pid_t init = setup_init(p, &ready_fd);
    /* The namespace's /proc (init mounted it), opened before the build runs: settle_dying. */
    int proc_fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct statfs sfs;
    if (proc_fd >= 0 && (fstatfs(proc_fd, &sfs) < 0 || sfs.f_type != PROC_SUPER_MAGIC)) {
        close(proc_fd);
        proc_fd = -1;
    }
    pid_t build = setup_build(p, init, proc_fd, out_fd, err_fd, wide);
    setup_wait(p, init, build, ready_fd, proc_fd);
}

pid_t ns_spawn(const struct ns_plan *plan)
{
    unsigned long flags = CLONE_NEWNS | SIGCHLD;
    if (plan->user_namespace)
        flags |= CLONE_NEWUSER;
    /* A fork-like clone (no new stack): the child continues here with its own copy. */
    long pid = syscall(SYS_clone, flags, NULL, NULL, NULL, NULL);
    if (pid < 0)
        return -errno;
    if (pid == 0)
        run_setup(plan);
    return (pid_t)pid;
}
