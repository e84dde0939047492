/* fuse-uring-proto — what one FUSE round trip costs on this machine, over /dev/fuse and over
 * io_uring (issue "Speed", option 3).  A measurement, not part of buildtrail.
 *
 * It mounts a tiny filesystem (a root directory in which every name is missing) on a private
 * directory in a private mount namespace, then a child process stat()s missing names N times
 * (each one LOOKUP round trip: failed lookups are not cached) and prints microseconds per stat.
 *
 *   fuse-uring-proto [-u] [-n N] [-c CPU] [-t THREADS]
 *     -u  serve over io_uring: one queue per possible CPU, its thread pinned there, so a
 *         request is answered on the CPU that made it (needs root and
 *         /sys/module/fuse/parameters/enable_uring = Y, kernel >= 6.14)
 *     -n  number of stats (default 200000)
 *     -c  pin the client to this CPU (default: not pinned)
 *     -t  /dev/fuse reader threads without -u (default 2)
 *
 * Root only (it mounts).  The kernel's FUSE io_uring ABI (protocol 7.42: REGISTER and
 * COMMIT_AND_FETCH commands in an SQE128, a 288-byte header and a payload buffer per entry) is
 * declared here: Debian 12's <linux/fuse.h> predates it. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <liburing.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- the io_uring ABI of protocol 7.42 ---------------------------------------------------- */
#define PROTO_OVER_IO_URING (1ULL << 41)
#define PROTO_URING_IN_OUT_HEADER_SZ 128
#define PROTO_URING_OP_IN_OUT_SZ 128
struct proto_uring_ent_in_out {
    uint64_t flags;
    uint64_t commit_id;
    uint32_t payload_sz;
    uint32_t padding;
    uint64_t reserved;
};
struct proto_uring_req_header {
    char in_out[PROTO_URING_IN_OUT_HEADER_SZ];
    char op_in[PROTO_URING_OP_IN_OUT_SZ];
    struct proto_uring_ent_in_out ring_ent_in_out;
};
enum { PROTO_URING_CMD_REGISTER = 1, PROTO_URING_CMD_COMMIT_AND_FETCH = 2 };
struct proto_uring_cmd_req {
    uint64_t flags;
    uint64_t commit_id;
    uint16_t qid;
    uint8_t padding[6];
};

#define PAYLOAD_SZ (1 << 20)
#define ENTS_PER_QUEUE 2

static int fuse_fd = -1;
static bool use_uring;
static unsigned long served_dev, served_ring; /* requests answered each way (atomic) */

static void die(const char *what)
{
    fprintf(stderr, "fuse-uring-proto: %s: %s\n", what, strerror(errno));
    exit(2);
}

/* The answer to one request: `*out` gets the reply payload (len returned, -errno for an
 * error reply, or INT32_MIN for no reply at all). */
static int handle(const struct fuse_in_header *in, const void *arg, void *out)
{
    (void)arg;
    switch (in->opcode) {
    case FUSE_LOOKUP:
        return -ENOENT;
    case FUSE_GETATTR: {
        struct fuse_attr_out *a = out;
        memset(a, 0, sizeof *a);
        a->attr.ino = FUSE_ROOT_ID;
        a->attr.mode = S_IFDIR | 0755;
        a->attr.nlink = 2;
        return (int)sizeof *a;
    }
    case FUSE_FORGET:
    case FUSE_BATCH_FORGET:
    case FUSE_INTERRUPT:
        return INT32_MIN;
    default:
        return -ENOSYS;
    }
}

/* /dev/fuse: read a request, answer it, until the connection ends. */
static void *dev_thread(void *unused)
{
    (void)unused;
    size_t size = PAYLOAD_SZ + 4096;
    char *buf = malloc(size), out[4096];
    for (;;) {
        ssize_t n = read(fuse_fd, buf, size);
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN || errno == ENOENT)
                continue;
            return NULL; /* ENODEV: unmounted */
        }
        const struct fuse_in_header *in = (const void *)buf;
        __atomic_add_fetch(&served_dev, 1, __ATOMIC_RELAXED);
        int r = handle(in, buf + sizeof *in, out);
        if (r == INT32_MIN)
            continue;
        struct fuse_out_header oh = {.unique = in->unique, .error = r < 0 ? r : 0};
        struct iovec iov[2] = {{&oh, sizeof oh}, {out, r > 0 ? (size_t)r : 0}};
        oh.len = (uint32_t)(sizeof oh + iov[1].iov_len);
        if (writev(fuse_fd, iov, 2) < 0 && errno != ENOENT)
            return NULL;
    }
}

struct ent {
    struct proto_uring_req_header hdr;
    struct iovec iov[2];
    char *payload;
};

static void submit_cmd(struct io_uring *ring, struct ent *e, int op, uint16_t qid)
{
    struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
    if (!sqe) { /* never: each entry has at most one command in flight */
        errno = EBUSY;
        die("io_uring_get_sqe");
    }
    /* An SQE128: the command area runs into the second 64 bytes. */
    memset((char *)sqe, 0, 2 * sizeof *sqe);
    sqe->opcode = IORING_OP_URING_CMD;
    sqe->fd = fuse_fd;
    sqe->cmd_op = (uint32_t)op;
    sqe->addr = (uint64_t)(uintptr_t)e->iov;
    sqe->len = 2;
    sqe->user_data = (uint64_t)(uintptr_t)e;
    struct proto_uring_cmd_req *c = (void *)sqe->cmd;
    c->qid = qid;
    if (op == PROTO_URING_CMD_COMMIT_AND_FETCH)
        c->commit_id = e->hdr.ring_ent_in_out.commit_id;
}

/* One io_uring queue, pinned to CPU `qid`. */
static void *uring_thread(void *arg)
{
    uint16_t qid = (uint16_t)(uintptr_t)arg;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(qid, &set);
    if (sched_setaffinity(0, sizeof set, &set) < 0)
        die("sched_setaffinity");
    struct io_uring ring;
    int r = io_uring_queue_init(2 * ENTS_PER_QUEUE, &ring, IORING_SETUP_SQE128);
    if (r < 0) {
        errno = -r;
        die("io_uring_queue_init");
    }
    struct ent *ents = calloc(ENTS_PER_QUEUE, sizeof *ents);
    for (int i = 0; i < ENTS_PER_QUEUE; i++) {
        ents[i].payload = aligned_alloc(4096, PAYLOAD_SZ);
        ents[i].iov[0] = (struct iovec){&ents[i].hdr, sizeof ents[i].hdr};
        ents[i].iov[1] = (struct iovec){ents[i].payload, PAYLOAD_SZ};
        submit_cmd(&ring, &ents[i], PROTO_URING_CMD_REGISTER, qid);
    }
    io_uring_submit(&ring);
    for (;;) {
        struct io_uring_cqe *cqe;
        r = io_uring_wait_cqe(&ring, &cqe);
        if (r == -EINTR)
            continue;
        if (r < 0) {
            errno = -r;
            die("io_uring_wait_cqe");
        }
        struct ent *e = (void *)(uintptr_t)cqe->user_data;
        int res = cqe->res;
        io_uring_cqe_seen(&ring, cqe);
        if (res < 0) {
            if (res == -ENOTCONN || res == -ECANCELED || res == -ENODEV)
                return NULL; /* the connection ended */
            errno = -res;
            die("a FUSE io_uring command");
        }
        struct fuse_in_header in;
        memcpy(&in, e->hdr.in_out, sizeof in);
        __atomic_add_fetch(&served_ring, 1, __ATOMIC_RELAXED);
        char out[4096];
        int a = handle(&in, e->hdr.op_in, out);
        struct fuse_out_header oh = {.unique = in.unique, .error = a < 0 ? a : 0};
        size_t plen = a > 0 ? (size_t)a : 0;
        memcpy(e->payload, out, plen);
        oh.len = (uint32_t)(sizeof oh + plen);
        memcpy(e->hdr.in_out, &oh, sizeof oh);
        e->hdr.ring_ent_in_out.payload_sz = (uint32_t)plen;
        submit_cmd(&ring, e, PROTO_URING_CMD_COMMIT_AND_FETCH, qid);
        io_uring_submit(&ring);
    }
}

/* Answer INIT (read from /dev/fuse); false if io_uring was asked for and is not offered. */
static bool init_session(void)
{
    char buf[PAYLOAD_SZ + 4096];
    ssize_t n = read(fuse_fd, buf, sizeof buf);
    if (n < (ssize_t)(sizeof(struct fuse_in_header) + sizeof(struct fuse_init_in)))
        die("reading INIT");
    const struct fuse_in_header *in = (const void *)buf;
    const struct fuse_init_in *ii = (const void *)(buf + sizeof *in);
    struct fuse_init_out io = {
        .major = FUSE_KERNEL_VERSION,
        .minor = ii->minor,
        .max_readahead = ii->max_readahead,
        .flags = FUSE_INIT_EXT | FUSE_MAX_PAGES,
        .max_background = 16,
        .congestion_threshold = 12,
        .max_write = 128 * 1024,
        .max_pages = 32,
        .flags2 = use_uring ? (uint32_t)(PROTO_OVER_IO_URING >> 32) : 0,
    };
    struct fuse_out_header oh = {.len = sizeof oh + sizeof io, .unique = in->unique};
    struct iovec iov[2] = {{&oh, sizeof oh}, {&io, sizeof io}};
    if (writev(fuse_fd, iov, 2) < 0)
        die("answering INIT");
    if (use_uring && !(((uint64_t)ii->flags2 << 32) & PROTO_OVER_IO_URING)) {
        fprintf(stderr, "fuse-uring-proto: the kernel does not offer FUSE over io_uring "
                        "(echo Y > /sys/module/fuse/parameters/enable_uring)\n");
        return false;
    }
    return true;
}

static int possible_cpus(void)
{
    FILE *f = fopen("/sys/devices/system/cpu/possible", "r");
    int lo = 0, hi = 0;
    if (!f || fscanf(f, "%d-%d", &lo, &hi) < 1)
        hi = 0;
    if (f)
        fclose(f);
    return hi + 1;
}

int main(int argc, char **argv)
{
    long n = 200000;
    int client_cpu = -1, threads = 2, opt;
    while ((opt = getopt(argc, argv, "un:c:t:")) != -1) {
        switch (opt) {
        case 'u': use_uring = true; break;
        case 'n': n = atol(optarg); break;
        case 'c': client_cpu = atoi(optarg); break;
        case 't': threads = atoi(optarg); break;
        default:
            fprintf(stderr, "usage: fuse-uring-proto [-u] [-n N] [-c CPU] [-t THREADS]\n");
            return 2;
        }
    }
    if (geteuid() != 0) {
        fprintf(stderr, "fuse-uring-proto: needs root (it mounts)\n");
        return 77;
    }
    if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
        die("a private mount namespace");
    char dir[] = "/tmp/fuse-uring-proto.XXXXXX";
    if (!mkdtemp(dir))
        die("mkdtemp");
    fuse_fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
    if (fuse_fd < 0)
        die("/dev/fuse");
    char opts[128];
    snprintf(opts, sizeof opts, "fd=%d,rootmode=40000,user_id=0,group_id=0", fuse_fd);
    if (mount("proto", dir, "fuse.proto", MS_NOSUID | MS_NODEV, opts) < 0)
        die("mount");
    if (!init_session()) {
        umount2(dir, MNT_DETACH);
        rmdir(dir);
        return 77;
    }
    pthread_t t;
    int readers = use_uring ? 1 : threads; /* with io_uring: forgets and interrupts */
    for (int i = 0; i < readers; i++)
        pthread_create(&t, NULL, dev_thread, NULL);
    if (use_uring)
        for (int q = 0; q < possible_cpus(); q++)
            pthread_create(&t, NULL, uring_thread, (void *)(uintptr_t)q);
    usleep(200000); /* the queues registered: requests go through the ring from here */

    pid_t child = fork();
    if (child == 0) {
        if (client_cpu >= 0) {
            cpu_set_t set;
            CPU_ZERO(&set);
            CPU_SET(client_cpu, &set);
            if (sched_setaffinity(0, sizeof set, &set) < 0)
                die("sched_setaffinity");
        }
        char path[256];
        struct stat st;
        struct timespec a, b;
        for (int i = 0; i < 1000; i++) { /* warm up */
            snprintf(path, sizeof path, "%s/w%d", dir, i % 50);
            stat(path, &st);
        }
        clock_gettime(CLOCK_MONOTONIC, &a);
        for (long i = 0; i < n; i++) {
            snprintf(path, sizeof path, "%s/m%ld", dir, i % 50);
            if (stat(path, &st) == 0 || errno != ENOENT)
                die("stat of a missing name");
        }
        clock_gettime(CLOCK_MONOTONIC, &b);
        double us = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) /
                    1e3 / (double)n;
        char where[32] = "any CPU";
        if (client_cpu >= 0)
            snprintf(where, sizeof where, "CPU %d", client_cpu);
        printf("%s, client on %s: %.1f us per round trip (%ld stats)\n",
               use_uring ? "io_uring (a queue per CPU)" : "/dev/fuse", where, us, n);
        fflush(stdout);
        _exit(0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    printf("  requests answered: %lu through /dev/fuse, %lu through io_uring\n",
           __atomic_load_n(&served_dev, __ATOMIC_RELAXED),
           __atomic_load_n(&served_ring, __ATOMIC_RELAXED));
    umount2(dir, MNT_DETACH);
    rmdir(dir);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
