/* fs-vroot — the virtual root (fs-vroot.c); internal to fs*.c.
 *
 * Owns: the root directory's entries (one mount point per tree, stdout, stderr), the
 * attributes of stdout/stderr, and their writes: copied to buildtrail's own fd 1/2 before the
 * reply, in order, under fs.output_lock (taken after fs.lock, before the recorder's), and
 * recorded with their writer.
 * Calls fs-inodes.h (a tree root's attributes and entry) and fs-request.h.
 */
#pragma once

#include <fuse_lowlevel.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

struct fs;
struct fs_inode;
struct fs_handle;

void fs_vroot_stat(struct fs *fs, struct fs_inode *in, struct stat *st);

int fs_vroot_lookup(struct fs *fs, const char *name, struct fuse_entry_param *e);

/* The build wrote to its stdout or stderr: pass it on, record it, then let the writer go on. */
int fs_vroot_output_write(struct fs *fs, fuse_req_t req, struct fs_handle *h, const char *data,
                          size_t len);

void fs_vroot_readdir(struct fs *fs, fuse_req_t req, size_t size, off_t off);
