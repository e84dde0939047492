/* nobodyfs — a FUSE mirror of a directory whose files all show as owned by nobody (65534),
 * while whoever may use the mount may read and write them: the filesystem, not the mode bits,
 * decides, as an NFSv4 client shows files when id mapping fails, or CIFS with `noperm`, or
 * sshfs.  For tests of a traced tree on such a filesystem (t1122).
 *
 * Usage: nobodyfs SOURCE MOUNTPOINT [FUSE options...]  (runs in the foreground; unmount with
 * fusermount3 -u, or umount as root).  A test tool: errors are a message and exit 1.
 */
#ifndef FUSE_USE_VERSION
#define FUSE_USE_VERSION 31
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int src = -1;

/* The path relative to SOURCE ("." for the root). */
static const char *rel(const char *path)
{
    return path[1] ? path + 1 : ".";
}

static int nb_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
    int r = fi ? fstat((int)fi->fh, st) : fstatat(src, rel(path), st, AT_SYMLINK_NOFOLLOW);
    if (r < 0)
        return -errno;
    st->st_uid = 65534;
    st->st_gid = 65534;
    return 0;
}

static int nb_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
                      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
    (void)off, (void)fi, (void)flags;
    int fd = openat(src, rel(path), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd < 0 ? NULL : fdopendir(fd);
    if (!d) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return -e;
    }
    struct dirent *e;
    while ((e = readdir(d)))
        fill(buf, e->d_name, NULL, 0, 0);
    closedir(d);
    return 0;
}

static int nb_open(const char *path, struct fuse_file_info *fi)
{
    int fd = openat(src, rel(path), (fi->flags & ~O_NOFOLLOW) | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    fi->fh = (uint64_t)fd;
    return 0;
}

static int nb_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
    int fd = openat(src, rel(path), fi->flags | O_CREAT | O_CLOEXEC, mode);
    if (fd < 0)
        return -errno;
    fi->fh = (uint64_t)fd;
    return 0;
}

static int nb_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
    (void)path;
    ssize_t n = pread((int)fi->fh, buf, size, off);
    return n < 0 ? -errno : (int)n;
}

static int nb_write(const char *path, const char *buf, size_t size, off_t off,
                    struct fuse_file_info *fi)
{
    (void)path;
    ssize_t n = pwrite((int)fi->fh, buf, size, off);
    return n < 0 ? -errno : (int)n;
}

static int nb_release(const char *path, struct fuse_file_info *fi)
{
    (void)path;
    close((int)fi->fh);
    return 0;
}

static int nb_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
    if (fi)
        return ftruncate((int)fi->fh, size) < 0 ? -errno : 0;
    int fd = openat(src, rel(path), O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    int r = ftruncate(fd, size) < 0 ? -errno : 0;
    close(fd);
    return r;
}

static int nb_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi)
{
    if (fi)
        return futimens((int)fi->fh, tv) < 0 ? -errno : 0;
    return utimensat(src, rel(path), tv, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
}

static int nb_unlink(const char *path)
{
    return unlinkat(src, rel(path), 0) < 0 ? -errno : 0;
}

static const struct fuse_operations ops = {
    .getattr = nb_getattr,
    .readdir = nb_readdir,
    .open = nb_open,
    .create = nb_create,
    .read = nb_read,
    .write = nb_write,
    .release = nb_release,
    .truncate = nb_truncate,
    .utimens = nb_utimens,
    .unlink = nb_unlink,
};

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: nobodyfs SOURCE MOUNTPOINT [FUSE options...]\n");
        return 1;
    }
    src = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (src < 0) {
        fprintf(stderr, "nobodyfs: %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    /* argv for fuse_main: the program, the mount point, -f, then the given options. */
    char **fargv = calloc((size_t)argc + 2, sizeof *fargv);
    if (!fargv)
        return 1;
    int n = 0;
    fargv[n++] = argv[0];
    fargv[n++] = argv[2];
    static char foreground[] = "-f";
    fargv[n++] = foreground;
    for (int i = 3; i < argc; i++)
        fargv[n++] = argv[i];
    umask(0);
    return fuse_main(n, fargv, &ops, NULL);
}
