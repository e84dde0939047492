/* atgen — a workload whose correct attribution is known exactly (tests/shell/t5100).
 *
 * `atgen run N` starts N processes, eight at a time.  Every process carries a unique marker in
 * argv[2] and touches only things named after it: it reads in/MARKER, writes out/MARKER (or
 * out/MARKER.SUFFIX), prints "MARKER..." lines on stdout and stderr.  So the process that must
 * be credited with any file access or output line can be read off its name.  The kinds of
 * process (chosen by number) are the hostile ones: exec after traced I/O, threads, a double-
 * forked daemon that writes after its parent exited, `sh -c 'cmd > f'` redirections, a
 * MAP_SHARED writer, vfork+exec, an io_uring writer, an exec from a thread other than the main
 * one, and a process whose main thread exits before its other thread.  As root it also writes
 * the build's /proc/sys/kernel/ns_last_pid so that pids are reused quickly.
 *
 * The manifest (manifest.txt: "MARKER KIND" per process) lets the checker know what to expect.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char self[4096];

static void die(const char *what)
{
    fprintf(stderr, "atgen: %s: %s\n", what, strerror(errno));
    exit(2);
}

static void write_file(const char *path, const char *data)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0 || write(fd, data, strlen(data)) != (ssize_t)strlen(data) || close(fd) < 0)
        die(path);
}

static void read_input(const char *marker)
{
    char path[256], buf[256];
    snprintf(path, sizeof path, "in/%s", marker);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || read(fd, buf, sizeof buf) <= 0)
        die(path);
    close(fd);
}

/* The marker's own output: a file, a line on each stream. */
static void own_output(const char *name)
{
    char path[256], text[256];
    snprintf(path, sizeof path, "out/%s", name);
    snprintf(text, sizeof text, "%s wrote this\n", name);
    write_file(path, text);
    printf("%s out\n", name);
    fflush(stdout);
    fprintf(stderr, "%s err\n", name);
}

static void run_self(const char *kind, const char *marker)
{
    execl(self, "atgen", kind, marker, (char *)NULL);
    die("exec self");
}

/* ---- the kinds of process ---------------------------------------------------------------- */

static void kind_worker(const char *m)
{
    read_input(m);
    own_output(m);
}

/* Traced I/O, then exec (same pid): the new image is a new process record. */
/* Exec a worker whose marker is this one's with an X: the image that replaces this one. */
static void exec_successor(const char *m)
{
    char next[128];
    snprintf(next, sizeof next, "%sX", m);
    run_self("worker", next);
}

static void kind_execer(const char *m)
{
    read_input(m);
    own_output(m);
    exec_successor(m);
}

struct thread_arg {
    const char *m;
    int k;
};

static void *thread_main(void *p)
{
    struct thread_arg *a = p;
    char name[128];
    snprintf(name, sizeof name, "%s.t%d", a->m, a->k);
    own_output(name);
    return NULL;
}

/* Traced I/O, then a thread other than the main one execs: the process's pid stays, its old
 * leader thread is killed (the kernel reports its exit before the exec). */
static void *exec_thread_main(void *p)
{
    exec_successor(p);
    return NULL;
}

static void kind_thread_exec(const char *m)
{
    read_input(m);
    own_output(m);
    pthread_t t;
    if (pthread_create(&t, NULL, exec_thread_main, (void *)m) != 0)
        die("pthread_create");
    pthread_join(t, NULL); /* never returns: the exec ends this thread */
}

/* The main thread exits first; another thread writes after it, and ends the process. */
static void *late_thread_main(void *p)
{
    struct timespec ts = {0, 2000000};
    nanosleep(&ts, NULL);
    char name[128];
    snprintf(name, sizeof name, "%s.t0", (const char *)p);
    own_output(name);
    return NULL;
}

static void kind_leader_exit(const char *m)
{
    static char marker[64];
    snprintf(marker, sizeof marker, "%s", m);
    pthread_t t;
    if (pthread_create(&t, NULL, late_thread_main, marker) != 0)
        die("pthread_create");
    pthread_exit(NULL);
}

static void kind_threads(const char *m)
{
    pthread_t t[4];
    struct thread_arg a[4];
    for (int k = 0; k < 4; k++) {
        a[k] = (struct thread_arg){m, k};
        pthread_create(&t[k], NULL, thread_main, &a[k]);
    }
    for (int k = 0; k < 4; k++)
        pthread_join(t[k], NULL);
}

/* Double fork: the grandchild writes after its parent has exited. */
static void kind_daemon(const char *m)
{
    own_output(m);
    pid_t p = fork();
    if (p == 0) {
        setsid();
        char late[128];
        snprintf(late, sizeof late, "%sD", m);
        if (fork() == 0)
            run_self("daemon-late", late);
        _exit(0);
    }
    waitpid(p, NULL, 0);
}

static void kind_daemon_late(const char *m)
{
    /* Wait until reparented (the intermediate process is gone), then write. */
    for (int i = 0; i < 500 && getppid() != 1; i++) {
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
    }
    own_output(m);
}

/* sh opens the file (the redirection), atgen writes it. */
static void kind_redirect(const char *m)
{
    char cmd[sizeof self + 256];
    snprintf(cmd, sizeof cmd, "'%s' redirected %sR > out/%sR; true", self, m, m);
    execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
    die("exec sh");
}

static void kind_redirected(const char *m)
{
    printf("%s wrote this through a redirection\n", m);
}

/* Written through a shared mapping: the kernel writes back without a caller. */
static void kind_mmap(const char *m)
{
    char path[256], text[256];
    snprintf(path, sizeof path, "out/%s", m);
    int len = snprintf(text, sizeof text, "%s wrote this through mmap\n", m);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0 || ftruncate(fd, len) < 0)
        die(path);
    char *p = mmap(NULL, (size_t)len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED)
        die("mmap");
    memcpy(p, text, (size_t)len);
    msync(p, (size_t)len, MS_SYNC);
    munmap(p, (size_t)len);
    close(fd);
    printf("%s out\n", m);
}

static void kind_vfork(const char *m)
{
    own_output(m);
    char child[128];
    snprintf(child, sizeof child, "%sV", m);
    pid_t p = vfork();
    if (p == 0) {
        execl(self, "atgen", "worker", child, (char *)NULL);
        _exit(127);
    }
    waitpid(p, NULL, 0);
}

/* A write submitted through io_uring (raw syscalls: no liburing needed).  Buffered writes to
 * FUSE files are done by io-wq worker threads, which belong to the submitting process. */
static int uring_write(int fd, const void *buf, unsigned len)
{
    struct io_uring_params prm;
    memset(&prm, 0, sizeof prm);
    int ring = (int)syscall(__NR_io_uring_setup, 4, &prm);
    if (ring < 0)
        return -errno;
    size_t sq_sz = prm.sq_off.array + prm.sq_entries * sizeof(unsigned);
    size_t cq_sz = prm.cq_off.cqes + prm.cq_entries * sizeof(struct io_uring_cqe);
    char *sq = mmap(NULL, sq_sz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring,
                    IORING_OFF_SQ_RING);
    char *cq = mmap(NULL, cq_sz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring,
                    IORING_OFF_CQ_RING);
    struct io_uring_sqe *sqes = mmap(NULL, prm.sq_entries * sizeof(struct io_uring_sqe),
                                     PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring,
                                     IORING_OFF_SQES);
    if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED)
        return -ENOMEM;
    unsigned *tail = (unsigned *)(void *)(sq + prm.sq_off.tail);
    unsigned *mask = (unsigned *)(void *)(sq + prm.sq_off.ring_mask);
    unsigned *array = (unsigned *)(void *)(sq + prm.sq_off.array);
    unsigned idx = *tail & *mask;
    memset(&sqes[idx], 0, sizeof sqes[idx]);
    sqes[idx].opcode = IORING_OP_WRITE;
    sqes[idx].fd = fd;
    sqes[idx].addr = (unsigned long)buf;
    sqes[idx].len = len;
    sqes[idx].off = 0;
    array[idx] = idx;
    __atomic_store_n(tail, *tail + 1, __ATOMIC_RELEASE);
    if (syscall(__NR_io_uring_enter, ring, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0)
        return -errno;
    unsigned *chead = (unsigned *)(void *)(cq + prm.cq_off.head);
    struct io_uring_cqe *cqes = (struct io_uring_cqe *)(void *)(cq + prm.cq_off.cqes);
    int res = cqes[*chead & *(unsigned *)(void *)(cq + prm.cq_off.ring_mask)].res;
    __atomic_store_n(chead, *chead + 1, __ATOMIC_RELEASE);
    close(ring);
    return res;
}

static void kind_uring(const char *m)
{
    char path[256], text[256];
    snprintf(path, sizeof path, "out/%s", m);
    int len = snprintf(text, sizeof text, "%s wrote this through io_uring\n", m);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        die(path);
    int r = uring_write(fd, text, (unsigned)len);
    if (r < 0) { /* io_uring unavailable here: say so, write normally (the checker knows) */
        printf("%s no-io-uring\n", m);
        if (write(fd, text, (size_t)len) != len)
            die(path);
    } else {
        printf("%s out\n", m);
    }
    close(fd);
}

/* ---- the driver -------------------------------------------------------------------------- */

static const char *const kinds[] = {"execer", "threads", "redirect", "mmap", "vfork", "uring",
                                    "daemon", "thread-exec", "leader-exit", "worker"};

static void force_pid_reuse(void)
{
    /* Root in the build's pid namespace: make the next pids the ones just freed. */
    int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    (void)!write(fd, "300", 3);
    close(fd);
}

static int run(int n)
{
    mkdir("in", 0755);
    mkdir("out", 0755);
    FILE *manifest = fopen("manifest.txt", "w");
    if (!manifest)
        die("manifest.txt");
    int running = 0, daemons = 0, failed = 0;
    for (int i = 0; i < n; i++) {
        const char *kind = kinds[i % 16 < 9 ? i % 16 : 9];
        if (!strcmp(kind, "daemon") && ++daemons > 10)
            kind = "worker";
        char m[64], path[128];
        snprintf(m, sizeof m, "m%05d", i);
        fprintf(manifest, "%s %s\n", m, kind);
        snprintf(path, sizeof path, "in/%s", m);
        write_file(path, "input\n");
        snprintf(path, sizeof path, "in/%sX", m);
        if (!strcmp(kind, "execer") || !strcmp(kind, "thread-exec"))
            write_file(path, "input\n");
        snprintf(path, sizeof path, "in/%sV", m);
        if (!strcmp(kind, "vfork"))
            write_file(path, "input\n");
        if (i % 50 == 0)
            force_pid_reuse();
        pid_t p = fork();
        if (p < 0)
            die("fork");
        if (p == 0)
            run_self(kind, m);
        if (++running == 8) {
            int st;
            wait(&st);
            failed += !WIFEXITED(st) || WEXITSTATUS(st);
            running--;
        }
    }
    fclose(manifest);
    int st;
    while (wait(&st) > 0)
        failed += !WIFEXITED(st) || WEXITSTATUS(st);
    /* The daemons write after their parents exit: wait for them before ending the build. */
    for (int i = 0, left = 1; left && i < 3000; i++) {
        left = 0;
        for (int k = 6; k < n; k += 16) {
            char path[128];
            snprintf(path, sizeof path, "out/m%05dD", k);
            if (k / 16 < 10 && access(path, F_OK) != 0)
                left = 1;
        }
        if (left) {
            struct timespec ts = {0, 10000000};
            nanosleep(&ts, NULL);
        }
    }
    if (failed)
        fprintf(stderr, "atgen: %d processes failed\n", failed);
    return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
    ssize_t l = readlink("/proc/self/exe", self, sizeof self - 1);
    if (l <= 0)
        die("/proc/self/exe");
    self[l] = '\0';
    if (argc == 3 && !strcmp(argv[1], "run"))
        return run(atoi(argv[2]));
    if (argc != 3) {
        fprintf(stderr, "usage: atgen run N\n");
        return 2;
    }
    static const struct {
        const char *name;
        void (*fn)(const char *marker);
    } kinds_table[] = {
        {"worker", kind_worker}, {"execer", kind_execer}, {"threads", kind_threads},
        {"daemon", kind_daemon}, {"daemon-late", kind_daemon_late}, {"redirect", kind_redirect},
        {"redirected", kind_redirected}, {"mmap", kind_mmap}, {"vfork", kind_vfork},
        {"uring", kind_uring}, {"thread-exec", kind_thread_exec}, {"leader-exit", kind_leader_exit},
    };
    for (size_t i = 0; i < sizeof kinds_table / sizeof kinds_table[0]; i++) {
        if (!strcmp(argv[1], kinds_table[i].name)) {
            kinds_table[i].fn(argv[2]);
            return 0;
        }
    }
    fprintf(stderr, "atgen: unknown kind %s\n", argv[1]);
    return 2;
}
