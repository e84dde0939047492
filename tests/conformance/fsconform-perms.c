/* fsconform-perms — fsconform's checks of who may do what: set-user-ID/set-group-ID clearing,
 * permissions, POSIX ACLs, and the checks the kernel makes before the filesystem is asked (see
 * fsconform.h). */
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

void check_setid(void)
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

/* ---- permissions --------------------------------------------------------------------------- */

void check_permissions(void)
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

void check_acl(void)
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

void check_perm_checks(void)
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
