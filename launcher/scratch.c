/* scratch — see scratch.h. */
#include "scratch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdbool.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PREFIX "buildtrail-"
#define OWNER "OWNER"
#define UNMARKED_AGE_S 3600

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (flag == FTW_DP)
        rmdir(path);
    else
        unlink(path);
    return 0;
}

void scratch_remove_tree(const char *dir)
{
    nftw(dir, rm_entry, 32, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

int scratch_create(const char *base, struct scratch *out)
{
    char *path = g_build_filename(base, PREFIX "XXXXXX", NULL);
    if (!mkdtemp(path)) {
        int e = errno;
        g_free(path);
        return -e;
    }
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
    int e = fd < 0 ? errno : flock(fd, LOCK_EX | LOCK_NB) < 0 ? errno : 0;
    if (!e) {
        int m = openat(fd, OWNER, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (m < 0) {
            e = errno;
        } else {
            char pid[32];
            int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
            if (write(m, pid, (size_t)n) != n)
                e = errno ? errno : EIO;
            close(m);
        }
    }
    if (e) {
        if (fd >= 0)
            close(fd);
        scratch_remove_tree(path);
        g_free(path);
        return -e;
    }
    out->path = path;
    out->fd = fd;
    return 0;
}

static bool is_scratch_name(const char *name)
{
    return g_str_has_prefix(name, PREFIX) && strlen(name) == strlen(PREFIX) + 6;
}

int scratch_reclaim(const char *base)
{
    DIR *d = opendir(base);
    if (!d)
        return -errno;
    int removed = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (!is_scratch_name(de->d_name))
            continue;
        struct stat st;
        if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode) ||
            st.st_uid != geteuid())
            continue;
        int fd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
            continue;
        if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
            struct stat owner;
            bool marked = fstatat(fd, OWNER, &owner, AT_SYMLINK_NOFOLLOW) == 0;
            bool old = time(NULL) - st.st_mtime > UNMARKED_AGE_S;
            if (marked || old) {
                g_autofree char *p = g_build_filename(base, de->d_name, NULL);
                scratch_remove_tree(p);
                removed++;
            }
        }
        close(fd);
    }
    closedir(d);
    return removed;
}

void scratch_remove(struct scratch *s)
{
    if (!s->path)
        return;
    scratch_remove_tree(s->path);
    if (s->fd >= 0)
        close(s->fd);
    g_free(s->path);
    s->path = NULL;
    s->fd = -1;
}
