/* fsconform — filesystem behaviour a build depends on, printed as normalised observations.
 *
 * Run in a directory natively and in the same kind of directory traced by buildtrail; the two
 * outputs must be identical (tests/shell/t2100-conformance.sh).  Each line is "check: result";
 * results name errno values symbolically and never print what legitimately differs between two
 * directories (st_dev, absolute paths, inode numbers, times not set by the check itself).
 *
 * Usage: fsconform [--only NAME] [--fsx-seconds N]   (in the directory to test)
 * Environment: FSCONFORM_DIR_ENTRIES (default 100000) for the large-directory check.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <linux/fs.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

static const char *only;
static int fsx_seconds;

static void say(const char *check, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const char *check, const char *fmt, ...)
{
    va_list ap;
    printf("%s: ", check);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout);
}

/* "ok" for r >= 0, else the errno's name. */
static const char *res(long r)
{
    if (r >= 0)
        return "ok";
    const char *n = strerrorname_np(errno);
    return n ? n : "E?";
}

/* A fatal setup problem in the checker itself (not an observation). */
static void die(const char *what)
{
    fprintf(stderr, "fsconform: %s: %s\n", what, strerror(errno));
    exit(2);
}

static void write_file(const char *path, const char *data)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || write(fd, data, strlen(data)) != (ssize_t)strlen(data) || close(fd) < 0)
        die(path);
}

static char *read_file(const char *path, char *buf, size_t size)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        snprintf(buf, size, "<%s>", res(-1));
        return buf;
    }
    ssize_t n = read(fd, buf, size - 1);
    close(fd);
    buf[n < 0 ? 0 : n] = '\0';
    return buf;
}

static void rm_rf(const char *path)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    if (system(cmd) != 0)
        die("rm -rf");
}

static void fresh_dir(const char *path)
{
    rm_rf(path);
    if (mkdir(path, 0755) < 0 || chdir(path) < 0)
        die(path);
}

/* ---- open flags ---------------------------------------------------------------------------- */

static void check_open_flags(void)
{
    fresh_dir("open");
    say("creat-excl", "%s", res(open("f", O_CREAT | O_EXCL | O_WRONLY, 0640)));
    say("creat-excl-again", "%s", res(open("f", O_CREAT | O_EXCL | O_WRONLY, 0640)));
    struct stat st;
    stat("f", &st);
    say("creat-mode", "%o", st.st_mode & 07777);
    write_file("t", "hello");
    int fd = open("t", O_WRONLY | O_TRUNC);
    fstat(fd, &st);
    say("o-trunc", "%s size=%lld", res(fd), (long long)st.st_size);
    close(fd);
    say("o-directory-on-file", "%s", res(open("t", O_RDONLY | O_DIRECTORY)));
    symlink("t", "link");
    say("o-nofollow-on-symlink", "%s", res(open("link", O_RDONLY | O_NOFOLLOW)));
    fd = open("link", O_PATH | O_NOFOLLOW);
    fstat(fd, &st);
    say("o-path-symlink", "%s lnk=%d", res(fd), S_ISLNK(st.st_mode));
    close(fd);
    say("o-creat-in-missing-dir", "%s", res(open("nodir/x", O_CREAT | O_WRONLY, 0644)));
    say("open-missing", "%s", res(open("missing", O_RDONLY)));
    say("open-dir-for-write", "%s", res(open(".", O_WRONLY)));

    /* O_TMPFILE: works, or fails as on a filesystem without it (callers then fall back). */
    fd = open(".", O_TMPFILE | O_RDWR, 0600);
    if (fd >= 0) {
        char p[64];
        snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
        bool linked = write(fd, "tmp", 3) == 3 && linkat(AT_FDCWD, p, AT_FDCWD, "from-tmpfile",
                                                          AT_SYMLINK_FOLLOW) == 0;
        char buf[16];
        say("o-tmpfile", "ok-or-fallback linked=%s", linked ? read_file("from-tmpfile", buf, 16) : "?");
        close(fd);
    } else {
        say("o-tmpfile", "%s", errno == EOPNOTSUPP || errno == EISDIR
                                   ? "ok-or-fallback linked=tmp" : res(-1));
    }

    /* A file unlinked while open stays readable and writable through the fd. */
    fd = open("gone", O_RDWR | O_CREAT, 0644);
    (void)!write(fd, "still here", 10);
    unlink("gone");
    fstat(fd, &st);
    char buf[32] = "";
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    buf[n > 0 ? n : 0] = '\0';
    const char *wr = res(pwrite(fd, "!", 1, 10));
    say("unlinked-while-open", "nlink=%ld read=%s write=%s", (long)st.st_nlink, buf, wr);
    close(fd);
    say("unlinked-lookup", "%s", res(open("gone", O_RDONLY)));
    if (chdir("..") < 0)
        die("chdir ..");
}

/* Concurrent O_APPEND writers: no line lost, none torn. */
static void check_append(void)
{
    enum { WRITERS = 8, LINES = 500 };
    fresh_dir("append");
    for (int w = 0; w < WRITERS; w++) {
        pid_t p = fork();
        if (p == 0) {
            int fd = open("log", O_WRONLY | O_APPEND | O_CREAT, 0644);
            for (int i = 0; i < LINES; i++) {
                char line[64];
                int len = snprintf(line, sizeof line, "writer-%d line-%04d xxxxxxxxxxxxxxxx\n", w, i);
                if (write(fd, line, (size_t)len) != len)
                    _exit(1);
            }
            _exit(0);
        }
    }
    int bad_exit = 0;
    for (int w = 0; w < WRITERS; w++) {
        int st;
        wait(&st);
        bad_exit += !WIFEXITED(st) || WEXITSTATUS(st);
    }
    FILE *f = fopen("log", "r");
    char line[128];
    int count[WRITERS] = {0}, torn = 0, total = 0;
    while (f && fgets(line, sizeof line, f)) {
        int w, i;
        total++;
        char expect[64];
        if (sscanf(line, "writer-%d line-%d", &w, &i) != 2 || w < 0 || w >= WRITERS ||
            snprintf(expect, sizeof expect, "writer-%d line-%04d xxxxxxxxxxxxxxxx\n", w, i) < 0 ||
            strcmp(line, expect) != 0)
            torn++;
        else
            count[w]++;
    }
    if (f)
        fclose(f);
    int uneven = 0;
    for (int w = 0; w < WRITERS; w++)
        uneven += count[w] != LINES;
    say("append-concurrent", "lines=%d torn=%d uneven=%d failed-writers=%d", total, torn, uneven,
        bad_exit);
    if (chdir("..") < 0)
        die("chdir ..");
}

/* ---- names: rename, links, symlinks, removal -------------------------------------------- */

static void check_names(void)
{
    char buf[64];
    struct stat a, b;
    fresh_dir("names");
    write_file("a", "A");
    write_file("b", "B");
    const char *r1 = res(rename("a", "b"));
    const char *r2 = res(access("a", F_OK));
    say("rename-over-file", "%s b=%s a=%s", r1, read_file("b", buf, 64), r2);
    mkdir("d1", 0755);
    mkdir("d2", 0755);
    write_file("d1/x", "X");
    r1 = res(rename("d1/x", "d2/y"));
    say("rename-across-dirs", "%s %s", r1, read_file("d2/y", buf, 64));
    write_file("d1/inner", "I");
    r1 = res(rename("d1", "d3"));
    say("rename-dir", "%s %s", r1, read_file("d3/inner", buf, 64));
    say("rename-dir-over-empty-dir", "%s", res(rename("d3", "empty")));
    say("rename-dir-over-nonempty-dir", "%s", res(rename("d2", "empty")));
    say("rename-dir-over-file", "%s", res(rename("d2", "b")));
    say("rename-file-over-dir", "%s", res(rename("b", "d2")));
    say("rename-into-own-subdir", "%s", res(rename("empty", "empty/sub")));
    write_file("c", "C");
    say("rename-noreplace", "%s", res(renameat2(AT_FDCWD, "c", AT_FDCWD, "b", RENAME_NOREPLACE)));
    long r = renameat2(AT_FDCWD, "c", AT_FDCWD, "b", RENAME_EXCHANGE);
    r1 = res(r);
    char buf2[64];
    read_file("b", buf, 64);
    read_file("c", buf2, 64);
    say("rename-exchange", "%s b=%s c=%s", r1, buf, buf2);
    say("rename-missing", "%s", res(rename("nope", "x")));
    say("rename-same", "%s", res(rename("c", "c")));

    say("link", "%s", res(link("b", "hard")));
    stat("b", &a);
    stat("hard", &b);
    say("link-same-inode", "%d nlink=%ld", a.st_ino == b.st_ino, (long)b.st_nlink);
    unlink("b");
    stat("hard", &b);
    read_file("hard", buf, 64);
    say("link-after-unlink", "nlink=%ld %s", (long)b.st_nlink, buf);
    say("link-to-existing", "%s", res(link("hard", "c")));
    say("link-dir", "%s", res(link("d2", "d2link")));

    r1 = res(symlink("hard", "rel"));
    say("symlink-relative", "%s %s", r1, read_file("rel", buf, 64));
    char abs[4096];
    if (!getcwd(abs, sizeof abs - 8))
        die("getcwd");
    strcat(abs, "/hard");
    r1 = res(symlink(abs, "absl"));
    say("symlink-absolute", "%s %s", r1, read_file("absl", buf, 64));
    ssize_t n = readlink("rel", buf, sizeof buf);
    say("readlink", "%.*s", (int)(n > 0 ? n : 0), buf);
    say("readlink-on-file", "%s", res(readlink("hard", buf, sizeof buf)));
    symlink("nowhere", "dangling");
    r1 = res(open("dangling", O_RDONLY));
    r2 = res(lstat("dangling", &a));
    say("symlink-dangling", "open=%s lstat=%s", r1, r2);
    symlink("loop2", "loop1");
    symlink("loop1", "loop2");
    say("symlink-loop", "%s", res(open("loop1", O_RDONLY)));
    say("symlink-exists", "%s", res(symlink("x", "hard")));
    lstat("rel", &a);
    say("symlink-size", "%lld", (long long)a.st_size);

    mkdir("full", 0755);
    write_file("full/f", "F");
    say("rmdir-nonempty", "%s", res(rmdir("full")));
    say("rmdir-file", "%s", res(rmdir("hard")));
    say("unlink-dir", "%s", res(unlink("full")));
    say("rmdir-missing", "%s", res(rmdir("nope")));
    /* A busy directory (another process's cwd) can be removed on Linux. */
    mkdir("busy", 0755);
    int ready[2], go[2];
    if (pipe(ready) < 0 || pipe(go) < 0)
        die("pipe");
    pid_t child = fork();
    if (child == 0) {
        if (chdir("busy") < 0)
            _exit(1);
        char c;
        (void)!write(ready[1], "r", 1);
        (void)!read(go[0], &c, 1);
        char cwd[64];
        _exit(getcwd(cwd, sizeof cwd) == NULL && errno == ENOENT ? 0 : 3);
    }
    char c;
    (void)!read(ready[0], &c, 1);
    r = rmdir("busy");
    say("rmdir-busy", "%s", res(r));
    (void)!write(go[1], "g", 1);
    int st;
    waitpid(child, &st, 0);
    say("cwd-of-removed-dir", "getcwd-enoent=%d", WIFEXITED(st) && WEXITSTATUS(st) == 0);
    close(ready[0]);
    close(ready[1]);
    close(go[0]);
    close(go[1]);
    if (chdir("..") < 0)
        die("chdir ..");
}

/* ---- metadata ------------------------------------------------------------------------------ */

static void check_metadata(void)
{
    struct stat st;
    fresh_dir("meta");
    write_file("f", "0123456789");
    chmod("f", 0751);
    stat("f", &st);
    say("chmod", "%o", st.st_mode & 07777);
    say("chmod-setgid-dir", "%s", res(mkdir("sg", 02775)));
    stat("sg", &st);
    say("mkdir-mode", "%o", st.st_mode & 07777);
    if (geteuid() == 0) {
        say("chown", "%s", res(chown("f", 1234, 5678)));
        stat("f", &st);
        say("chown-result", "%u:%u", st.st_uid, st.st_gid);
        chown("f", 0, 0);
    } else {
        /* Refused either way; in buildtrail's user-namespace mode uid 0 is unmapped and the
         * kernel says EINVAL before the filesystem is asked (docs/conformance.md). */
        long r = chown("f", 0, 0);
        say("chown-to-root", "%s", r < 0 && (errno == EPERM || errno == EINVAL) ? "refused" : res(r));
    }
    struct timespec ts[2] = {{1000000000, 123456789}, {1100000000, 987654321}};
    say("utimensat", "%s", res(utimensat(AT_FDCWD, "f", ts, 0)));
    stat("f", &st);
    say("utimensat-result", "atime=%lld.%09ld mtime=%lld.%09ld", (long long)st.st_atim.tv_sec,
        st.st_atim.tv_nsec, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
    struct timespec omit_now[2] = {{0, UTIME_OMIT}, {0, UTIME_NOW}};
    time_t before = time(NULL);
    utimensat(AT_FDCWD, "f", omit_now, 0);
    stat("f", &st);
    say("utime-omit-now", "atime-kept=%d mtime-now=%d", st.st_atim.tv_sec == 1000000000 &&
        st.st_atim.tv_nsec == 123456789, st.st_mtim.tv_sec >= before && st.st_mtim.tv_sec <= before + 5);
    symlink("f", "sl");
    say("utimensat-symlink-nofollow", "%s", res(utimensat(AT_FDCWD, "sl", ts, AT_SYMLINK_NOFOLLOW)));
    lstat("sl", &st);
    say("symlink-mtime", "%lld", (long long)st.st_mtim.tv_sec);
    say("truncate-down", "%s", res(truncate("f", 4)));
    stat("f", &st);
    say("truncate-down-size", "%lld", (long long)st.st_size);
    int fd = open("f", O_RDWR);
    say("ftruncate-up", "%s", res(ftruncate(fd, 100000)));
    fstat(fd, &st);
    char buf[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    (void)!pread(fd, buf, 8, 50000);
    say("ftruncate-up-result", "size=%lld zeros=%d", (long long)st.st_size, buf[0] == 0 && buf[7] == 0);
    close(fd);
    /* A file whose mode forbids writing: the owner (not root) gets EACCES. */
    write_file("ro", "r");
    chmod("ro", 0444);
    say("open-readonly-file-for-write", "%s", geteuid() == 0 ? "root" : res(open("ro", O_WRONLY)));

    stat("f", &st);
    ino_t ino = st.st_ino;
    /* Drop the kernel's caches (root only); the inode number must not change. */
    int dc = open("/proc/sys/vm/drop_caches", O_WRONLY);
    if (dc >= 0) {
        (void)!write(dc, "3", 1);
        close(dc);
    }
    stat("f", &st);
    say("ino-stable", "%d", st.st_ino == ino);

    fd = open("sparse", O_RDWR | O_CREAT, 0644);
    (void)!pwrite(fd, "x", 1, 1 << 20);
    fsync(fd);
    fstat(fd, &st);
    say("sparse-blocks", "size=%lld blocks-small=%d", (long long)st.st_size, st.st_blocks <= 16);
    close(fd);

    struct statx sx;
    say("statx", "%s", res(statx(AT_FDCWD, "f", AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &sx)));
    say("statx-basic", "mask-basic=%d size=%llu mode=%o nlink=%u",
        (sx.stx_mask & STATX_BASIC_STATS) == STATX_BASIC_STATS, (unsigned long long)sx.stx_size,
        sx.stx_mode & 07777, sx.stx_nlink);

    long r = setxattr("f", "user.bt", "value", 5, 0);
    if (r < 0 && errno == ENOTSUP) {
        say("xattr", "ENOTSUP");
    } else {
        char v[32] = "";
        ssize_t n = getxattr("f", "user.bt", v, sizeof v);
        char list[1024];
        ssize_t ln = listxattr("f", list, sizeof list);
        int has = 0;
        for (ssize_t i = 0; i < ln; i += (ssize_t)strlen(list + i) + 1)
            has |= !strcmp(list + i, "user.bt");
        const char *set = res(r);
        const char *again = res(setxattr("f", "user.bt", "v", 1, XATTR_CREATE));
        say("xattr", "set=%s get=%.*s listed=%d create-again=%s", set, (int)(n > 0 ? n : 0), v,
            has, again);
        const char *rm = res(removexattr("f", "user.bt"));
        const char *get = res(getxattr("f", "user.bt", v, sizeof v));
        say("xattr-remove", "%s then-get=%s", rm, get);
        say("xattr-size-query", "%s", res(getxattr("f", "user.none", NULL, 0)));
    }
    if (chdir("..") < 0)
        die("chdir ..");
}

/* ---- set-user-ID / set-group-ID bits ------------------------------------------------------- */

/* Drop CAP_FSETID (root only; an ordinary user never has it), as a build step run by a
 * non-root user would lack it. */
static void drop_fsetid(void)
{
    struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[2];
    if (syscall(SYS_capget, &hdr, data) < 0)
        die("capget");
    data[CAP_FSETID / 32].effective &= ~(1u << (CAP_FSETID % 32));
    data[CAP_FSETID / 32].permitted &= ~(1u << (CAP_FSETID % 32));
    if (syscall(SYS_capset, &hdr, data) < 0)
        die("capset");
}

/* What a write, ftruncate, truncate or O_TRUNC open leaves of the set-ID bits, for a writer
 * with and (as root) without CAP_FSETID.  Run in a child, which may drop the capability. */
static void check_setid_as(bool without_fsetid)
{
    if (without_fsetid)
        drop_fsetid();
    static const mode_t modes[] = {04755, 02755, 02745, 06750, 0755};
    static const char *const ops[] = {"write", "ftruncate", "truncate", "open-trunc"};
    for (size_t o = 0; o < sizeof ops / sizeof *ops; o++) {
        for (size_t m = 0; m < sizeof modes / sizeof *modes; m++) {
            write_file("s", "0123456789");
            if (chmod("s", modes[m]) < 0)
                die("chmod s");
            struct stat st;
            stat("s", &st);
            mode_t before = st.st_mode & 07777;
            long r = 0;
            int fd;
            switch (o) {
            case 0:
                fd = open("s", O_WRONLY);
                r = fd < 0 ? -1 : write(fd, "x", 1);
                close(fd);
                break;
            case 1:
                fd = open("s", O_WRONLY);
                r = fd < 0 ? -1 : ftruncate(fd, 3);
                close(fd);
                break;
            case 2:
                r = truncate("s", 3);
                break;
            case 3:
                fd = open("s", O_WRONLY | O_TRUNC);
                r = fd;
                close(fd);
                break;
            }
            stat("s", &st);
            say("setid", "%s %s %o: %s -> %o", without_fsetid ? "no-fsetid" : "as-is", ops[o],
                before, res(r), st.st_mode & 07777);
        }
    }
}

static void check_setid(void)
{
    fresh_dir("setid");
    for (int pass = 0; pass < (geteuid() == 0 ? 2 : 1); pass++) {
        fflush(stdout);
        pid_t pid = fork();
        if (pid < 0)
            die("fork");
        if (pid == 0) {
            check_setid_as(pass == 0 && geteuid() == 0);
            fflush(stdout);
            _exit(0);
        }
        int status;
        if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
            die("setid child");
    }
    if (chdir("..") < 0)
        die("chdir ..");
}

/* ---- data ---------------------------------------------------------------------------------- */

static void check_data(void)
{
    struct stat st;
    fresh_dir("data");
    int fd = open("m", O_RDWR | O_CREAT, 0644);
    if (ftruncate(fd, 8192) < 0)
        die("ftruncate");
    char *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED)
        die("mmap");
    memcpy(p + 4096, "mapped write", 12);
    int rfd = open("m", O_RDONLY);
    char buf[64] = "";
    (void)!pread(rfd, buf, 12, 4096);
    say("mmap-shared-visible", "%.12s", buf);
    msync(p, 8192, MS_SYNC);
    munmap(p, 8192);
    close(fd);
    close(rfd);
    memset(buf, 0, sizeof buf);
    fd = open("m", O_RDONLY);
    (void)!pread(fd, buf, 12, 4096);
    say("mmap-shared-durable", "%.12s", buf);
    close(fd);

    fd = open("fa", O_RDWR | O_CREAT, 0644);
    say("fallocate", "%s", res(fallocate(fd, 0, 0, 1 << 20)));
    fstat(fd, &st);
    say("fallocate-size", "%lld", (long long)st.st_size);
    char ones[8192];
    memset(ones, 1, sizeof ones);
    (void)!pwrite(fd, ones, sizeof ones, 0);
    say("punch-hole", "%s", res(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, 4096)));
    char z[4];
    (void)!pread(fd, z, 4, 0);
    (void)!pread(fd, z + 2, 2, 4096);
    fstat(fd, &st);
    say("punch-hole-result", "hole-zero=%d rest-kept=%d size=%lld", z[0] == 0 && z[1] == 0,
        z[2] == 1, (long long)st.st_size);
    say("fallocate-keep-size", "%s", res(fallocate(fd, FALLOC_FL_KEEP_SIZE, 1 << 20, 1 << 20)));
    fstat(fd, &st);
    say("fallocate-keep-size-result", "%lld", (long long)st.st_size);
    close(fd);

    fd = open("src", O_RDWR | O_CREAT, 0644);
    char data[100000];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (char)(i * 7);
    (void)!write(fd, data, sizeof data);
    int out = open("dst", O_RDWR | O_CREAT, 0644);
    loff_t in_off = 0, out_off = 0;
    ssize_t copied = 0, n;
    while (copied < (ssize_t)sizeof data &&
           (n = copy_file_range(fd, &in_off, out, &out_off, sizeof data - (size_t)copied, 0)) > 0)
        copied += n;
    char back[100000];
    ssize_t got = pread(out, back, sizeof back, 0);
    say("copy-file-range", "copied=%zd same=%d", copied, got == (ssize_t)sizeof data &&
        memcmp(back, data, sizeof data) == 0);
    close(fd);
    close(out);

    fd = open("big", O_RDWR | O_CREAT, 0644);
    off_t off5g = 5LL << 30;
    say("write-past-4gib", "%s", res(pwrite(fd, "E", 1, off5g)));
    fstat(fd, &st);
    char e = 0;
    (void)!pread(fd, &e, 1, off5g);
    say("past-4gib-result", "size=%lld byte=%c", (long long)st.st_size, e);
    say("seek-data", "%lld", (long long)lseek(fd, 0, SEEK_DATA));
    say("seek-hole", "%lld", (long long)lseek(fd, off5g - 4096 * 16, SEEK_HOLE));
    say("seek-data-past-end", "%s", res(lseek(fd, off5g + 10, SEEK_DATA)));
    say("fsync", "%s", res(fsync(fd)));
    say("fdatasync", "%s", res(fdatasync(fd)));
    close(fd);
    unlink("big");

    fd = open("rw", O_RDWR | O_CREAT | O_TRUNC, 0644);
    (void)!write(fd, "abcdef", 6);
    lseek(fd, 2, SEEK_SET);
    (void)!write(fd, "XY", 2);
    char rb[8] = "";
    lseek(fd, 0, SEEK_SET);
    ssize_t rn = read(fd, rb, sizeof rb);
    say("overwrite-middle", "%.*s", (int)(rn > 0 ? rn : 0), rb);
    say("read-at-eof", "%zd", pread(fd, rb, 4, 100));
    close(fd);
    if (chdir("..") < 0)
        die("chdir ..");
}

/* ---- locks --------------------------------------------------------------------------------- */

static void check_locks(void)
{
    fresh_dir("locks");
    write_file("l", "lockme");
    int fd = open("l", O_RDWR);
    say("flock-ex", "%s", res(flock(fd, LOCK_EX)));
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 3};
    say("posix-setlk", "%s", res(fcntl(fd, F_SETLK, &fl)));
    pid_t me = getpid();
    pid_t child = fork();
    if (child == 0) {
        int cfd = open("l", O_RDWR);
        int flock_r = flock(cfd, LOCK_EX | LOCK_NB) < 0 ? errno : 0;
        struct flock c = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 1, .l_len = 1};
        int setlk_r = fcntl(cfd, F_SETLK, &c) < 0 ? errno : 0;
        struct flock q = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 10};
        fcntl(cfd, F_GETLK, &q);
        struct flock free_range = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 5, .l_len = 1};
        int other_r = fcntl(cfd, F_SETLK, &free_range) < 0 ? errno : 0;
        printf("locks-conflict: flock=%s setlk=%s getlk-owner-is-parent=%d other-range=%s\n",
               flock_r ? strerrorname_np(flock_r) : "ok", setlk_r ? strerrorname_np(setlk_r) : "ok",
               q.l_type == F_WRLCK && q.l_pid == me, other_r ? strerrorname_np(other_r) : "ok");
        fflush(stdout);
        _exit(0);
    }
    int st;
    waitpid(child, &st, 0);
    flock(fd, LOCK_UN);
    fl.l_type = F_UNLCK;
    fcntl(fd, F_SETLK, &fl);
    child = fork();
    if (child == 0) {
        int cfd = open("l", O_RDWR);
        struct flock c = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 3};
        const char *fr = res(flock(cfd, LOCK_EX | LOCK_NB));
        const char *sr = res(fcntl(cfd, F_SETLK, &c));
        printf("locks-after-unlock: flock=%s setlk=%s\n", fr, sr);
        fflush(stdout);
        _exit(0);
    }
    waitpid(child, &st, 0);
    close(fd);
    if (chdir("..") < 0)
        die("chdir ..");
}

/* ---- directories --------------------------------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void check_directories(void)
{
    fresh_dir("dirs");
    const char *env = getenv("FSCONFORM_DIR_ENTRIES");
    int n = env ? atoi(env) : 100000;
    mkdir("big", 0755);
    char name[64];
    for (int i = 0; i < n; i++) {
        snprintf(name, sizeof name, "big/entry-%06d", i);
        int fd = open(name, O_WRONLY | O_CREAT | O_EXCL, 0644);
        if (fd < 0)
            die(name);
        close(fd);
    }
    DIR *d = opendir("big");
    int seen = 0, dots = 0, bad = 0;
    unsigned char *hit = calloc((size_t)n, 1);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) {
            dots++;
            continue;
        }
        int i;
        if (sscanf(e->d_name, "entry-%d", &i) != 1 || i < 0 || i >= n || hit[i] ||
            e->d_type != DT_REG)
            bad++;
        else
            hit[i] = 1;
        seen++;
    }
    closedir(d);
    free(hit);
    say("readdir-large", "entries=%d seen=%d dots=%d bad=%d", n, seen, dots, bad);

    /* Entries neither added nor removed during the listing appear exactly once. */
    mkdir("churn", 0755);
    for (int i = 0; i < 2000; i++) {
        snprintf(name, sizeof name, "churn/stable-%04d", i);
        write_file(name, "");
    }
    d = opendir("churn");
    int stable_seen[2000] = {0}, count = 0;
    while ((e = readdir(d))) {
        int i;
        if (sscanf(e->d_name, "stable-%d", &i) == 1 && i >= 0 && i < 2000)
            stable_seen[i]++;
        if (++count % 100 == 0) {
            snprintf(name, sizeof name, "churn/added-%05d", count);
            write_file(name, "");
            snprintf(name, sizeof name, "churn/added-%05d", count - 100);
            unlink(name);
        }
    }
    closedir(d);
    int once = 0;
    for (int i = 0; i < 2000; i++)
        once += stable_seen[i] == 1;
    say("readdir-while-changing", "stable-seen-once=%d/2000", once);

    /* telldir/seekdir: reading again from a saved position gives the same names. */
    d = opendir("big");
    for (int i = 0; i < 10; i++)
        readdir(d);
    long pos = telldir(d);
    char *first[5], *again[5];
    for (int i = 0; i < 5; i++)
        first[i] = strdup(readdir(d)->d_name);
    for (int i = 0; i < 100; i++)
        readdir(d);
    seekdir(d, pos);
    int same = 0;
    for (int i = 0; i < 5; i++) {
        again[i] = strdup(readdir(d)->d_name);
        same += !strcmp(first[i], again[i]);
    }
    rewinddir(d);
    int after_rewind = 0;
    while (readdir(d))
        after_rewind++;
    closedir(d);
    say("telldir-seekdir", "same=%d/5 rewind-count=%d", same, after_rewind);
    for (int i = 0; i < 5; i++) {
        free(first[i]);
        free(again[i]);
    }

    /* Listing order is the filesystem's: compare sorted names of a small directory. */
    mkdir("small", 0755);
    const char *names[] = {"zeta", "alpha", ".hidden", "mid", "with space", "new\nline"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(name, sizeof name, "small/%s", names[i]);
        write_file(name, "");
    }
    mkdir("small/subdir", 0755);
    symlink("zeta", "small/link");
    d = opendir("small");
    char *list[32];
    int ln = 0;
    while ((e = readdir(d)) && ln < 32) {
        char item[300];
        snprintf(item, sizeof item, "%s/%d", e->d_name, e->d_type);
        for (char *c = item; *c; c++)
            if (*c == '\n')
                *c = '?';
        list[ln++] = strdup(item);
    }
    closedir(d);
    qsort(list, (size_t)ln, sizeof list[0], cmp_str);
    printf("readdir-small:");
    for (int i = 0; i < ln; i++) {
        printf(" %s", list[i]);
        free(list[i]);
    }
    printf("\n");
    rm_rf("big");
    if (chdir("..") < 0)
        die("chdir ..");
}

/* ---- permissions --------------------------------------------------------------------------- */

static void check_permissions(void)
{
    fresh_dir("perms");
    write_file("secret", "s");
    chmod("secret", 0000);
    mkdir("closed", 0755);
    write_file("closed/f", "f");
    chmod("closed", 0600); /* no search permission */
    mkdir("ro-dir", 0555);
    bool root = geteuid() == 0;
    say("perm-open-0000", "%s", root ? "root" : res(open("secret", O_RDONLY)));
    say("perm-search", "%s", root ? "root" : res(open("closed/f", O_RDONLY)));
    say("perm-create-in-ro-dir", "%s", root ? "root" : res(open("ro-dir/x", O_CREAT | O_WRONLY, 0644)));
    say("perm-access-w", "%s", root ? "root" : res(access("secret", W_OK)));
    say("perm-access-r-ok-dir", "%s", res(access("ro-dir", R_OK | X_OK)));
    chmod("closed", 0755);
    chmod("ro-dir", 0755);
    if (chdir("..") < 0)
        die("chdir ..");
}

/* ---- POSIX ACLs (root: the steps switch to uid 65534) -------------------------------------- */

/* The kernel's binary ACL xattr: a version header, then {tag, perm, id} entries. */
struct acl_entry {
    uint16_t tag, perm;
    uint32_t id;
};
enum { ACL_USER_OBJ = 1, ACL_USER = 2, ACL_GROUP_OBJ = 4, ACL_MASK = 0x10, ACL_OTHER = 0x20 };

static int set_acl(const char *path, const char *attr, uint16_t user_perm, uint16_t other_perm,
                   uint32_t user, uint16_t named_perm)
{
    struct {
        uint32_t version;
        struct acl_entry e[5];
    } a = {2,
           {{ACL_USER_OBJ, user_perm, 0xffffffff}, {ACL_USER, named_perm, user},
            {ACL_GROUP_OBJ, 4, 0xffffffff}, {ACL_MASK, 7, 0xffffffff},
            {ACL_OTHER, other_perm, 0xffffffff}}};
    return setxattr(path, attr, &a, sizeof a, 0);
}

/* Open `path` for reading as uid/gid 65534 in a child: its result. */
static const char *open_as_nobody(const char *path)
{
    int pfd[2];
    if (pipe(pfd) < 0)
        die("pipe");
    pid_t p = fork();
    if (p == 0) {
        int e = 0;
        if (setgroups(0, NULL) < 0 || setgid(65534) < 0 || setuid(65534) < 0)
            e = -1;
        else if (open(path, O_RDONLY) < 0)
            e = errno;
        (void)!write(pfd[1], &e, sizeof e);
        _exit(0);
    }
    close(pfd[1]);
    int e = -1;
    (void)!read(pfd[0], &e, sizeof e);
    close(pfd[0]);
    waitpid(p, NULL, 0);
    if (e == -1)
        return "setuid-failed";
    errno = e;
    return res(e ? -1 : 0);
}

static void check_acl(void)
{
    if (geteuid() != 0) { /* (unprivileged, ACLs cannot be set through a user namespace's FUSE
                           * mount: docs/conformance.md) */
        say("acl", "root only");
        return;
    }
    fresh_dir("acl");
    chmod(".", 0755);
    write_file("denied", "d");
    chmod("denied", 0644);
    say("acl-set-deny", "%s", res(set_acl("denied", "system.posix_acl_access", 6, 4, 65534, 0)));
    say("acl-deny", "%s", open_as_nobody("denied"));
    write_file("granted", "g");
    chmod("granted", 0600);
    say("acl-set-grant", "%s", res(set_acl("granted", "system.posix_acl_access", 6, 0, 65534, 4)));
    say("acl-grant", "%s", open_as_nobody("granted"));
    /* A default ACL replaces the umask for what is created below it. */
    mkdir("inherit", 0755);
    say("acl-set-default", "%s", res(set_acl("inherit", "system.posix_acl_default", 7, 5, 65534, 7)));
    mode_t old = umask(077);
    int fd = open("inherit/f", O_CREAT | O_WRONLY, 0666);
    umask(old);
    struct stat st;
    say("acl-default-mode", "%s %o", res(fd), fd >= 0 && fstat(fd, &st) == 0 ? st.st_mode & 0777 : 0);
    if (fd >= 0)
        close(fd);
    /* A chmod made while the file's attributes may be cached takes effect at once. */
    write_file("later", "l");
    chmod("later", 0644);
    say("acl-before-chmod", "%s", open_as_nobody("later"));
    chmod("later", 0600);
    say("acl-after-chmod", "%s", open_as_nobody("later"));
    if (chdir("..") < 0)
        die("chdir ..");
}

/* ---- permissions the kernel checks before the filesystem is asked ------------------------ */

/* Checks whose permission is decided by the kernel's own walk or open, not by a filesystem
 * call: a FIFO, device or socket opened (FUSE sends no OPEN for them), search permission on
 * directories of a path whose entries the kernel has cached, a change of supplementary groups
 * within one process, sticky directories, and the owner checks of chmod/chown/utimes.  As root
 * they run in a child that is uid/gid 65534 (saved uid 0, so that it can change its groups
 * without exec); as an ordinary user on objects made 0000 by the user. */
static bool perm_root;

/* The child's "other" identity: 65534 with no groups (root), or the user as is. */
static void become_other(void)
{
    if (!perm_root)
        return;
    if (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 ||
        setresuid(65534, 65534, 0) < 0)
        die("become 65534");
}

/* Run fn as the other identity in a child; its lines are printed by the child. */
static void as_other(void (*fn)(void))
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        die("fork");
    if (pid == 0) {
        become_other();
        fn();
        fflush(stdout);
        _exit(0);
    }
    int status;
    if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        die("perm-checks child");
}

static void other_special_files(void)
{
    int fd = open("fifo", O_RDWR | O_NONBLOCK);
    say("perm-fifo-open", "%s", res(fd));
    if (fd >= 0)
        close(fd);
    fd = open("fifo", O_RDONLY | O_NONBLOCK);
    say("perm-fifo-open-rdonly", "%s", res(fd));
    if (fd >= 0)
        close(fd);
    if (perm_root) {
        fd = open("null", O_RDWR);
        say("perm-device-open", "%s", res(fd));
        if (fd >= 0)
            close(fd);
    }
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX, .sun_path = "sock"};
    say("perm-socket-connect", "%s", res(s < 0 ? -1 : connect(s, (struct sockaddr *)&sa, sizeof sa)));
    if (s >= 0)
        close(s);
}

static void other_warm_cache(void)
{
    struct stat st;
    say("perm-search-before", "%s", res(stat("a/b/f", &st)));
}

static void other_cached_search(void)
{
    struct stat st;
    say("perm-search-cached-stat", "%s", res(stat("a/b/f", &st)));
    int fd = open("a/b/f", O_RDONLY);
    say("perm-search-cached-open", "%s", res(fd));
    if (fd >= 0)
        close(fd);
    say("perm-search-cached-link", "%s", res(link("a/b/f", "linked")));
    say("perm-search-cached-rename", "%s", res(rename("a/b/f", "moved")));
    say("perm-search-cached-chdir", "%s", res(chdir("a/b")));
}

static void other_setgroups(void)
{
    /* "grp" is 0040, group 4242: readable through that group alone. */
    int fd = open("grp", O_RDONLY);
    say("perm-groups-none", "%s", res(fd));
    if (fd >= 0)
        close(fd);
    gid_t g = 4242;
    if (seteuid(0) < 0 || setgroups(1, &g) < 0 || seteuid(65534) < 0)
        die("setgroups 4242");
    fd = open("grp", O_RDONLY);
    say("perm-groups-added", "%s", res(fd));
    if (fd >= 0)
        close(fd);
    if (seteuid(0) < 0 || setgroups(0, NULL) < 0 || seteuid(65534) < 0)
        die("setgroups none");
    fd = open("grp", O_RDONLY);
    say("perm-groups-dropped", "%s", res(fd));
    if (fd >= 0)
        close(fd);
}

static void other_owner_checks(void)
{
    /* "mine" is root's 0644 (as root) or the user's 0000 (the user may still chmod it). */
    say("perm-chmod-not-owner", "%s", perm_root ? res(chmod("mine", 0666)) : "root only");
    say("perm-chown-not-owner", "%s", perm_root ? res(chown("mine", 65534, 65534)) : "root only");
    struct timespec ts[2] = {{1, 0}, {2, 0}};
    say("perm-utimes-set-not-owner", "%s", perm_root ? res(utimensat(AT_FDCWD, "mine", ts, 0)) : "root only");
    say("perm-utimes-now-no-write", "%s", res(utimensat(AT_FDCWD, "mine", NULL, 0)));
    say("perm-utimes-now-writable", "%s", res(utimensat(AT_FDCWD, "shared", NULL, 0)));
    say("perm-truncate-no-write", "%s", res(truncate("mine", 0)));
    int fd = open("mine", O_RDONLY | O_TRUNC);
    say("perm-open-rdonly-trunc", "%s", res(fd));
    if (fd >= 0)
        close(fd);
    fd = open("mine", O_WRONLY);
    say("perm-open-wronly", "%s", res(fd));
    if (fd >= 0)
        close(fd);
    if (perm_root) {
        struct timespec now[2] = {{0, UTIME_NOW}, {0, UTIME_NOW}}, omit[2] = {{0, UTIME_OMIT}, {0, UTIME_OMIT}};
        say("perm-utimes-now-now-writable", "%s", res(utimensat(AT_FDCWD, "shared", now, 0)));
        say("perm-utimes-set-writable", "%s", res(utimensat(AT_FDCWD, "shared", ts, 0)));
        say("perm-utimes-omit-not-owner", "%s", res(utimensat(AT_FDCWD, "mine", omit, 0)));
        /* "theirs" is 65534's, group root: chown to a group not one's own, to one's own; a
         * set-group-ID bit for a group one is not in is dropped by chmod. */
        say("perm-chgrp-not-member", "%s", res(chown("theirs", (uid_t)-1, 4242)));
        say("perm-chmod-sgid-not-member", "%s", res(chmod("theirs", 02755)));
        struct stat st;
        say("perm-chmod-sgid-not-member-mode", "%o", stat("theirs", &st) == 0 ? st.st_mode & 07777 : 0);
        say("perm-chgrp-own-group", "%s", res(chown("theirs", (uid_t)-1, 65534)));
        say("perm-chmod-sgid-member", "%s", res(chmod("theirs", 02755)));
        say("perm-chmod-sgid-member-mode", "%o", stat("theirs", &st) == 0 ? st.st_mode & 07777 : 0);
        say("perm-chown-give-away", "%s", res(chown("theirs", 0, (gid_t)-1)));
        say("perm-sticky-unlink", "%s", res(unlink("sticky/roots")));
        say("perm-sticky-rename", "%s", res(rename("sticky/roots", "sticky/taken")));
        say("perm-sticky-rename-over", "%s", res(rename("sticky/mine", "sticky/roots")));
        say("perm-sticky-unlink-own", "%s", res(unlink("sticky/mine")));
    }
}

static void check_perm_checks(void)
{
    perm_root = geteuid() == 0;
    fresh_dir("perm-checks");
    chmod(".", 0755);
    /* Special files: root's 0600, or the user's 0000. */
    say("perm-mkfifo", "%s", res(mkfifo("fifo", 0600)));
    if (perm_root)
        say("perm-mknod", "%s", res(mknod("null", S_IFCHR | 0600, makedev(1, 3))));
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX, .sun_path = "sock"};
    say("perm-bind", "%s", res(s < 0 ? -1 : bind(s, (struct sockaddr *)&sa, sizeof sa)));
    if (s >= 0)
        listen(s, 1);
    if (!perm_root) {
        chmod("fifo", 0000);
        chmod("sock", 0000);
    } else {
        chmod("sock", 0600);
    }
    as_other(other_special_files);
    if (s >= 0)
        close(s);
    /* Search permission on a directory whose entries the kernel has cached. */
    mkdir("a", 0755);
    mkdir("a/b", 0777);
    write_file("a/b/f", "f");
    chmod("a/b/f", 0666);
    as_other(other_warm_cache);
    chmod("a", perm_root ? 0700 : 0000);
    as_other(other_cached_search);
    chmod("a", 0755);
    /* Supplementary groups changed without exec. */
    if (perm_root) {
        write_file("grp", "g");
        say("perm-groups-chown", "%s", res(chown("grp", 0, 4242)));
        chmod("grp", 0040);
        as_other(other_setgroups);
    }
    /* Owner checks, writes without write permission, sticky directories. */
    write_file("mine", "m");
    chmod("mine", perm_root ? 0644 : 0000);
    write_file("shared", "s");
    chmod("shared", 0666);
    if (perm_root) {
        mkdir("sticky", 01777);
        chmod("sticky", 01777);
        write_file("sticky/roots", "r");
        chmod("sticky/roots", 0666);
        write_file("sticky/mine", "m");
        chown("sticky/mine", 65534, 65534);
        write_file("theirs", "t");
        chown("theirs", 65534, 0);
    }
    as_other(other_owner_checks);
    if (chdir("..") < 0)
        die("chdir ..");
}

/* ---- inode numbers ------------------------------------------------------------------------ */

static void check_inodes(void)
{
    fresh_dir("inodes");
    const char *names[] = {"a", "b", "c", "d"};
    struct stat st[4], lst, out;
    for (int i = 0; i < 4; i++) {
        write_file(names[i], names[i]);
        stat(names[i], &st[i]);
    }
    int dup = 0;
    for (int i = 0; i < 4; i++)
        for (int k = i + 1; k < 4; k++)
            dup += st[i].st_dev == st[k].st_dev && st[i].st_ino == st[k].st_ino;
    say("ino-distinct", "%d shared", dup);
    say("ino-link", "%s", res(link("a", "a-link")));
    stat("a-link", &lst);
    say("ino-link-shares", "%s", lst.st_ino == st[0].st_ino && lst.st_dev == st[0].st_dev ? "yes" : "no");
    /* readdir agrees with stat */
    DIR *d = opendir(".");
    struct dirent *de;
    int agree = 0;
    while (d && (de = readdir(d)))
        for (int i = 0; i < 4; i++)
            agree += !strcmp(de->d_name, names[i]) && de->d_ino == st[i].st_ino;
    if (d)
        closedir(d);
    say("ino-readdir", "%d of 4 agree", agree);
    /* No file is the output's (cat's "input file is output file"). */
    int same = 0;
    if (fstat(1, &out) == 0)
        for (int i = 0; i < 4; i++)
            same += out.st_dev == st[i].st_dev && out.st_ino == st[i].st_ino;
    say("ino-not-stdout", "%d", same);
    if (chdir("..") < 0)
        die("chdir ..");
}

/* ---- executables --------------------------------------------------------------------------- */

static int run_and_wait(const char *path, char *const argv[])
{
    pid_t p = fork();
    if (p == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        execv(path, argv);
        _exit(errno == ETXTBSY ? 42 : 127);
    }
    int st;
    waitpid(p, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void check_exec(void)
{
    fresh_dir("exec");
    write_file("script.sh", "#!/bin/sh\nexit 7\n");
    chmod("script.sh", 0755);
    char *const sargv[] = {(char *)"script.sh", NULL};
    say("exec-just-written-script", "status=%d", run_and_wait("./script.sh", sargv));
    /* Copy a real ELF binary into the directory and run it. */
    int in = open("/bin/true", O_RDONLY), out = open("true", O_WRONLY | O_CREAT, 0755);
    char buf[65536];
    ssize_t n;
    while ((n = read(in, buf, sizeof buf)) > 0)
        if (write(out, buf, (size_t)n) != n)
            die("copy");
    close(in);
    close(out);
    char *const targv[] = {(char *)"true", NULL};
    say("exec-just-written-binary", "status=%d", run_and_wait("./true", targv));
    /* Executing a file that is open for writing: ETXTBSY. */
    out = open("true", O_WRONLY);
    say("exec-open-for-write", "status=%d (42 = ETXTBSY)", run_and_wait("./true", targv));
    close(out);
    write_file("noexec", "#!/bin/sh\n");
    say("exec-not-executable", "status=%d", run_and_wait("./noexec", targv));
    /* Writing a running binary: ETXTBSY. */
    pid_t p = fork();
    if (p == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        execl("/bin/sh", "sh", "-c", "cp /bin/sleep ./sleeper && exec ./sleeper 2", (char *)NULL);
        _exit(127);
    }
    int w = -1;
    for (int i = 0; i < 100; i++) {
        struct timespec ts = {0, 20000000};
        nanosleep(&ts, NULL);
        char exe[4096];
        char link[64];
        snprintf(link, sizeof link, "/proc/%d/exe", p);
        ssize_t l = readlink(link, exe, sizeof exe - 1);
        if (l > 0 && (exe[l] = 0, strstr(exe, "/sleeper"))) {
            w = open("sleeper", O_WRONLY);
            break;
        }
    }
    say("write-running-binary", "%s", res(w));
    if (w >= 0)
        close(w);
    kill(p, SIGKILL);
    waitpid(p, NULL, 0);
    if (chdir("..") < 0)
        die("chdir ..");
}

/* ---- fsx: random operations checked against a model -------------------------------------- */

#define FSX_MAX (256 * 1024)

static uint64_t rng_state;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* One process hammering one file; returns the number of mismatches. */
static int fsx_worker(int id, int ops, int seconds)
{
    char name[32];
    snprintf(name, sizeof name, "fsx-%d", id);
    rng_state = 0x9e3779b97f4a7c15ULL * (uint64_t)(id + 1);
    unsigned char *model = calloc(FSX_MAX, 1), *buf = malloc(FSX_MAX);
    size_t size = 0;
    int fd = open(name, O_RDWR | O_CREAT | O_TRUNC, 0644);
    int bad = 0;
    time_t end = time(NULL) + seconds;
    for (int op = 0; seconds ? time(NULL) < end : op < ops; op++) {
        size_t off = rnd() % FSX_MAX, len = rnd() % 16384 + 1;
        if (off + len > FSX_MAX)
            len = FSX_MAX - off;
        switch (rnd() % 7) {
        case 0: /* write */
        case 1:
            for (size_t i = 0; i < len; i++)
                buf[i] = (unsigned char)rnd();
            if (pwrite(fd, buf, len, (off_t)off) != (ssize_t)len)
                bad++;
            memcpy(model + off, buf, len);
            if (off + len > size)
                size = off + len;
            break;
        case 2: /* truncate */
            if (ftruncate(fd, (off_t)off) < 0)
                bad++;
            if (off < size)
                memset(model + off, 0, size - off);
            size = off;
            break;
        case 3: { /* mmap write */
            if (size == 0)
                break;
            size_t moff = off % size & ~(size_t)4095, mlen = len;
            if (moff + mlen > size)
                mlen = size - moff;
            unsigned char *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
            if (m == MAP_FAILED) {
                bad++;
                break;
            }
            for (size_t i = 0; i < mlen; i++)
                m[moff + i] = model[moff + i] = (unsigned char)rnd();
            msync(m, size, MS_SYNC);
            munmap(m, size);
            break;
        }
        case 4: /* punch a hole */
            if (off < size) {
                size_t plen = off + len > size ? size - off : len;
                if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off,
                              (off_t)plen) == 0)
                    memset(model + off, 0, plen);
            }
            break;
        default: { /* read and compare */
            ssize_t n = pread(fd, buf, len, (off_t)off);
            size_t want = off >= size ? 0 : (off + len > size ? size - off : len);
            if (n != (ssize_t)want || memcmp(buf, model + off, want) != 0)
                bad++;
            struct stat st;
            fstat(fd, &st);
            if ((size_t)st.st_size != size)
                bad++;
        }
        }
    }
    close(fd);
    fd = open(name, O_RDONLY);
    ssize_t n = pread(fd, buf, FSX_MAX, 0);
    if (n != (ssize_t)size || memcmp(buf, model, size) != 0)
        bad++;
    close(fd);
    free(model);
    free(buf);
    return bad;
}

static void check_fsx(void)
{
    enum { WORKERS = 4, OPS = 3000 };
    fresh_dir("fsx");
    for (int w = 0; w < WORKERS; w++) {
        if (fork() == 0)
            _exit(fsx_worker(w, OPS, fsx_seconds) ? 1 : 0);
    }
    int failed = 0;
    for (int w = 0; w < WORKERS; w++) {
        int st;
        wait(&st);
        failed += !WIFEXITED(st) || WEXITSTATUS(st) != 0;
    }
    say("fsx", "workers=%d failed=%d", WORKERS, failed);
    if (chdir("..") < 0)
        die("chdir ..");
}

static const struct {
    const char *name;
    void (*fn)(void);
} checks[] = {
    {"open", check_open_flags}, {"append", check_append}, {"names", check_names},
    {"metadata", check_metadata}, {"setid", check_setid}, {"data", check_data}, {"locks", check_locks},
    {"directories", check_directories}, {"permissions", check_permissions},
    {"exec", check_exec}, {"acl", check_acl}, {"perm-checks", check_perm_checks}, {"inodes", check_inodes}, {"fsx", check_fsx},
};

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i];
        else if (!strcmp(argv[i], "--fsx-seconds") && i + 1 < argc)
            fsx_seconds = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: fsconform [--only NAME] [--fsx-seconds N]\n");
            return 2;
        }
    }
    umask(022);
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (size_t i = 0; i < sizeof checks / sizeof checks[0]; i++) {
        if (only && strcmp(only, checks[i].name))
            continue;
        printf("== %s\n", checks[i].name);
        checks[i].fn();
    }
    return 0;
}
