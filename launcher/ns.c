/* ns — see ns.h.  After the clone, only async-signal-safe calls: no malloc, no stdio. */
#include "ns.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
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
    case NS_STEP_MOUNT_PROC: return "mount /proc for the build";
    case NS_STEP_FORK_BUILD: return "start the build";
    case NS_STEP_CHDIR: return "enter the working directory";
    case NS_STEP_EXEC: return "execute the build command";
    default: return "set up the build";
    }
}

static void report(const struct ns_plan *p, int step, int value, int tree)
{
    struct ns_report r = {step, value, tree};
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

static int write_file(const char *path, const char *data)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t len = strlen(data);
    ssize_t n = write(fd, data, len);
    int e = errno;
    close(fd);
    errno = e;
    return n == (ssize_t)len ? 0 : -1;
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

static void reset_signals(void)
{
    sigset_t all;
    sigemptyset(&all);
    for (int s = 1; s < NSIG; s++)
        if (s != SIGKILL && s != SIGSTOP)
            signal(s, SIG_DFL);
    sigprocmask(SIG_SETMASK, &all, NULL);
}

static _Noreturn void run_build(const struct ns_plan *p)
{
    reset_signals();
    if (chdir(p->cwd) < 0)
        fail(p, NS_STEP_CHDIR, -1);
    execvp(p->argv[0], p->argv);
    report(p, NS_STEP_EXEC, errno, -1);
    _exit(errno == ENOENT ? 127 : 126);
}

static _Noreturn void run_init(const struct ns_plan *p, int out_fd, int err_fd)
{
    /* We are pid 1 of the build's pid namespace: a /proc that shows it. */
    if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
        fail(p, NS_STEP_MOUNT_PROC, -1);
    if (dup2(out_fd, STDOUT_FILENO) < 0 || dup2(err_fd, STDERR_FILENO) < 0)
        fail(p, NS_STEP_FORK_BUILD, -1);
    if (out_fd > STDERR_FILENO)
        close(out_fd);
    if (err_fd > STDERR_FILENO)
        close(err_fd);

    pid_t build = fork();
    if (build < 0)
        fail(p, NS_STEP_FORK_BUILD, -1);
    if (build == 0)
        run_build(p);

    /* Reap everything; when the build itself exits, report and leave (the kernel then kills
     * whatever is left in the namespace). */
    for (;;) {
        int status;
        pid_t w = waitpid(-1, &status, 0);
        if (w < 0 && errno == EINTR)
            continue;
        if (w == build || w < 0) {
            report(p, NS_STEP_STATUS, w == build ? status : 0x7f00, -1);
            _exit(0);
        }
    }
}

static _Noreturn void run_setup(const struct ns_plan *p)
{
    /* If the daemon dies, so does the build: nothing may be left behind. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    for (int i = 0; i < 8 && p->close_fds[i] >= 0; i++)
        close(p->close_fds[i]);

    if (p->user_namespace) {
        if (write_file("/proc/self/setgroups", "deny") < 0 && errno != ENOENT)
            fail(p, NS_STEP_SETGROUPS, -1);
        if (write_file("/proc/self/uid_map", p->uid_map) < 0)
            fail(p, NS_STEP_UID_MAP, -1);
        if (write_file("/proc/self/gid_map", p->gid_map) < 0)
            fail(p, NS_STEP_GID_MAP, -1);
    }
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
        fail(p, NS_STEP_MAKE_PRIVATE, -1);

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
    int out_fd = openat(staging_fd, "stdout", O_WRONLY | O_CLOEXEC);
    int err_fd = out_fd < 0 ? -1 : openat(staging_fd, "stderr", O_WRONLY | O_CLOEXEC);
    if (out_fd < 0 || err_fd < 0)
        fail(p, NS_STEP_OPEN_STAGING, -1);

    for (int k = 0; k < p->n_trees; k++) {
        int i = p->mount_order[k];
        char src[32] = "/proc/self/fd/";
        *append_uint(src + 14, src + sizeof src - 1, (unsigned)tree_fds[i]) = '\0';
        if (mount(src, p->tree_paths[i], NULL, MS_BIND, NULL) < 0)
            fail(p, NS_STEP_BIND_TREE, i);
        close(tree_fds[i]);
    }
    {
        char src[32] = "/proc/self/fd/";
        *append_uint(src + 14, src + sizeof src - 1, (unsigned)staging_fd) = '\0';
        if (umount2(src, MNT_DETACH) < 0)
            fail(p, NS_STEP_DETACH_STAGING, -1);
        close(staging_fd);
    }

    if (unshare(CLONE_NEWPID) < 0)
        fail(p, NS_STEP_UNSHARE_PID, -1);
    pid_t init = fork();
    if (init < 0)
        fail(p, NS_STEP_FORK_INIT, -1);
    if (init == 0) {
        /* If setup dies, init (and with it the whole namespace) dies too. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        close(p->sock_fd);
        run_init(p, out_fd, err_fd);
    }
    close(out_fd);
    close(err_fd);
    ssize_t n;
    do
        n = write(p->sock_fd, &init, sizeof init);
    while (n < 0 && errno == EINTR);
    close(p->sock_fd);
    close(p->report_fd);

    int status;
    while (waitpid(init, &status, 0) < 0 && errno == EINTR)
        ;
    _exit(0);
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
