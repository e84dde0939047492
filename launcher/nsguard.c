/* nsguard — see nsguard.h. */
#include "nsguard.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#define X32_BIT 0x40000000u
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#elif defined(__riscv) && __riscv_xlen == 64
#define NATIVE_ARCH AUDIT_ARCH_RISCV64
#else
#error "nsguard: no seccomp architecture for this machine"
#endif

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i))
#else
#define ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i) + 4)
#endif

#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif
/* open_tree's copy into a mount namespace of its own (Linux 7.0), whose descriptor open_tree
 * without a copy takes as a source: not in this glibc's headers. */
#ifndef OPEN_TREE_NAMESPACE
#define OPEN_TREE_NAMESPACE 2
#endif
/* open_tree_attr (Linux 6.15): open_tree with mount attributes; one number on every
 * architecture since 424, but not in older headers. */
#ifndef SYS_open_tree_attr
#define SYS_open_tree_attr 467
#endif

/* The calls, by this machine's numbers. */
static const long native_flag_calls[] = { /* notified when arg 0 has CLONE_NEWNS */
    SYS_unshare, SYS_clone,
};
static const long native_calls[] = { /* always notified; the daemon judges */
    SYS_setns, SYS_mount, SYS_umount2, SYS_pivot_root,
#ifdef SYS_clone3
    SYS_clone3,
#endif
#ifdef SYS_open_tree
    SYS_open_tree, SYS_move_mount, SYS_fsmount,
#endif
    SYS_open_tree_attr,
    SYS_seccomp, /* not for the view: a listener asked for is refused (EBUSY), said at the end */
};

#ifdef X32_BIT
/* i386 numbers (arch/x86/entry/syscalls/syscall_32.tbl). */
enum { I386_MOUNT = 21, I386_UMOUNT = 22, I386_UMOUNT2 = 52, I386_CLONE = 120,
       I386_PIVOT_ROOT = 217, I386_UNSHARE = 310, I386_SETNS = 346, I386_OPEN_TREE = 428,
       I386_SECCOMP = 354, I386_MOVE_MOUNT = 429, I386_FSMOUNT = 432, I386_CLONE3 = 435,
       I386_OPEN_TREE_ATTR = 467 };
static const long i386_flag_calls[] = {I386_UNSHARE, I386_CLONE};
static const long i386_calls[] = {I386_SETNS, I386_MOUNT, I386_UMOUNT, I386_UMOUNT2,
                                  I386_PIVOT_ROOT, I386_CLONE3, I386_OPEN_TREE,
                                  I386_MOVE_MOUNT, I386_FSMOUNT, I386_OPEN_TREE_ATTR,
                                  I386_SECCOMP};
#endif

/* ---- the filter ---------------------------------------------------------------------------- */

enum { L_NONE = -1, L_FLAGS, L_NOTIFY, L_ALLOW, L_FOREIGN, L_COUNT };

struct emitter {
    struct sock_filter *f;
    size_t n;
    int jt[NSGUARD_FILTER_MAX], jf[NSGUARD_FILTER_MAX]; /* label to jump to, or L_NONE */
    size_t at[L_COUNT];
};

static void emit(struct emitter *e, uint16_t code, uint32_t k, int jt, int jf)
{
    g_assert(e->n < NSGUARD_FILTER_MAX);
    e->f[e->n] = (struct sock_filter)BPF_JUMP(code, k, 0, 0);
    e->jt[e->n] = jt;
    e->jf[e->n] = jf;
    e->n++;
}

static void emit_calls(struct emitter *e, const long *flag_calls, size_t n_flag,
                       const long *calls, size_t n_calls)
{
    emit(e, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr), L_NONE, L_NONE);
#ifdef X32_BIT
    if (flag_calls == native_flag_calls) /* x32 calls are x86-64's with a bit set */
        emit(e, BPF_ALU | BPF_AND | BPF_K, ~X32_BIT, L_NONE, L_NONE);
#endif
    for (size_t i = 0; i < n_flag; i++)
        emit(e, BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)flag_calls[i], L_FLAGS, L_NONE);
    for (size_t i = 0; i < n_calls; i++)
        emit(e, BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)calls[i], L_NOTIFY, L_NONE);
    emit(e, BPF_RET | BPF_K, SECCOMP_RET_ALLOW, L_NONE, L_NONE);
}

size_t nsguard_filter(struct sock_filter *out, bool refuse)
{
    struct emitter e = {.f = out};
    emit(&e, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch), L_NONE, L_NONE);
    emit(&e, BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, L_NONE, L_FOREIGN);
    emit_calls(&e, native_flag_calls, G_N_ELEMENTS(native_flag_calls), native_calls,
               G_N_ELEMENTS(native_calls));
    e.at[L_FOREIGN] = e.n;
#ifdef X32_BIT
    emit(&e, BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_I386, L_NONE, L_NOTIFY);
    emit_calls(&e, i386_flag_calls, G_N_ELEMENTS(i386_flag_calls), i386_calls,
               G_N_ELEMENTS(i386_calls));
#else
    emit(&e, BPF_JMP | BPF_JA, 0, L_NONE, L_NONE);
    e.jt[e.n - 1] = L_NOTIFY; /* another ABI: every call, judged by the daemon as unknown */
#endif
    e.at[L_FLAGS] = e.n;
    emit(&e, BPF_LD | BPF_W | BPF_ABS, ARG_LO(0), L_NONE, L_NONE);
    emit(&e, BPF_JMP | BPF_JSET | BPF_K, CLONE_NEWNS, L_NOTIFY, L_ALLOW);
    e.at[L_NOTIFY] = e.n;
    emit(&e, BPF_RET | BPF_K, refuse ? SECCOMP_RET_ERRNO | EPERM : SECCOMP_RET_USER_NOTIF,
         L_NONE, L_NONE);
    e.at[L_ALLOW] = e.n;
    emit(&e, BPF_RET | BPF_K, SECCOMP_RET_ALLOW, L_NONE, L_NONE);
    for (size_t i = 0; i < e.n; i++) {
        if (BPF_CLASS(out[i].code) != BPF_JMP)
            continue;
        if (BPF_OP(out[i].code) == BPF_JA) {
            out[i].k = (uint32_t)(e.at[e.jt[i]] - i - 1);
            continue;
        }
        out[i].jt = e.jt[i] == L_NONE ? 0 : (uint8_t)(e.at[e.jt[i]] - i - 1);
        out[i].jf = e.jf[i] == L_NONE ? 0 : (uint8_t)(e.at[e.jf[i]] - i - 1);
    }
    return e.n;
}

int nsguard_probe(void)
{
    struct sock_filter f[NSGUARD_FILTER_MAX];
    struct sock_fprog prog = {.len = (unsigned short)nsguard_filter(f, false), .filter = f};
    pid_t pid = fork();
    if (pid < 0)
        return -errno;
    if (pid == 0) {
        /* No new privileges in this child alone: the filter needs it or CAP_SYS_ADMIN. */
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
            _exit(errno & 0xff);
        long fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER,
                          &prog);
        _exit(fd < 0 ? (errno & 0xff) : 0);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -errno;
    return WIFEXITED(st) ? -WEXITSTATUS(st) : -ECHILD;
}

/* ---- the guard thread ---------------------------------------------------------------------- */

struct nsguard {
    int fd, stop_fd;
    pthread_t thread;
    struct seccomp_notif_sizes sizes;
    /* The guard thread's; read after the join. */
    char *first; /* the first call judged as making an unwatched view */
    unsigned count;
    char *first_listener; /* the first process refused a seccomp listener of its own */
    unsigned listeners;
};

static void sanitize(char *s)
{
    for (; *s; s++)
        if (*s == ';' || *s == '\n' || (unsigned char)*s < 0x20)
            *s = ',';
}

static bool read_memory(pid_t pid, uint64_t addr, void *out, size_t len)
{
    struct iovec local = {out, len}, remote = {(void *)(uintptr_t)addr, len};
    return process_vm_readv(pid, &local, 1, &remote, 1, 0) == (ssize_t)len;
}

static void read_path(pid_t pid, uint64_t addr, char *out, size_t size)
{
    out[0] = '\0';
    size_t have = 0;
    while (addr && have < size - 1) { /* a page at a time: the string may end before a hole */
        size_t chunk = 4096 - (size_t)((addr + have) % 4096);
        if (chunk > size - 1 - have)
            chunk = size - 1 - have;
        struct iovec local = {out + have, chunk}, remote = {(void *)(uintptr_t)(addr + have), chunk};
        ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
        if (n <= 0)
            break;
        if (memchr(out + have, '\0', (size_t)n))
            return;
        have += (size_t)n;
    }
    out[have] = '\0';
    if (!out[0])
        g_strlcpy(out, "?", size);
}

/* What call `n` does, in words, if it makes a view of the trees without marks; NULL if not.
 * *listener: it asks for a seccomp listener, which the kernel refuses to a process that has
 * one in its filters already (ours). */
static char *judge(const struct seccomp_notif *n, bool *listener)
{
    const __u64 *a = n->data.args;
    long nr = n->data.nr;
    __u64 a32[6];
    enum { UNSHARE, CLONE, CLONE3, SETNS, MOUNT, UMOUNT, PIVOT, OPEN_TREE, MOVE, FSMOUNT,
           SECCOMP, OTHER } call = OTHER;
    *listener = false;
    if (n->data.arch == NATIVE_ARCH) {
#ifdef X32_BIT
        nr &= ~(long)X32_BIT;
#endif
        call = nr == SYS_unshare ? UNSHARE : nr == SYS_clone ? CLONE : nr == SYS_setns ? SETNS
             : nr == SYS_mount ? MOUNT : nr == SYS_umount2 ? UMOUNT
             : nr == SYS_pivot_root ? PIVOT : OTHER;
#ifdef SYS_clone3
        if (nr == SYS_clone3)
            call = CLONE3;
#endif
#ifdef SYS_open_tree
        call = nr == SYS_open_tree ? OPEN_TREE : nr == SYS_move_mount ? MOVE
             : nr == SYS_fsmount ? FSMOUNT : call;
#endif
        if (nr == SYS_open_tree_attr)
            call = OPEN_TREE;
        if (nr == SYS_seccomp)
            call = SECCOMP;
    }
#ifdef X32_BIT
    else if (n->data.arch == AUDIT_ARCH_I386) {
        /* The kernel takes the low 32 bits of each register; a 64-bit process calling
         * through int 0x80 can set the high ones, which seccomp passes on as they are. */
        for (size_t i = 0; i < G_N_ELEMENTS(a32); i++)
            a32[i] = (uint32_t)a[i];
        a = a32;
        call = nr == I386_UNSHARE ? UNSHARE : nr == I386_CLONE ? CLONE : nr == I386_CLONE3 ? CLONE3
             : nr == I386_SETNS ? SETNS : nr == I386_MOUNT ? MOUNT
             : nr == I386_UMOUNT || nr == I386_UMOUNT2 ? UMOUNT : nr == I386_PIVOT_ROOT ? PIVOT
             : nr == I386_OPEN_TREE || nr == I386_OPEN_TREE_ATTR ? OPEN_TREE
             : nr == I386_MOVE_MOUNT ? MOVE
             : nr == I386_FSMOUNT ? FSMOUNT : nr == I386_SECCOMP ? SECCOMP : OTHER;
    }
#endif
    else {
        return g_strdup_printf("a call of another ABI (audit arch 0x%x, number %ld) could not "
                               "be judged", n->data.arch, nr);
    }
    pid_t pid = (pid_t)n->pid;
    char path[PATH_MAX];
    switch (call) {
    case UNSHARE:
    case CLONE:
        if (!(a[0] & CLONE_NEWNS))
            return NULL;
        return g_strdup_printf("made a mount namespace of its own (%s with CLONE_NEWNS)",
                               call == UNSHARE ? "unshare" : "clone");
    case CLONE3: {
        uint64_t flags; /* struct clone_args begins with the u64 flags */
        if (!read_memory(pid, a[0], &flags, sizeof flags))
            /* Memory we cannot read the kernel may (memfd_secret pages refuse other
             * processes): judged as the worst it could be. */
            return g_strdup("may have made a mount namespace of its own (clone3 with flags "
                            "the daemon could not read)");
        if (!(flags & CLONE_NEWNS))
            return NULL;
        return g_strdup("made a mount namespace of its own (clone3 with CLONE_NEWNS)");
    }
    case SETNS: {
        if (!(a[1] & CLONE_NEWNS)) {
            if ((int)a[1] != 0)
                return NULL; /* another kind of namespace named */
            char link[64], target[64];
            snprintf(link, sizeof link, "/proc/%d/fd/%d", (int)pid, (int)a[0]);
            ssize_t l = readlink(link, target, sizeof target - 1);
            if (l > 0 && (target[l] = '\0', strncmp(target, "mnt:", 4)))
                return NULL; /* a descriptor of another namespace */
        }
        return g_strdup("entered a mount namespace of its own (setns)");
    }
    case MOUNT: {
        __u64 flags = a[3];
        if ((flags & MS_MGC_MSK) == MS_MGC_VAL)
            flags &= ~(__u64)MS_MGC_MSK; /* the old magic, which the kernel drops first: its
                                          * bits are MS_PRIVATE's and MS_SLAVE's */
        if (flags & MS_REMOUNT)
            return NULL; /* changes flags: no new mount */
        if ((flags & (MS_SHARED | MS_PRIVATE | MS_SLAVE | MS_UNBINDABLE)) &&
            !(flags & (MS_BIND | MS_MOVE)))
            return NULL; /* propagation alone */
        read_path(pid, a[1], path, sizeof path);
        return g_strdup_printf("mounted %s", path);
    }
    case UMOUNT:
        read_path(pid, a[0], path, sizeof path);
        return g_strdup_printf("unmounted %s", path);
    case PIVOT:
        return g_strdup("moved its root (pivot_root)");
    case OPEN_TREE:
        if (a[2] & OPEN_TREE_NAMESPACE)
            return g_strdup("made a mount namespace of its own (open_tree with "
                            "OPEN_TREE_NAMESPACE)");
        if (!(a[2] & OPEN_TREE_CLONE))
            return NULL; /* an O_PATH descriptor of the existing mount */
        return g_strdup("copied a mount (open_tree with OPEN_TREE_CLONE)");
    case MOVE:
        return g_strdup("moved a mount (move_mount)");
    case FSMOUNT:
        return g_strdup("made a mount (fsmount)");
    case SECCOMP:
        /* op and flags are ints to the kernel: only their low 32 bits count. */
        *listener = (uint32_t)a[0] == SECCOMP_SET_MODE_FILTER &&
                    ((uint32_t)a[1] & SECCOMP_FILTER_FLAG_NEW_LISTENER);
        return NULL;
    case OTHER:
        break;
    }
    return NULL;
}

/* "a build process (COMM, pid N)", from /proc while the caller waits. */
static char *who(const struct seccomp_notif *n)
{
    char comm[32] = "?", p[64];
    snprintf(p, sizeof p, "/proc/%d/comm", (int)n->pid);
    int fd = open(p, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t l = read(fd, comm, sizeof comm - 1);
        comm[l > 0 ? l : 0] = '\0';
        g_strchomp(comm);
        close(fd);
    }
    char *out = g_strdup_printf("a build process (%s, pid %u)", comm, n->pid);
    sanitize(out);
    return out;
}

static void take(struct nsguard *g, struct seccomp_notif *n)
{
    bool listener;
    g_autofree char *what = judge(n, &listener);
    /* Still the same caller (its memory and descriptors were what we read)? */
    if (ioctl(g->fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &n->id) < 0)
        return; /* killed while waiting: the call never ran */
    if (what && !g->count++) {
        g_autofree char *by = who(n);
        g->first = g_strdup_printf("%s %s", by, what);
        sanitize(g->first);
    }
    if (listener && !g->listeners++)
        g->first_listener = who(n);
}

static void *guard_main(void *arg)
{
    struct nsguard *g = arg;
    struct seccomp_notif *n = g_malloc(MAX(g->sizes.seccomp_notif, sizeof *n));
    struct seccomp_notif_resp *r =
        g_malloc(MAX(g->sizes.seccomp_notif_resp, sizeof *r));
    struct pollfd pf[2] = {{.fd = g->fd, .events = POLLIN}, {.fd = g->stop_fd, .events = POLLIN}};
    for (;;) {
        if (poll(pf, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (pf[0].revents & POLLIN) {
            memset(n, 0, MAX(g->sizes.seccomp_notif, sizeof *n));
            if (ioctl(g->fd, SECCOMP_IOCTL_NOTIF_RECV, n) == 0) {
                take(g, n);
                memset(r, 0, MAX(g->sizes.seccomp_notif_resp, sizeof *r));
                r->id = n->id;
                r->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
                /* ENOENT: the caller was killed meanwhile; nothing waits. */
                (void)ioctl(g->fd, SECCOMP_IOCTL_NOTIF_SEND, r);
            }
            continue; /* answer everything queued before looking at the stop */
        }
        if (pf[1].revents & POLLIN)
            break;
        if (pf[0].revents & (POLLHUP | POLLERR))
            break; /* no task carries the filter any more */
    }
    g_free(n);
    g_free(r);
    return NULL;
}

struct nsguard *nsguard_start(int fd, int *err)
{
    struct nsguard *g = g_new0(struct nsguard, 1);
    g->fd = fd;
    g->stop_fd = eventfd(0, EFD_CLOEXEC);
    int e = g->stop_fd < 0 ? errno : 0;
    if (!e && syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &g->sizes) < 0)
        e = errno;
    if (!e)
        e = pthread_create(&g->thread, NULL, guard_main, g);
    if (e) {
        *err = -e;
        if (g->stop_fd >= 0)
            close(g->stop_fd);
        close(fd);
        g_free(g);
        return NULL;
    }
    return g;
}

char *nsguard_stop(struct nsguard *g, char **refused)
{
    if (refused)
        *refused = NULL;
    if (!g)
        return NULL;
    uint64_t one = 1;
    ssize_t w;
    do /* an eventfd write fails only at a counter of 2^64-1: never here */
        w = write(g->stop_fd, &one, sizeof one);
    while (w < 0 && errno == EINTR);
    pthread_join(g->thread, NULL);
    close(g->stop_fd);
    close(g->fd);
    char *out = NULL;
    if (g->first)
        out = g_strdup_printf("%s, where opens in the watched system trees are not seen%s: "
                              "record such a build with --system=full",
                              g->first, g->count > 1 ? " (and more such calls)" : "");
    if (g->first_listener && refused)
        *refused = g_strdup_printf("%s asked for a seccomp listener of its own%s, which the "
                                   "kernel refuses (EBUSY) under the one --system as root "
                                   "holds: run such a build with --system=full",
                                   g->first_listener, g->listeners > 1 ? " (and more)" : "");
    g_free(g->first);
    g_free(g->first_listener);
    g_free(g);
    return out;
}
