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

#include "fsconform.h"

static const char *only;
int fsx_seconds;

void say(const char *check, const char *fmt, ...)
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
const char *res(long r)
{
    if (r >= 0)
        return "ok";
    const char *n = strerrorname_np(errno);
    return n ? n : "E?";
}

/* A fatal setup problem in the checker itself (not an observation). */
void die(const char *what)
{
    fprintf(stderr, "fsconform: %s: %s\n", what, strerror(errno));
    exit(2);
}

void write_file(const char *path, const char *data)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || write(fd, data, strlen(data)) != (ssize_t)strlen(data) || close(fd) < 0)
        die(path);
}

char *read_file(const char *path, char *buf, size_t size)
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

void rm_rf(const char *path)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    if (system(cmd) != 0)
        die("rm -rf");
}

void fresh_dir(const char *path)
{
    rm_rf(path);
    if (mkdir(path, 0755) < 0 || chdir(path) < 0)
        die(path);
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
