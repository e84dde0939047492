/* Unit tests: the mount-call guard (launcher/nsguard.h) — which calls of a guarded process are
 * judged as making a view of the system trees without fanotify marks.  The calls are made with
 * arguments that make them fail (or do nothing) after the guard has seen them: the filter is
 * run before the kernel looks at the arguments, so this runs unprivileged too (with
 * no_new_privs, which a filter needs without CAP_SYS_ADMIN). */
#include "nsguard.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <glib.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <string.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* Run `calls` in a child under the guard's filter; what the guard says afterwards (and in
 * *refused, if given, about seccomp listeners). */
static char *guarded_refused(void (*calls)(void), char **refused)
{
    int sv[2]; /* the child says its listener's number; we take a copy with pidfd_getfd */
    g_assert_cmpint(pipe2(sv, O_CLOEXEC), ==, 0);
    pid_t pid = fork();
    g_assert_cmpint(pid, >=, 0);
    if (pid == 0) {
        struct sock_filter f[NSGUARD_FILTER_MAX];
        struct sock_fprog prog = {.len = (unsigned short)nsguard_filter(f, false), .filter = f};
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
            _exit(2);
        long fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
                          SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
        int n = (int)fd;
        if (fd < 0 || write(sv[1], &n, sizeof n) != sizeof n)
            _exit(3);
        calls();
        _exit(0);
    }
    close(sv[1]);
    int n = -1;
    g_assert_cmpint(read(sv[0], &n, sizeof n), ==, sizeof n);
    close(sv[0]);
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    g_assert_cmpint(pidfd, >=, 0);
    int fd = (int)syscall(SYS_pidfd_getfd, pidfd, n, 0);
    g_assert_cmpint(fd, >=, 0);
    close(pidfd);
    int err = 0;
    struct nsguard *g = nsguard_start(fd, &err);
    g_assert_nonnull(g);
    int st;
    g_assert_cmpint(waitpid(pid, &st, 0), ==, pid);
    g_assert_true(WIFEXITED(st));
    g_assert_cmpint(WEXITSTATUS(st), ==, 0);
    return nsguard_stop(g, refused);
}

static char *guarded(void (*calls)(void))
{
    return guarded_refused(calls, NULL);
}

static void harmless_calls(void)
{
    (void)!syscall(SYS_unshare, 0);                              /* nothing to unshare */
    (void)!mount(NULL, "/nonexistent-bt", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL);
    (void)!mount(NULL, "/nonexistent-bt", NULL, MS_REC | MS_PRIVATE, NULL);
    int uts = open("/proc/self/ns/uts", O_RDONLY | O_CLOEXEC);
    (void)!syscall(SYS_setns, uts, 0);                           /* not a mount namespace */
    (void)!syscall(SYS_setns, uts, CLONE_NEWUTS);
    struct clone_args args = {0};
    (void)!syscall(SYS_clone3, &args, 0);                        /* size 0: EINVAL */
    (void)!syscall(SYS_open_tree, AT_FDCWD, "/nonexistent-bt", 0); /* no copy asked */
    if (getpid() < 0) /* an ordinary call */
        _exit(4);
}

static void test_harmless(void)
{
    char *what = guarded(harmless_calls);
    g_assert_null(what);
}

static void unshare_ns(void)
{
    /* CLONE_NEWNS with CLONE_SIGHAND is refused (EINVAL) after the filter ran. */
    (void)!syscall(SYS_unshare, CLONE_NEWNS | CLONE_SIGHAND | CLONE_VM);
}

static void clone3_ns(void)
{
    struct clone_args args = {.flags = CLONE_NEWNS};
    (void)!syscall(SYS_clone3, &args, 0); /* size 0: EINVAL */
}

static void clone3_secret(void)
{
    /* memfd_secret pages: this process reads them, no other one can (process_vm_readv). */
    int fd = (int)syscall(447 /* memfd_secret */, 0);
    if (fd < 0 || ftruncate(fd, 4096) < 0)
        _exit(8);
    struct clone_args *args = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (args == MAP_FAILED)
        _exit(9);
    memset(args, 0, sizeof *args);
    args->flags = CLONE_NEWNS;
    (void)!syscall(SYS_clone3, args, 0); /* size 0: EINVAL */
}

static void test_unreadable(void)
{
    int fd = (int)syscall(447 /* memfd_secret */, 0);
    if (fd < 0) {
        g_test_skip("no memfd_secret here");
        return;
    }
    close(fd);
    g_autofree char *what = guarded(clone3_secret);
    g_assert_nonnull(what);
    g_assert_nonnull(strstr(what, "may have made a mount namespace of its own (clone3 with "
                                  "flags the daemon could not read)"));
}

static void clone_ns(void)
{
    (void)!syscall(SYS_clone, CLONE_NEWNS | CLONE_FS, NULL, NULL, NULL, NULL); /* EINVAL */
}

static void setns_ns(void)
{
    (void)!syscall(SYS_setns, -1, CLONE_NEWNS); /* EBADF */
}

static void mount_tmpfs(void)
{
    (void)!mount("none", "/nonexistent-bt/usr", "tmpfs", 0, NULL);
}

static void mount_magic(void)
{
    /* MS_MGC_VAL, which old programs still pass, has the bits of MS_PRIVATE and MS_SLAVE: the
     * kernel drops it and makes a new mount, not a propagation change. */
    (void)!mount("none", "/nonexistent-bt/magic", "tmpfs", MS_MGC_VAL, NULL);
}

static void mounts_twice(void)
{
    (void)!mount("/usr", "/nonexistent-bt/a", NULL, MS_BIND | MS_REC, NULL);
    (void)!umount2("/nonexistent-bt/b", MNT_DETACH);
    (void)!syscall(SYS_open_tree, AT_FDCWD, "/nonexistent-bt", 1 /* OPEN_TREE_CLONE */);
}

static void open_tree_attr_clone(void)
{
    (void)!syscall(467 /* open_tree_attr */, AT_FDCWD, "/nonexistent-bt", 1, NULL, 0);
}

#if defined(__x86_64__)
/* An i386 call from this 64-bit process (int 0x80); the kernel takes each register's low 32
 * bits, so the high ones can be anything. */
static long int80(long nr, unsigned long a, unsigned long b)
{
    long ret;
    __asm__ volatile("int $0x80" : "=a"(ret) : "a"(nr), "b"(a), "c"(b) : "memory");
    return ret;
}

static bool have_int80(void)
{
    return int80(20 /* i386 getpid */, 0, 0) == getpid();
}

static void i386_clone3_ns(void)
{
    /* clone_args below 4 GiB, its address with garbage above: size 0 makes it EINVAL. */
    struct clone_args *args = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
                                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
    if (args == MAP_FAILED)
        _exit(7);
    memset(args, 0, sizeof *args);
    args->flags = CLONE_NEWNS;
    (void)int80(435 /* i386 clone3 */, 0xbad00000000ul | (uintptr_t)args, 0);
}

static void test_i386_high_bits(void)
{
    if (!have_int80()) {
        g_test_skip("no i386 calls here");
        return;
    }
    g_autofree char *what = guarded(i386_clone3_ns);
    g_assert_nonnull(what);
    g_assert_nonnull(strstr(what, "clone3 with CLONE_NEWNS"));
}
#endif

static void open_tree_namespace(void)
{
    /* OPEN_TREE_NAMESPACE (Linux 7.0; EINVAL before): a namespace descriptor that open_tree
     * without a copy then opens the root mount of, no other call needed. */
    (void)!syscall(SYS_open_tree, AT_FDCWD, "/nonexistent-bt", 2);
}

static void test_flagged(void)
{
    struct {
        void (*calls)(void);
        const char *says;
    } cases[] = {
        {unshare_ns, "made a mount namespace of its own (unshare with CLONE_NEWNS)"},
        {clone3_ns, "made a mount namespace of its own (clone3 with CLONE_NEWNS)"},
        {clone_ns, "made a mount namespace of its own (clone with CLONE_NEWNS)"},
        {setns_ns, "entered a mount namespace of its own (setns)"},
        {mount_tmpfs, "mounted /nonexistent-bt/usr, where opens"},
        {mount_magic, "mounted /nonexistent-bt/magic, where opens"},
        {open_tree_namespace, "made a mount namespace of its own (open_tree with "
                              "OPEN_TREE_NAMESPACE)"},
        {open_tree_attr_clone, "copied a mount (open_tree with OPEN_TREE_CLONE)"},
        {mounts_twice, "mounted /nonexistent-bt/a, where opens in the watched system trees are "
                       "not seen (and more such calls): record such a build with --system=full"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autofree char *what = guarded(cases[i].calls);
        g_assert_nonnull(what);
        if (!strstr(what, cases[i].says))
            g_error("case %zu: \"%s\" not in \"%s\"", i, cases[i].says, what);
        g_assert_null(strchr(what, ';')); /* one notes entry */
        g_assert_nonnull(strstr(what, "a build process ("));
    }
}

static void own_listener(void)
{
    struct sock_filter f[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
    struct sock_fprog prog = {.len = 1, .filter = f};
    long fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER,
                      &prog);
    if (fd >= 0 || errno != EBUSY) /* one listener per filter chain: ours */
        _exit(5);
    if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0) /* a filter alone: fine */
        _exit(6);
}

static void own_listener_high_bits(void)
{
    /* op and flags are ints to the kernel: bits above them do not change the call. */
    struct sock_filter f[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
    struct sock_fprog prog = {.len = 1, .filter = f};
    long fd = syscall(SYS_seccomp, (1ul << 32) | SECCOMP_SET_MODE_FILTER,
                      (1ul << 32) | SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
    if (fd >= 0 || errno != EBUSY)
        _exit(5);
}

static void test_listener(void)
{
    char *refused = NULL;
    char *what = guarded_refused(own_listener, &refused);
    g_assert_null(what); /* not an unseen view */
    g_assert_nonnull(refused);
    g_assert_nonnull(strstr(refused, "asked for a seccomp listener of its own, which the kernel "
                                     "refuses (EBUSY)"));
    g_free(refused);
    g_assert_null(guarded_refused(own_listener_high_bits, &refused));
    g_assert_nonnull(refused);
    g_free(refused);
    g_assert_null(guarded_refused(harmless_calls, &refused));
    g_assert_null(refused);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    if (nsguard_probe() < 0) {
        g_print("SKIP: no seccomp user notifications here\n");
        return 0;
    }
    g_test_add_func("/nsguard/harmless", test_harmless);
    g_test_add_func("/nsguard/flagged", test_flagged);
    g_test_add_func("/nsguard/listener", test_listener);
    g_test_add_func("/nsguard/unreadable", test_unreadable);
#if defined(__x86_64__)
    g_test_add_func("/nsguard/i386-high-bits", test_i386_high_bits);
#endif
    return g_test_run();
}
