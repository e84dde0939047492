/* versions — which content of a file each access saw or made, and the hashes of every content.
 *
 * Model
 *   A version is one content of one file (inode, keyed by st_dev/st_ino, so a rename or a hard
 *   link carries it to another path).  Every write-open ... last close through the mount makes
 *   a new version; opened without truncation it is written on top of the one before (its base).
 *   A file that is read before the build wrote it gets a "found" version at its first read.
 *   Every access binds to the version current when it happened: a read to the content it
 *   opened, a write to the content it is making.
 *
 * Hashing is done off the request path: when a version is final (the last writer released it,
 *   or it was found), its content is hashed (SHA-256 and git's blob SHA-1) by a pool of worker
 *   threads from an fd the caller hands over, and then recorded (rec_add_version).  So that
 *   the hash is exactly the bytes readers of that version saw, a writer that wants to change
 *   the file waits until its current content is hashed (vers_write_begin): a reopen for
 *   writing right after a close cannot change bytes under the hash.  Hashing never touches the
 *   FUSE mount (fds are the daemon's own, on the real filesystem), so it cannot deadlock.
 *
 * Assumption: every change to a traced file during the build goes through the mount (as for
 *   the kernel caches, see fs.h).  The table outlives the kernel's inodes (a file forgotten and
 *   looked up again keeps its version); an inode number can only be reused after the file is
 *   gone, and a new file is always a fresh version.
 *
 * Ownership: one table per run, made by the launcher (vers_new) beside the process table and the
 *   recorder and handed to both front ends the same way (fs_config.vers, syswatch_start); it
 *   outlives both (their last hashes drained: fs_flush_open_handles, syswatch_stop) and is
 *   freed after them.
 *
 * Locking: vers.lock protects the table and every entry; it is a leaf lock (nothing else is
 *   taken while holding it, except that rec_add_version is called without it).  Waiting for a
 *   hash happens on a condition variable of that lock.  Functions never fail: a file that cannot
 *   be read for hashing gets a version with hash_error set.
 */
#pragma once

#include "recorder.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct vers;

/* `hash_threads` workers (0: one per CPU).  Files larger than `hash_limit` bytes are not
 * hashed (hash_error EFBIG): hashing costs about 8 s of CPU per GiB (0: no limit). */
struct vers *vers_new(struct rec *rec, int hash_threads, int64_t hash_limit);

/* Wait for every hash in progress, then free. */
void vers_free(struct vers *v);

/* Wait until no hash is in progress (every final version is recorded). */
void vers_drain(struct vers *v);

/* One write-open of a file (owned by the caller until vers_write_end/abort frees it). */
struct vers_writer;

/* Before opening (dev, ino) for writing or truncating it by name: waits until its current
 * content is hashed, then joins the version being written or begins one, at `file_id`.
 * `fresh`: the content starts empty (O_TRUNC, a new file), so it has no base.  *version gets
 * the version id; *reads (if not NULL) the version a read through this open sees at its start:
 * the one before (0 when fresh), or the one being written when this writer joined it.
 * If every writer of the version being written has closed its file (FLUSH) and written nothing
 * since, their releases are merely late (RELEASE comes after close() returns): that version is
 * finished and hashed first, so that this writer never changes a version under its readers.
 * Pair it with vers_write_end() or, if the open failed, vers_write_abort(). */
struct vers_writer *vers_write_begin(struct vers *v, dev_t dev, ino_t ino, int64_t file_id,
                                     bool fresh, int64_t *version, int64_t *reads);

/* The open succeeded as `fd` (kept open until vers_write_end): the file can be reopened from
 * it read-only to hash a version its late release would otherwise hold up. */
void vers_write_opened(struct vers *v, struct vers_writer *w, int fd);

/* Something was written through `w` (lock-free: called on the write path). */
void vers_write_dirty(struct vers_writer *w);

/* The kernel flushed `w` (a close() of a file descriptor of it). */
void vers_write_flushed(struct vers *v, struct vers_writer *w);

/* `w` is released; frees it.  `hash_fd`: a read-only fd of the file, consumed (or a negative
 * errno when none could be opened); at the last writer the version is final and is hashed
 * from it. */
void vers_write_end(struct vers *v, struct vers_writer *w, int hash_fd);

/* The open that vers_write_begin() prepared failed; frees `w`.  If it had begun the version
 * alone, the version is dropped and the previous one is current again. */
void vers_write_abort(struct vers *v, struct vers_writer *w);

/* A read of (dev, ino) at `file_id`: the version it reads.  If the file had none, a found
 * version is made and *hash_needed set: the caller must then call vers_hash_found() with an
 * fd of the file (writers wait for it). */
int64_t vers_read(struct vers *v, dev_t dev, ino_t ino, int64_t file_id, bool *hash_needed);

/* Hash the found version vers_read() made, from `hash_fd` (consumed; or a negative errno). */
void vers_hash_found(struct vers *v, dev_t dev, ino_t ino, int hash_fd);

/* The current version of (dev, ino), 0 if the build never read or wrote it. */
int64_t vers_current(struct vers *v, dev_t dev, ino_t ino);

/* Open `path` read-only to hash it, without touching its access time (O_NOATIME, where the
 * file's owner allows it): a hash must not change what the build sees.  Only a regular file is
 * opened: anything else (a FIFO, whose open would wait for a writer; a device, whose open acts
 * on it), looked at first without opening it, gives -ESTALE.  fd or -errno. */
int vers_open_for_hash(const char *path);

/* A read-only fd of the file open as `fd`, to hash it from (or -errno): a new open file
 * description through /proc/self/fd (never a dup: its flags and offset are the build's, and a
 * writer's fd would make an exec of the file fail with ETXTBSY while it is hashed), opened as
 * vers_open_for_hash does. */
int vers_reopen_for_hash(int fd);

/* Hash the whole content of `fd` (from offset 0, with pread): SHA-256 and git's blob id
 * (SHA-1 of "blob SIZE\0" + content), and plain SHA-1 (SPDX 2 requires it).  Returns 0, -errno, -ESTALE when the size changed
 * while reading, or -EFBIG when the file is larger than `limit` (0: none); *size gets its
 * size.  Exposed for tests. */
int vers_hash_fd(int fd, int64_t limit, uint8_t sha256[32], uint8_t sha1[20],
                 uint8_t git_sha1[20], int64_t *size);
