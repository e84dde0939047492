/* fsconform — what its files share (fsconform.c has the tool's contract and main).
 *
 *   fsconform.c        main, the list of checks (--only NAME), the helpers below
 *   fsconform-data.c   open flags, O_APPEND, data, locks, fsx
 *   fsconform-names.c  names, metadata, directories, inode numbers, executables
 *   fsconform-perms.c  set-ID bits, permissions, POSIX ACLs, the kernel's permission checks
 * Every check prints "check: result" lines through say() and nothing else on stdout.
 */
#pragma once

#include <stddef.h>

/* --fsx-seconds N (0: fsx's own number of operations). */
extern int fsx_seconds;

/* One observation: "check: ..." on stdout, flushed. */
void say(const char *check, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "ok" for r >= 0, else the errno's name. */
const char *res(long r);

/* A fatal setup problem in the checker itself (not an observation): exit 2. */
void die(const char *what) __attribute__((noreturn));

void write_file(const char *path, const char *data);

/* The file's content in buf (or "<ERRNO>" when it cannot be opened). */
char *read_file(const char *path, char *buf, size_t size);

void rm_rf(const char *path);

/* An empty directory `path`, made the current one. */
void fresh_dir(const char *path);

void check_open_flags(void);
void check_append(void);
void check_names(void);
void check_metadata(void);
void check_setid(void);
void check_data(void);
void check_locks(void);
void check_directories(void);
void check_permissions(void);
void check_exec(void);
void check_acl(void);
void check_perm_checks(void);
void check_inodes(void);
void check_fsx(void);
