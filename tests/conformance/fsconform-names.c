/* fsconform-names — fsconform's checks of names and what they carry: rename, links, symlinks,
 * removal; metadata (stat, times, modes); directories (listing, large ones); inode numbers;
 * executables (see fsconform.h). */
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

/* ---- names: rename, links, symlinks, removal -------------------------------------------- */

void check_names(void)
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

void check_metadata(void)
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

/* ---- directories --------------------------------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void check_directories(void)
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

/* ---- inode numbers ------------------------------------------------------------------------ */

void check_inodes(void)
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

void check_exec(void)
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
