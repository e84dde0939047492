/* procevents — the kernel's process-events connector (netlink, cn_proc): fork, exec and exit of
 * every process, in the order they happened.
 *
 * Contract
 *   - procev_open() subscribes; it needs CAP_NET_ADMIN in the initial user namespace (root on
 *     the host): -EPERM otherwise, and callers fall back to /proc (proc.h says what that loses).
 *     The receive buffer is made as large as the kernel allows, so that a burst of forks is not
 *     lost.
 *   - procev_drain() reads every event queued so far, without blocking, and hands each to the
 *     callback in kernel order.  It returns 0, or -ENOBUFS when the kernel had to drop events
 *     (the caller must then treat the process tree as possibly incomplete), or another -errno.
 *   - Events are system-wide: filtering to the build is the caller's business.
 *   - pids are in the initial pid namespace; times are CLOCK_BOOTTIME ns (converted from the
 *     connector's CLOCK_MONOTONIC stamps).
 *   - Not thread-safe: one caller at a time (proc.c serialises with its events lock).
 *   - procev_parse() is the pure decoder behind procev_drain(), exposed for tests and fuzzing.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum procev_type { PROCEV_FORK = 1, PROCEV_EXEC, PROCEV_EXIT };

struct procev_event {
    enum procev_type type;
    int64_t time_ns;        /* CLOCK_BOOTTIME */
    pid_t pid, tgid;        /* FORK: the child; EXEC/EXIT: the task */
    pid_t parent_pid, parent_tgid; /* FORK only */
    int exit_code;          /* EXIT: the wait status (as waitpid() would report it) */
};

typedef void (*procev_fn)(void *ctx, const struct procev_event *ev);

struct procev;

int procev_open(struct procev **out);
void procev_close(struct procev *p);
int procev_fd(const struct procev *p);
int procev_drain(struct procev *p, procev_fn fn, void *ctx);

/* Decode one datagram; returns the number of events passed to fn, or -EINVAL if malformed.
 * `mono_to_boot_ns` is added to the connector's monotonic stamps. */
int procev_parse(const void *buf, size_t len, int64_t mono_to_boot_ns, procev_fn fn, void *ctx);
