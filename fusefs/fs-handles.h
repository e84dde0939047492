/* fs-handles — open files and directories (fs-handles.c); internal to fs*.c.
 *
 * Owns: struct fs_handle (the fh of every open file, directory and stdout/stderr), the list
 * of open handles (fs.handles, under fs.lock), each handle's per-process byte accounting
 * (acct, under its acct_lock, never taken with fs.lock held; proc.h and the recorder are called
 * under it), the rows written at release, and the open reply's caching flags.  A writer's version is ended at release (versions.h).
 * Calls nothing in fs*.c but the inode type.
 */
#pragma once

#include <dirent.h>
#include <fuse_lowlevel.h>
#include <pthread.h>
#include <glib.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct fs;
struct fs_inode;

/* The kernel marks opens done by execve() with this bit of the open flags (__FMODE_EXEC). */
#define FS_OPEN_EXEC_FLAG 0x20

enum fs_handle_type { HANDLE_FILE, HANDLE_DIR, HANDLE_OUTPUT };

#define FS_ACCT_SLOTS 4

struct fs_acct {
    int64_t process_id;
    int64_t bytes_read, bytes_written;
    int64_t first_ns, last_ns;
    bool read, written;
};

struct fs_handle {
    enum fs_handle_type type;
    int fd;
    int stream;          /* HANDLE_OUTPUT: TRACEDB_STDOUT/ERR */
    DIR *dir;            /* HANDLE_DIR */
    off_t dir_offset;    /* HANDLE_DIR */
    struct dirent *dir_entry; /* HANDLE_DIR: an entry read but not yet returned */
    GPtrArray *dir_snap; /* HANDLE_DIR with reversed listings: the listing read at offset 0,
                          * in the order served (struct fs_dirsnap_entry; offset i+1 follows
                          * entry i), or NULL */
    int64_t file_id;
    int open_flags;
    dev_t dev;           /* HANDLE_FILE: the file, for its versions */
    ino_t ino;
    int64_t version_id;  /* HANDLE_FILE: the version read or being written (0: none) */
    int64_t read_version_id; /* what reads through it see at open: the version read, or for a
                              * writer the one it writes on top of (0: none, it starts empty) */
    struct vers_writer *vw; /* HANDLE_FILE opened to write: its writer (ended at release) */
    bool exec;
    pid_t exec_pid;      /* exec opens: the process that was exec'ing (proc_exec_hold), or 0 */
    int64_t open_ns;
    pthread_mutex_t acct_lock;
    struct fs_acct acct[FS_ACCT_SLOTS]; /* protected by acct_lock; [0] is the opener */
    int n_acct;                         /* protected by acct_lock */
    struct fs_handle *prev, *next;      /* list of open handles; protected by fs.lock */
};

struct fs_handle *fs_handle_new(struct fs *fs, enum fs_handle_type type, int fd,
                                int64_t file_id, int flags, int64_t opener);

/* Account n bytes moved by `process_id` through `h`. */
void fs_handle_acct_add(struct fs *fs, struct fs_handle *h, int64_t process_id, bool write,
                        int64_t n);

/* Unlink from the open list, account, close, free. */
void fs_handle_release(struct fs *fs, struct fs_handle *h);

void fs_open_reply_flags(struct fs *fs, struct fs_inode *in, struct fuse_file_info *fi);
