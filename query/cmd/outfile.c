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

/* Write in place, as `> path` would. */
static int write_in_place(const char *path, const void *data, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0)
        return -errno;
    int r = write_all(fd, data, len);
    if (close(fd) < 0 && !r)
        r = -errno;
    return r;
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

int outfile_write(const char *path, const void *data, size_t len)
{
    if (!strcmp(path, "-"))
        return write_all(STDOUT_FILENO, data, len);
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
    if (kernel || (exists && !S_ISREG(st.st_mode)))
        return write_in_place(kernel ? path : target, data, len);
    /* A regular file, or a new one: atomically. */
    mode_t mode = 0666;
    if (exists) {
        mode = st.st_mode & 07777;
    } else {
        mode_t um = umask(0);
        umask(um);
        mode &= ~um;
    }
    g_autofree char *tmp = g_strconcat(target, ".XXXXXX", NULL);
    int fd = g_mkstemp_full(tmp, O_WRONLY | O_CLOEXEC, 0600);
    if (fd < 0)
        return -errno;
    int r = fchmod(fd, mode) < 0 ? -errno : write_all(fd, data, len);
    if (!r && exists && fsync(fd) < 0) /* replacing: the new content first, then the name */
        r = -errno;
    if (close(fd) < 0 && !r)
        r = -errno;
    if (!r && rename(tmp, target) < 0)
        r = -errno;
    if (r)
        unlink(tmp);
    return r;
}
