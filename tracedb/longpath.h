/* longpath — SQLite at any path the kernel accepts.
 *
 * SQLite's Unix VFS refuses a database whose absolute path is longer than 512 bytes (its
 * MAX_PATHNAME), which a CI or Yocto working directory easily exceeds.  This module registers a
 * VFS named LONGPATH_VFS that is the Unix VFS except for one method, xFullPathname: a name
 * whose absolute form fits is resolved by the Unix VFS as before; a longer one becomes
 * "/proc/self/fd/N/BASENAME", where N is an O_PATH descriptor of the file's directory that this
 * module opens once and keeps for the life of the process (one per directory, close-on-exec).
 * The kernel resolves that name to the same directory for every open, including the -wal,
 * -shm and -journal files SQLite derives from it.
 *
 * Contract
 *   - longpath_register() is idempotent and thread-safe; it returns 0 or -ENOSYS (no Unix VFS).
 *   - Pass LONGPATH_VFS as sqlite3_open_v2()'s zVfs.
 *   - Locking: one mutex protects the directory table; it is held only while looking up or
 *     adding an entry, never across a call into SQLite.
 */
#pragma once

#define LONGPATH_VFS "buildtrail-longpath"

int longpath_register(void);
