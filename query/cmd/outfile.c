/* outfile — see outfile.h. */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <limits.h>
#include <signal.h>
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

static bool under(const char *p, const char *top)
{
    size_t n = strlen(top);
    return !strncmp(p, top, n) && (!p[n] || p[n] == '/');
}

/* Whether the last -EACCES came from the rule below (for outfile_strerror). */
static bool refused_foreign;

/* The rule of fs.protected_symlinks (and of protected_regular and protected_fifos): in a
 * sticky world-writable directory, a name that belongs to neither the caller nor the
 * directory's owner is not to be followed or written. */
static bool sticky_foreign(const struct stat *dir, const struct stat *st)
{
    refused_foreign = (dir->st_mode & S_ISVTX) && (dir->st_mode & S_IWOTH) &&
                      st->st_uid != geteuid() && st->st_uid != dir->st_uid;
    return refused_foreign;
}

const char *outfile_strerror(int err)
{
    if (err == -EACCES && refused_foreign)
        return "it is, or goes through, another user's link, file or FIFO in a sticky "
               "directory, which could be a trap";
    return g_strerror(-err);
}

/* Walk `path` as the kernel will, component by component, to check the links it goes
 * through (at most 40): -EACCES when one sits in a sticky world-writable directory and belongs
 * to neither the caller nor the directory's owner.  *kernel: whether the walk enters /proc
 * (where it stops: magic links cannot be walked by name).  /dev is not the kernel's in that
 * sense: /dev/stdout and /dev/fd/N are links into /proc, device nodes are written in place as
 * such, and /dev/shm holds ordinary files, which get the trace's mode like any other.  What
 * cannot be read is left to the open that follows, which reports it. */
static int check_links(const char *path, bool *kernel)
{
    *kernel = false;
    char *cwd = path[0] == '/' ? NULL : getcwd(NULL, 0);
    if (path[0] != '/' && !cwd)
        return 0;
    g_autofree char *rest = cwd ? g_strconcat(cwd, "/", path, NULL) : g_strdup(path);
    free(cwd);
    g_autoptr(GString) done = g_string_new(""); /* the physical path walked so far ("" = /) */
    for (int links = 0; links <= 40;) {
        char *p = rest;
        while (*p == '/')
            p++;
        if (!*p)
            return 0;
        char *slash = strchr(p, '/');
        g_autofree char *comp = slash ? g_strndup(p, (gsize)(slash - p)) : g_strdup(p);
        g_autofree char *after = g_strdup(slash ? slash : "");
        g_free(rest);
        rest = g_steal_pointer(&after);
        if (!strcmp(comp, "."))
            continue;
        if (!strcmp(comp, "..")) {
            char *last = strrchr(done->str, '/');
            if (last)
                g_string_truncate(done, (gsize)(last - done->str));
            continue;
        }
        size_t mark = done->len;
        g_string_append_printf(done, "/%s", comp);
        if (under(done->str, "/proc")) {
            *kernel = true;
            return 0;
        }
        struct stat st, ds;
        if (lstat(done->str, &st) < 0 || !S_ISLNK(st.st_mode))
            continue; /* (a missing name: the open says so, or creates it) */
        g_string_truncate(done, mark);
        if (stat(done->len ? done->str : "/", &ds) == 0 && sticky_foreign(&ds, &st))
            return -EACCES;
        char target[PATH_MAX];
        g_string_append_printf(done, "/%s", comp);
        ssize_t n = readlink(done->str, target, sizeof target - 1);
        g_string_truncate(done, mark);
        if (n <= 0)
            return 0;
        target[n] = '\0';
        links++;
        if (target[0] == '/')
            g_string_truncate(done, 0);
        char *next = g_strconcat(target, "/", rest, NULL);
        g_free(rest);
        rest = next;
    }
    return 0; /* (too many links: the open says ELOOP) */
}

/* The temporary file of the outfile being written, removed if a signal ends the process
 * before its commit or abort (Ctrl-C during a long export left NAME.XXXXXX beside NAME).
 * One at a time (a command writes one -o); set and cleared by the main thread only, read by
 * the handler: `armed_tmp` is written after `armed_dirfd` and cleared before the name is
 * freed. */
static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGXFSZ};
#define N_CLEANUP_SIGNALS (sizeof cleanup_signals / sizeof cleanup_signals[0])
static struct sigaction armed_old[N_CLEANUP_SIGNALS];
static bool armed_installed[N_CLEANUP_SIGNALS];
static volatile int armed_dirfd = -1;
static const char *volatile armed_tmp;

/* Remove the armed temporary file, put the signal's old action back and raise it again: the
 * process ends as it would have, without the file.  Async-signal-safe calls only. */
static void cleanup_on_signal(int sig)
{
    const char *tmp = armed_tmp;
    if (tmp)
        unlinkat(armed_dirfd, tmp, 0);
    for (size_t i = 0; i < N_CLEANUP_SIGNALS; i++)
        if (cleanup_signals[i] == sig)
            sigaction(sig, &armed_old[i], NULL);
    raise(sig);
}

/* Remove `tmp` in `dirfd` if a signal whose action is the default (or SIG_IGN'd: left alone)
 * ends the process before disarm(). */
static void arm(int dirfd, const char *tmp)
{
    if (armed_tmp)
        return; /* (one at a time) */
    armed_dirfd = dirfd;
    armed_tmp = tmp;
    struct sigaction sa = {.sa_handler = cleanup_on_signal};
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < N_CLEANUP_SIGNALS; i++) {
        armed_installed[i] = false;
        if (sigaction(cleanup_signals[i], NULL, &armed_old[i]) == 0 &&
            armed_old[i].sa_handler == SIG_DFL && !(armed_old[i].sa_flags & SA_SIGINFO))
            armed_installed[i] = sigaction(cleanup_signals[i], &sa, NULL) == 0;
    }
}

static void disarm(const char *tmp)
{
    if (!tmp || armed_tmp != tmp)
        return;
    for (size_t i = 0; i < N_CLEANUP_SIGNALS; i++)
        if (armed_installed[i] && sigaction(cleanup_signals[i], &armed_old[i], NULL) == 0)
            armed_installed[i] = false;
    armed_tmp = NULL;
    armed_dirfd = -1;
}

/* Give the file `fd` the owner and group of `existing` where the caller may (root: both;
 * anyone: a group they are in), as a shell redirection into it would keep them: root's export
 * over a user's sbom.json, 0600, is still theirs to read.  Where it may not, the file stays
 * the caller's, as a new one would be: 0, or -errno of the last try (callers go on). */
static int keep_owner(int fd, const struct stat *existing)
{
    if (existing->st_uid == geteuid() && existing->st_gid == getegid())
        return 0;
    if (fchown(fd, existing->st_uid, existing->st_gid) == 0)
        return 0;
    if (existing->st_gid == getegid() || fchown(fd, (uid_t)-1, existing->st_gid) == 0)
        return 0;
    return -errno;
}

/* Open `name` in `dirfd` to be replaced atomically: a temporary file beside it, renamed over it
 * at commit.  Takes `dirfd` on success (the caller closes it on failure).  `existing`: the file
 * replaced, or NULL. */
static int replace_at(struct outfile *o, int dirfd, const char *name,
                      const struct stat *existing, mode_t mode)
{
    if (mode == OUTFILE_MODE_UMASK) {
        mode_t um = umask(0);
        umask(um);
        mode = existing ? existing->st_mode & 07777 : 0666 & ~um;
    }
    /* NAME.XXXXXX, with NAME cut short enough for the whole to be a name the filesystem
     * takes: a name of 249 to 255 bytes is as good an -o as any other. */
    int keep = (int)MIN(strlen(name), (size_t)NAME_MAX - 7);
    /* The cleanup signals wait from before the file is made until it is armed (a signal in
     * between would leave it). */
    sigset_t block, old;
    sigemptyset(&block);
    for (size_t i = 0; i < N_CLEANUP_SIGNALS; i++)
        sigaddset(&block, cleanup_signals[i]);
    for (int tries = 0; tries < 100; tries++) {
        char *tmp = g_strdup_printf("%.*s.%06x", keep, name, g_random_int() & 0xffffff);
        bool blocked = sigprocmask(SIG_BLOCK, &block, &old) == 0;
        int fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0) {
            int e = errno;
            if (blocked)
                sigprocmask(SIG_SETMASK, &old, NULL);
            g_free(tmp);
            if (e == EEXIST)
                continue;
            return -e;
        }
        arm(dirfd, tmp);
        if (blocked)
            sigprocmask(SIG_SETMASK, &old, NULL);
        if (existing) /* (before the mode: a chown clears set-id bits) */
            keep_owner(fd, existing);
        if (fchmod(fd, mode & 07777) < 0) {
            int e = errno;
            close(fd);
            unlinkat(dirfd, tmp, 0);
            disarm(tmp);
            g_free(tmp);
            return -e;
        }
        o->fd = fd;
        o->dirfd = dirfd;
        o->tmp = tmp;
        o->name = g_strdup(name);
        o->replacing = existing != NULL;
        return 0;
    }
    return -EEXIST;
}

/* `path` is a symlink: open it as the caller would (the kernel follows it, with its
 * protections), then replace what it reached atomically if it is a regular file whose name
 * the kernel reached it by can be found again, else write it in place. */
static int open_through_link(const char *path, mode_t mode, struct outfile *o)
{
    bool created = false;
    int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT) { /* a dangling link: its target is made, as `>` would */
        fd = open(path, O_WRONLY | O_CREAT | O_NOCTTY | O_CLOEXEC, 0600);
        created = fd >= 0;
    }
    if (fd < 0)
        return -errno;
    struct stat st;
    if (fstat(fd, &st) < 0) {
        int e = errno;
        close(fd);
        return -e;
    }
    if (S_ISDIR(st.st_mode)) { /* (O_WRONLY refuses one; kept for clarity) */
        close(fd);
        return -EISDIR;
    }
    if (!S_ISREG(st.st_mode)) {
        o->fd = fd;
        return 0;
    }
    char proc[32], real[PATH_MAX];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(proc, real, sizeof real - 1);
    if (n > 0 && real[0] == '/') {
        real[n] = '\0';
        g_autofree char *dir = g_path_get_dirname(real);
        g_autofree char *base = g_path_get_basename(real);
        int dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
        struct stat ds, named;
        if (dirfd >= 0 && fstat(dirfd, &ds) == 0 &&
            fstatat(dirfd, base, &named, AT_SYMLINK_NOFOLLOW) == 0 &&
            named.st_dev == st.st_dev && named.st_ino == st.st_ino) {
            if (sticky_foreign(&ds, &named)) {
                close(fd);
                close(dirfd);
                return -EACCES;
            }
            int r = replace_at(o, dirfd, base, created ? NULL : &named, mode);
            if (r == 0) {
                close(fd);
                o->created = created;
                o->created_dev = st.st_dev;
                o->created_ino = st.st_ino;
                return 0;
            }
            if (r != -EACCES && r != -EPERM && r != -EROFS) {
                if (created) /* (nothing was written: the name stands for the file made) */
                    unlinkat(dirfd, base, 0);
                close(dirfd);
                close(fd);
                return r;
            }
            /* the caller may write the file but not its directory: in place, as `>` would */
        }
        if (dirfd >= 0)
            close(dirfd);
    }
    /* The name the kernel reached it by is not found again: in place, as `>` would. */
    if ((!created && ftruncate(fd, 0) < 0) ||
        (created && mode != OUTFILE_MODE_UMASK && fchmod(fd, mode & 07777) < 0)) {
        int e = errno;
        close(fd);
        return -e;
    }
    o->fd = fd;
    return 0;
}

int outfile_open(const char *path, mode_t mode, struct outfile *o)
{
    *o = (struct outfile){.fd = -1, .dirfd = -1};
    refused_foreign = false;
    if (!strcmp(path, "-")) {
        o->fd = STDOUT_FILENO;
        o->borrowed = true;
        return 0;
    }
    if (!*path)
        return -ENOENT;
    bool kernel = false;
    int r = check_links(path, &kernel);
    if (r)
        return r;
    struct stat st, ds;
    if (g_str_has_suffix(path, "/")) /* only a directory may be named so */
        return stat(path, &st) < 0 ? -errno : S_ISDIR(st.st_mode) ? -EISDIR : -ENOTDIR;
    g_autofree char *dir = g_path_get_dirname(path);
    g_autofree char *base = g_path_get_basename(path);
    int dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (dirfd < 0)
        return -errno;
    bool exists = fstat(dirfd, &ds) == 0 && fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0;
    if (!exists && errno != ENOENT)
        r = -errno;
    else if (exists && S_ISDIR(st.st_mode))
        r = -EISDIR;
    else if (exists && sticky_foreign(&ds, &st))
        r = -EACCES;
    else if (kernel) { /* /dev/stdout, /proc/self/fd/1: in place, as `>` would */
        o->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOCTTY | O_CLOEXEC, 0666);
        r = o->fd < 0 ? -errno : 0;
    } else if (!exists || S_ISREG(st.st_mode)) {
        r = replace_at(o, dirfd, base, exists ? &st : NULL, mode);
        if (r == 0)
            return 0; /* (o has dirfd) */
    } else if (S_ISLNK(st.st_mode)) {
        r = open_through_link(path, mode, o);
    } else { /* a FIFO, a device, a socket: in place, as `>` would */
        o->fd = openat(dirfd, base, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
        r = o->fd < 0 ? -errno : 0;
    }
    close(dirfd);
    return r;
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

/* Remove the file made empty through a dangling link, if the name still stands for it. */
static void remove_created(struct outfile *o)
{
    struct stat st;
    if (o->created && fstatat(o->dirfd, o->name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        st.st_dev == o->created_dev && st.st_ino == o->created_ino)
        unlinkat(o->dirfd, o->name, 0);
}

static void outfile_release(struct outfile *o)
{
    disarm(o->tmp); /* (after the rename or the removal: a signal before removes it) */
    if (o->dirfd >= 0)
        close(o->dirfd);
    g_free(o->tmp);
    g_free(o->name);
    *o = (struct outfile){.fd = -1, .dirfd = -1};
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
            if (!r && renameat(o->dirfd, o->tmp, o->dirfd, o->name) < 0)
                r = -errno;
            if (r) {
                unlinkat(o->dirfd, o->tmp, 0);
                remove_created(o);
            }
        }
    }
    outfile_release(o);
    return r;
}

void outfile_abort(struct outfile *o)
{
    if (!o->borrowed && o->fd >= 0) {
        close(o->fd);
        if (o->tmp) {
            unlinkat(o->dirfd, o->tmp, 0);
            remove_created(o);
        }
    }
    outfile_release(o);
}

int outfile_write(const char *path, mode_t mode, const void *data, size_t len)
{
    struct outfile o;
    int r = outfile_open(path, mode, &o);
    if (r)
        return r;
    outfile_append(&o, data, len);
    return outfile_commit(&o);
}
