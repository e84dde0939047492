/* fs-record — the one narrow way handlers record what their caller did (fs-record.c);
 * internal to fs*.c.
 *
 * Owns nothing but the two calls and fs_version_at: rows go to the recorder (recorder.h,
 * its own locks), paths come from fs-inodes.h (fs.lock, taken and released there).
 */
#pragma once

#include <stdint.h>

struct fs;
struct fs_inode;

/* The two ways a handler records what its caller did (nothing for the launcher's own
 * processes, process_id -1): to a file known by id (an open file: flags, bytes, the time of
 * the first of the accesses it sums up), or to the path `name` in `dir` (flags and bytes
 * none, now).  version_id: the version the access read, made, moved or removed (0: none;
 * dropped when result is an error). */
void fs_record_file(struct fs *fs, int64_t process_id, int64_t file_id, int kind, int flags,
                    int64_t bytes, int64_t first_ns, int result, int64_t version_id);
void fs_record_path(struct fs *fs, int64_t process_id, struct fs_inode *dir, const char *name,
                    int kind, int result, int64_t version_id);

/* `name` in `dir` was hidden from the caller by the gate (run --only-inputs): how is
 * TRACEDB_DENIED_LOOKUP or _LISTING. */
void fs_record_denial(struct fs *fs, int64_t process_id, struct fs_inode *dir, const char *name,
                      int how);

/* The current version of what `name` in `dir` is (0: none, or not a file). */
int64_t fs_version_at(struct fs *fs, struct fs_inode *dir, const char *name);
