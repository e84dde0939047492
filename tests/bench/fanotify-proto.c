/* fanotify-proto — what would watching the system trees with fanotify permission events cost?
 * (issue "Speed", option 1: a measurement, not a feature.)
 *
 * Runs COMMAND in a private mount namespace where each TREE (default /usr /etc /opt) is a bind
 * mount of itself, marked with FAN_OPEN_PERM | FAN_OPEN_EXEC_PERM: every open and exec there
 * blocks until this program has answered, as a tracer would after attributing it.  For each
 * event it does what the tracer would have to: read the opener's identity (/proc/PID/stat,
 * which the process table needs for an unknown pid) and the file's identity (fstat of the
 * event's descriptor, which is where a first read would be hashed), then allows it.  Prints the
 * number of events by kind and the command's status.  Root only (permission events need
 * CAP_SYS_ADMIN).
 *
 * Usage: fanotify-proto [-n] [-t TREE]... -- COMMAND [ARG]...
 *   -n  answer each event without reading anything (the floor: the round trip alone)
 * Compare its wall time with the command's native time (bench.sh does not run it: see
 * docs/performance.md, session 8, for the numbers and how they were taken). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int usage(void)
{
    fprintf(stderr, "usage: fanotify-proto [-n] [-t TREE]... -- COMMAND [ARG]...\n");
    return 2;
}

int main(int argc, char **argv)
{
    const char *trees[16];
    int n_trees = 0, at = 1;
    int bare = 0;
    for (; at < argc && strcmp(argv[at], "--"); at++) {
        if (!strcmp(argv[at], "-n"))
            bare = 1;
        else if (!strcmp(argv[at], "-t") && at + 1 < argc && n_trees < 16)
            trees[n_trees++] = argv[++at];
        else
            return usage();
    }
    if (at + 1 >= argc)
        return usage();
    if (!n_trees) {
        trees[n_trees++] = "/usr";
        trees[n_trees++] = "/etc";
        trees[n_trees++] = "/opt";
    }
    if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
        fprintf(stderr, "fanotify-proto: a private mount namespace: %s (run as root)\n",
                strerror(errno));
        return 1;
    }
    int fan = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC, O_RDONLY | O_LARGEFILE | O_CLOEXEC);
    if (fan < 0) {
        fprintf(stderr, "fanotify-proto: fanotify_init: %s\n", strerror(errno));
        return 1;
    }
    for (int i = 0; i < n_trees; i++) {
        struct stat st;
        if (stat(trees[i], &st) < 0)
            continue; /* (no /opt here) */
        if (mount(trees[i], trees[i], NULL, MS_BIND | MS_REC, NULL) < 0 ||
            fanotify_mark(fan, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OPEN_PERM | FAN_OPEN_EXEC_PERM,
                          AT_FDCWD, trees[i]) < 0) {
            fprintf(stderr, "fanotify-proto: %s: %s\n", trees[i], strerror(errno));
            return 1;
        }
    }
    pid_t child = fork();
    if (child < 0) {
        perror("fanotify-proto: fork");
        return 1;
    }
    if (child == 0) {
        close(fan);
        execvp(argv[at + 1], argv + at + 1);
        fprintf(stderr, "fanotify-proto: %s: %s\n", argv[at + 1], strerror(errno));
        _exit(127);
    }
    unsigned long opens = 0, execs = 0, other = 0;
    int status = 0;
    char buf[8192] __attribute__((aligned(__alignof__(struct fanotify_event_metadata))));
    for (;;) {
        struct pollfd p = {fan, POLLIN, 0};
        int r = poll(&p, 1, 100);
        if (r < 0 && errno != EINTR)
            break;
        if (r > 0) {
            ssize_t len = read(fan, buf, sizeof buf);
            if (len < 0 && errno != EINTR && errno != EAGAIN)
                break;
            struct fanotify_event_metadata *m = (struct fanotify_event_metadata *)(void *)buf; /* aligned above */
            for (; len > 0 && FAN_EVENT_OK(m, len);
                 len -= m->event_len, m = (void *)((char *)m + m->event_len)) { /* FAN_EVENT_NEXT */
                if (m->mask & FAN_OPEN_EXEC_PERM)
                    execs++;
                else if (m->mask & FAN_OPEN_PERM)
                    opens++;
                else
                    other++;
                /* What attribution needs: the opener (its stat line) and the file. */
                char path[64], line[512];
                snprintf(path, sizeof path, "/proc/%d/stat", m->pid);
                int sfd = bare ? -1 : open(path, O_RDONLY | O_CLOEXEC);
                if (sfd >= 0) { /* (gone: the tracer would know it from its events) */
                    ssize_t got = read(sfd, line, sizeof line);
                    (void)got;
                    close(sfd);
                }
                struct stat st;
                if (m->fd >= 0) {
                    if (!bare)
                        (void)fstat(m->fd, &st);
                    struct fanotify_response resp = {m->fd, FAN_ALLOW};
                    if (write(fan, &resp, sizeof resp) < 0)
                        perror("fanotify-proto: response");
                    close(m->fd);
                }
            }
        }
        pid_t w = waitpid(child, &status, WNOHANG);
        if (w == child)
            break;
    }
    fprintf(stderr, "fanotify-proto: %lu opens, %lu execs, %lu other permission events\n", opens,
            execs, other);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
