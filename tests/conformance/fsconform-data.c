/* fsconform-data — fsconform's checks of what files hold and how they are opened: open flags,
 * O_APPEND, data (holes, mmap, copies), locks, and fsx (random operations checked against a model)
 * (see fsconform.h). */
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

#include "fsconform.h"

/* ---- open flags ---------------------------------------------------------------------------- */

void check_open_flags(void)
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
void check_append(void)
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

/* ---- data ---------------------------------------------------------------------------------- */

void check_data(void)
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

void check_locks(void)
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

void check_fsx(void)
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
