/* fs-ops — the FUSE handlers (fs-names.c, fs-files.c, fs-dirs.c), which fs.c's operations
 * table names; internal to fs*.c.
 *
 * Each replies exactly once and records through fs-record.h (fs.h's handler discipline).  They
 * call the modules below them (fs-request, fs-creds, fs-inodes, fs-vroot, fs-record,
 * fs-handles) and none of them calls back; fs-dirs.c's fsyncdir is fs-files.c's fsync.
 */
#pragma once

#include <fuse_lowlevel.h>

/* ---- fs-names.c ---- */

void fs_op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name);

void fs_op_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup);

void fs_op_forget_multi(fuse_req_t req, size_t count, struct fuse_forget_data *forgets);

void fs_op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);

void fs_op_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int valid,
                   struct fuse_file_info *fi);

void fs_op_readlink(fuse_req_t req, fuse_ino_t ino);

void fs_op_mknod(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode, dev_t rdev);

void fs_op_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode);

void fs_op_symlink(fuse_req_t req, const char *link, fuse_ino_t parent, const char *name);

void fs_op_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t parent, const char *name);

void fs_op_unlink(fuse_req_t req, fuse_ino_t parent, const char *name);

void fs_op_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name);

void fs_op_rename(fuse_req_t req, fuse_ino_t parent, const char *name, fuse_ino_t newparent,
                  const char *newname, unsigned int flags);

/* access(2), chdir and the like (sent only without kernel checks, fs.h): the real filesystem
 * judges, as for the caller. */
void fs_op_access(fuse_req_t req, fuse_ino_t ino, int mask);

/* ---- fs-files.c ---- */

void fs_op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);

void fs_op_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
                  struct fuse_file_info *fi);

void fs_op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
                struct fuse_file_info *fi);

void fs_op_write_buf(fuse_req_t req, fuse_ino_t ino, struct fuse_bufvec *in_buf, off_t off,
                     struct fuse_file_info *fi);

void fs_op_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);

void fs_op_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);

void fs_op_fsync(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi);

void fs_op_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t offset, off_t length,
                     struct fuse_file_info *fi);

void fs_op_lseek(fuse_req_t req, fuse_ino_t ino, off_t off, int whence,
                 struct fuse_file_info *fi);

void fs_op_copy_file_range(fuse_req_t req, fuse_ino_t ino_in, off_t off_in,
                           struct fuse_file_info *fi_in, fuse_ino_t ino_out, off_t off_out,
                           struct fuse_file_info *fi_out, size_t len, int flags);

/* ---- fs-dirs.c ---- */

void fs_op_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);

void fs_op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
                   struct fuse_file_info *fi);

void fs_op_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);

void fs_op_fsyncdir(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi);

void fs_op_statfs(fuse_req_t req, fuse_ino_t ino);

void fs_op_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name, size_t size);

void fs_op_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size);

void fs_op_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name, const char *value,
                    size_t size, int flags);

void fs_op_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name);
