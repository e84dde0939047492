/* procfs — see procfs.h: what /proc says about a task. */
#include "procfs.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int proc_parse_stat(const char *buf, size_t len, struct proc_stat *out)
{
    /* "PID (COMM) S PPID ..." — COMM may hold spaces and ')' so take the last ')'. */
    const char *open = memchr(buf, '(', len);
    const char *close = NULL;
    for (const char *p = buf + len; p > buf; p--) {
        if (p[-1] == ')') {
            close = p - 1;
            break;
        }
    }
    if (!open || !close || close < open)
        return -EINVAL;
    memset(out, 0, sizeof *out);
    size_t clen = (size_t)(close - open - 1);
    if (clen > 63)
        clen = 63;
    memcpy(out->comm, open + 1, clen);
    out->comm[clen] = '\0';

    /* After ") " come fields 3.. separated by single spaces. */
    const char *p = close + 1;
    const char *end = buf + len;
    int field = 2;
    long long ppid_v = -1;
    bool have_start = false;
    while (p < end && field < 49) {
        while (p < end && *p == ' ')
            p++;
        if (p >= end || *p == '\n')
            break;
        field++;
        const char *tok = p;
        while (p < end && *p != ' ' && *p != '\n')
            p++;
        int slot = field == 4 ? 0 : field == 22 ? 1 : field == 26 ? 2 : field == 48 ? 3
                 : field == 49 ? 4 : -1;
        if (slot < 0)
            continue;
        char num[32];
        size_t n = (size_t)(p - tok);
        if (n == 0 || n >= sizeof num)
            return -EINVAL;
        memcpy(num, tok, n);
        num[n] = '\0';
        char *e;
        errno = 0;
        unsigned long long v = strtoull(num, &e, 10);
        if (*e || errno || num[0] == '-')
            return -EINVAL;
        if (slot == 0)
            ppid_v = (long long)v;
        else if (slot == 1) {
            out->start_ticks = v;
            have_start = true;
        } else
            out->layout[slot - 2] = v;
    }
    if (ppid_v < 0 || !have_start || ppid_v > INT32_MAX)
        return -EINVAL;
    out->ppid = (pid_t)ppid_v;
    return 0;
}

/* Read a whole file; returns bytes read or -errno.  *out is g_malloc'd, NUL-terminated. */
static ssize_t read_whole(const char *path, char **out)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    size_t cap = 512, len = 0;
    char *buf = g_malloc(cap);
    for (;;) {
        if (len + 1 >= cap) {
            cap *= 2;
            buf = g_realloc(buf, cap);
        }
        ssize_t n = read(fd, buf + len, cap - len - 1);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            close(fd);
            g_free(buf);
            return -e;
        }
        if (n == 0)
            break;
        len += (size_t)n;
    }
    close(fd);
    buf[len] = '\0';
    *out = buf;
    return (ssize_t)len;
}

/* A process whose main thread has exited (pthread_exit() in main) runs on in its other threads,
 * but what /proc/PID shows through the main thread — cmdline, exe, cwd — is then empty.  Those
 * belong to the process, so they are read through another of its threads: one of them, or 0. */
static pid_t other_thread(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    GDir *d = g_dir_open(path, 0, NULL);
    if (!d)
        return 0;
    pid_t found = 0;
    const char *name;
    while (!found && (name = g_dir_read_name(d))) {
        long tid = strtol(name, NULL, 10);
        if (tid > 0 && tid != pid)
            found = (pid_t)tid;
    }
    g_dir_close(d);
    return found;
}

/* /proc/PID/NAME as read_whole() gives it; a process's own entry (cmdline) that its exited
 * main thread shows empty is read through another thread. */
ssize_t procfs_read(pid_t pid, const char *name, char **out)
{
    char path[96];
    snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, name);
    ssize_t n = read_whole(path, out);
    pid_t tid;
    if (n == 0 && !strcmp(name, "cmdline") && (tid = other_thread(pid)) > 0) {
        snprintf(path, sizeof path, "/proc/%d/task/%d/%s", (int)pid, (int)tid, name);
        g_free(*out);
        n = read_whole(path, out);
    }
    return n;
}

/* The target of the symlink /proc/PID/NAME (exe, cwd), through another thread if the main one
 * has exited; NULL if unreadable. */
char *procfs_read_link(pid_t pid, const char *name)
{
    char path[96];
    snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, name);
    char buf[4096];
    ssize_t n = readlink(path, buf, sizeof buf - 1);
    pid_t tid;
    if (n < 0 && errno == ENOENT && (tid = other_thread(pid)) > 0) {
        snprintf(path, sizeof path, "/proc/%d/task/%d/%s", (int)pid, (int)tid, name);
        n = readlink(path, buf, sizeof buf - 1);
    }
    if (n < 0)
        return NULL;
    buf[n] = '\0';
    return g_strdup(buf);
}

bool procfs_layout_known(const unsigned long long l[3])
{
    return l[0] || l[1] || l[2];
}

/* A layout without its arguments yet belongs to an exec in progress: the kernel reads the new
 * binary (through us, when it is traced) after switching to the new memory map and before
 * placing argv.  Such a caller is still the old image for our purposes (t5100). */
static bool layout_in_exec(const unsigned long long l[3])
{
    return procfs_layout_known(l) && (l[1] == 0 || l[2] <= l[1]);
}

/* Same image as far as /proc can tell: same comm and, where visible, same memory layout. */
bool procfs_same_image(const char *comm_a, const unsigned long long la[3], const char *comm_b,
                       const unsigned long long lb[3])
{
    if (layout_in_exec(lb))
        return true;
    if (strcmp(comm_a, comm_b) != 0)
        return false;
    /* An image recorded without a layout (read as the process was already exiting) is not a
     * live task that shows one: its pid was reused within the same clock tick. */
    if (!procfs_layout_known(la) && procfs_layout_known(lb))
        return false;
    return !procfs_layout_known(la) || !procfs_layout_known(lb) ||
           memcmp(la, lb, 3 * sizeof la[0]) == 0;
}

/* /proc/PID/stat into buf (NUL-terminated): its length, or -errno (-ESRCH when empty). */
static ssize_t read_stat_text(pid_t pid, char *buf, size_t size)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    ssize_t n = read(fd, buf, size - 1);
    int e = errno;
    close(fd);
    if (n <= 0)
        return n < 0 ? -e : -ESRCH;
    buf[n] = '\0';
    return n;
}

int procfs_read_stat(pid_t pid, struct proc_stat *si)
{
    char buf[1024];
    ssize_t n = read_stat_text(pid, buf, sizeof buf);
    return n < 0 ? (int)n : proc_parse_stat(buf, (size_t)n, si);
}

/* The value of a field of /proc/PID/status ("Tgid", "NSpid", ...): the last number on its line
 * (NSpid lists one pid per namespace, innermost last).  -1 if unreadable. */
pid_t procfs_status_field(pid_t pid, const char *field)
{
    g_autofree char *s = NULL;
    if (procfs_read(pid, "status", &s) < 0)
        return -1;
    g_autofree char *needle = g_strdup_printf("\n%s:", field);
    const char *t = strstr(s, needle);
    if (!t)
        return -1;
    t += strlen(needle);
    const char *eol = strchr(t, '\n');
    const char *last = t;
    for (const char *p = t; *p && p != eol; p++)
        if (*p == '\t' || *p == ' ')
            last = p + 1;
    return (pid_t)strtol(last, NULL, 10);
}


/* Whether process `pid` still runs this program (the launcher's, before the build's command
 * replaced it): /proc/PID/exe is the file /proc/self/exe is. */
bool procfs_runs_launcher_code(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/exe", (int)pid);
    struct stat a, b;
    return stat(path, &a) == 0 && stat("/proc/self/exe", &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}

/* The tids of process `tgid`'s threads (from /proc/TGID/task), or NULL. */
GArray *procfs_list_tasks(pid_t tgid)
{
    char p[64];
    snprintf(p, sizeof p, "/proc/%d/task", (int)tgid);
    GDir *d = g_dir_open(p, 0, NULL);
    if (!d)
        return NULL;
    GArray *tids = g_array_new(FALSE, FALSE, sizeof(pid_t));
    const char *name;
    while ((name = g_dir_read_name(d))) {
        char *end;
        long v = strtol(name, &end, 10);
        if (!*end && v > 0 && v <= INT32_MAX) {
            pid_t tid = (pid_t)v;
            g_array_append_val(tids, tid);
        }
    }
    g_dir_close(d);
    return tids;
}

/* Whether the main thread of process `tgid` has exited (a zombie while other threads run on:
 * /proc/TGID/stat shows its state). */
bool procfs_leader_gone(pid_t tgid)
{
    char buf[1024];
    if (read_stat_text(tgid, buf, sizeof buf) < 0)
        return false;
    const char *paren = strrchr(buf, ')');
    return paren && paren[1] == ' ' && (paren[2] == 'Z' || paren[2] == 'X');
}
