/* procevents — see procevents.h. */
#include "procevents.h"

#include <errno.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct procev {
    int fd;
    int64_t mono_to_boot_ns;
};

static int64_t clock_ns(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int procev_open(struct procev **out)
{
    int fd = socket(PF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_CONNECTOR);
    if (fd < 0)
        return -errno;
    /* As large a buffer as we may have: forks come in bursts (make -j, configure). */
    int size = 64 << 20;
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof size) < 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
    struct sockaddr_nl sa = {.nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC, .nl_pid = 0};
    if (bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
        int e = errno;
        close(fd);
        return -e;
    }
    /* nlmsghdr, then cn_msg, then the operation (cn_msg ends in a flexible array). */
    char msg[NLMSG_HDRLEN + sizeof(struct cn_msg) + sizeof(enum proc_cn_mcast_op)];
    memset(msg, 0, sizeof msg);
    struct nlmsghdr nl = {.nlmsg_len = sizeof msg, .nlmsg_type = NLMSG_DONE,
                          .nlmsg_pid = (unsigned)getpid()};
    struct cn_msg cn = {.id = {.idx = CN_IDX_PROC, .val = CN_VAL_PROC},
                        .len = sizeof(enum proc_cn_mcast_op)};
    enum proc_cn_mcast_op op = PROC_CN_MCAST_LISTEN;
    memcpy(msg, &nl, sizeof nl);
    memcpy(msg + NLMSG_HDRLEN, &cn, sizeof cn);
    memcpy(msg + NLMSG_HDRLEN + sizeof cn, &op, sizeof op);
    if (send(fd, msg, sizeof msg, 0) != (ssize_t)sizeof msg) {
        int e = errno;
        close(fd);
        return -e;
    }
    struct procev *p = calloc(1, sizeof *p);
    if (!p) {
        close(fd);
        return -ENOMEM;
    }
    p->fd = fd;
    p->mono_to_boot_ns = clock_ns(CLOCK_BOOTTIME) - clock_ns(CLOCK_MONOTONIC);
    *out = p;
    return 0;
}

void procev_close(struct procev *p)
{
    if (!p)
        return;
    close(p->fd);
    free(p);
}

int procev_fd(const struct procev *p)
{
    return p->fd;
}

int procev_parse(const void *buf, size_t len, int64_t mono_to_boot_ns, procev_fn fn, void *ctx)
{
    int n = 0;
    const char *at = buf;
    size_t left = len;
    while (left >= sizeof(struct nlmsghdr)) {
        struct nlmsghdr nh;
        memcpy(&nh, at, sizeof nh);
        if (nh.nlmsg_len < sizeof nh || nh.nlmsg_len > left)
            return -EINVAL;
        const char *payload = at + NLMSG_HDRLEN;
        size_t plen = nh.nlmsg_len > NLMSG_HDRLEN ? nh.nlmsg_len - NLMSG_HDRLEN : 0;
        if (nh.nlmsg_type != NLMSG_NOOP && nh.nlmsg_type != NLMSG_ERROR &&
            plen >= sizeof(struct cn_msg)) {
            struct cn_msg cn;
            memcpy(&cn, payload, sizeof cn);
            if (cn.id.idx == CN_IDX_PROC && cn.id.val == CN_VAL_PROC &&
                cn.len >= sizeof(struct proc_event) && sizeof cn + cn.len <= plen) {
                struct proc_event pe;
                memcpy(&pe, payload + sizeof cn, sizeof pe);
                struct procev_event ev = {0};
                ev.time_ns = (int64_t)pe.timestamp_ns + mono_to_boot_ns;
                switch (pe.what) {
                case PROC_EVENT_FORK:
                    ev.type = PROCEV_FORK;
                    ev.pid = pe.event_data.fork.child_pid;
                    ev.tgid = pe.event_data.fork.child_tgid;
                    ev.parent_pid = pe.event_data.fork.parent_pid;
                    ev.parent_tgid = pe.event_data.fork.parent_tgid;
                    break;
                case PROC_EVENT_EXEC:
                    ev.type = PROCEV_EXEC;
                    ev.pid = pe.event_data.exec.process_pid;
                    ev.tgid = pe.event_data.exec.process_tgid;
                    break;
                case PROC_EVENT_EXIT:
                    ev.type = PROCEV_EXIT;
                    ev.pid = pe.event_data.exit.process_pid;
                    ev.tgid = pe.event_data.exit.process_tgid;
                    ev.exit_code = (int)pe.event_data.exit.exit_code;
                    break;
                default:
                    break;
                }
                if (ev.type) {
                    fn(ctx, &ev);
                    n++;
                }
            }
        }
        size_t step = NLMSG_ALIGN(nh.nlmsg_len);
        if (step >= left)
            break;
        at += step;
        left -= step;
    }
    return n;
}

int procev_drain(struct procev *p, procev_fn fn, void *ctx)
{
    char buf[16384] __attribute__((aligned(8)));
    int lost = 0;
    for (;;) {
        ssize_t n = recv(p->fd, buf, sizeof buf, 0);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN)
                return lost ? -ENOBUFS : 0;
            if (errno == ENOBUFS) {
                lost = 1; /* the kernel dropped events; keep reading what is left */
                continue;
            }
            return -errno;
        }
        if (n == 0)
            return lost ? -ENOBUFS : 0;
        procev_parse(buf, (size_t)n, p->mono_to_boot_ns, fn, ctx);
    }
}
