/* outfile — see outfile.h. */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int write_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -errno;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static bool is_kernel_path(const char *p)
{
    return g_str_has_prefix(p, "/proc/") || g_str_has_prefix(p, "/dev/");
}

/* Follow `path` through its symlinks (at most 40) to the name it finally stands for, which may
 * not exist.  *kernel: whether any step went through /proc or /dev.  NULL and errno on a
 * loop or an unreadable link. */
static char *final_name(const char *path, bool *kernel)
{
    g_autofree char *cur = g_canonicalize_filename(path, NULL);
    *kernel = is_kernel_path(cur);
    for (int hops = 0; hops < 40; hops++) {
        struct stat st;
        if (lstat(cur, &st) < 0 || !S_ISLNK(st.st_mode))
            return g_steal_pointer(&cur);
        char target[PATH_MAX];
        ssize_t n = readlink(cur, target, sizeof target - 1);
        if (n < 0)
            return NULL;
        target[n] = '\0';
        g_autofree char *dir = g_path_get_dirname(cur);
        char *next = g_canonicalize_filename(target, dir);
        g_free(cur);
        cur = next;
        *kernel |= is_kernel_path(cur) || is_kernel_path(target);
    }
    errno = ELOOP;
    return NULL;
}

int outfile_open(const char *path, struct outfile *o)
{
    *o = (struct outfile){.fd = -1};
    if (!strcmp(path, "-")) {
        o->fd = STDOUT_FILENO;
        o->borrowed = true;
        return 0;
    }
    bool kernel = false;
    g_autofree char *target = final_name(path, &kernel);
    if (!target)
        return -errno;
    struct stat st;
    bool exists = stat(target, &st) == 0;
    if (!exists && errno != ENOENT)
        return -errno;
    if (exists && S_ISDIR(st.st_mode))
        return -EISDIR;
    if (kernel || (exists && !S_ISREG(st.st_mode))) {
        /* In place, as `> path` would. */
        o->fd = open(kernel ? path : target, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
        return o->fd < 0 ? -errno : 0;
    }
    /* A regular file, or a new one: atomically, through a temporary file beside it. */
    mode_t mode = 0666;
    if (exists) {
        mode = st.st_mode & 07777;
    } else {
        mode_t um = umask(0);
        umask(um);
        mode &= ~um;
    }
    char *tmp = g_strconcat(target, ".XXXXXX", NULL);
    int fd = g_mkstemp_full(tmp, O_WRONLY | O_CLOEXEC, 0600);
    if (fd < 0) {
        int e = errno;
        g_free(tmp);
        return -e;
    }
    if (fchmod(fd, mode) < 0) {
        int e = errno;
        close(fd);
        unlink(tmp);
        g_free(tmp);
        return -e;
    }
    o->fd = fd;
    o->tmp = tmp;
    o->target = g_steal_pointer(&target);
    o->replacing = exists;
    return 0;
}

int outfile_append(struct outfile *o, const void *data, size_t len)
{
    if (o->error)
        return o->error;
    int r = write_all(o->fd, data, len);
    if (r)
        o->error = r;
    return r;
}

static void outfile_release(struct outfile *o)
{
    g_free(o->tmp);
    g_free(o->target);
    *o = (struct outfile){.fd = -1};
}

int outfile_commit(struct outfile *o)
{
    int r = o->error;
    if (!o->borrowed) {
        if (!r && o->tmp && o->replacing && fsync(o->fd) < 0) /* the content, then the name */
            r = -errno;
        if (close(o->fd) < 0 && !r)
            r = -errno;
        if (o->tmp) {
            if (!r && rename(o->tmp, o->target) < 0)
                r = -errno;
            if (r)
                unlink(o->tmp);
        }
    }
    outfile_release(o);
    return r;
}

void outfile_abort(struct outfile *o)
{
    if (!o->borrowed && o->fd >= 0) {
        close(o->fd);
        if (o->tmp)
            unlink(o->tmp);
    }
    outfile_release(o);
}

int outfile_write(const char *path, const void *data, size_t len)
{
    struct outfile o;
    int r = outfile_open(path, &o);
    if (r)
        return r;
    outfile_append(&o, data, len);
    return outfile_commit(&o);
}
