/* outfile — write a query's output document to where `-o PATH` says, as a shell redirection
 * would, but never replacing what is not a regular file, and never following a link or
 * writing a file the kernel would not let the caller follow or write.
 *
 * Contract
 *   - "-" is standard output.
 *   - A regular file that is not a link (or a name that does not exist yet) is replaced
 *     atomically: the data goes to a temporary file beside it, which is renamed over it in the
 *     same directory (the kernel decides whether the caller may: in a sticky directory, only
 *     the file's owner, the directory's owner or root may).
 *   - A symlink is opened as the caller would open it: the kernel follows it, so
 *     fs.protected_symlinks and every permission apply, and its target is written; the link
 *     stays.  When the kernel reaches a regular file, that file is replaced atomically in the
 *     directory the kernel reached it in (the name in that directory checked to be the very
 *     file opened); otherwise (a FIFO, a device; a file whose name is not found again, or
 *     whose directory the caller may not write) it is written in place.  A path that goes
 *     through /proc (/dev/stdout, /proc/self/fd/1, a link to them) is written in place, never
 *     renamed over; /dev itself is not special (a device node is written in place as one,
 *     a file in /dev/shm is a file like any other and gets `mode`).
 *   - In a sticky world-writable directory (/tmp), a name that belongs to neither the caller
 *     nor the directory's owner — another user's link, file or FIFO, which could be a trap —
 *     is refused (-EACCES), whatever the fs.protected_* sysctls say: the rule of
 *     fs.protected_symlinks, applied by buildtrail itself to the name and to every link it
 *     leads through.  (Checked on the names before the open: with the sysctl on, the kernel
 *     also enforces it at the open.)
 *   - A device, FIFO or socket is opened for writing and written (a FIFO waits for a reader,
 *     as a shell redirection does; a socket fails with ENXIO).  A directory is refused
 *     (-EISDIR).
 *   - `mode`: the permissions of a new or replaced file, exactly (no umask), or
 *     OUTFILE_MODE_UMASK: a new file gets 0666 less the umask, a replaced one keeps its own.
 *     A replaced file keeps its owner and group where the caller may give them (root: both;
 *     anyone: a group they are in), as `>` into it would keep them; otherwise it is the
 *     caller's, as a new file is.
 *     A file written in place keeps its permissions.
 *   - A document can be written in one call (outfile_write) or streamed: outfile_open, any
 *     number of outfile_append, then outfile_commit (which renames the temporary file into
 *     place) or outfile_abort (which removes it: a replaced file keeps its old content).  A
 *     streamed file written in place (a device, /dev/stdout, "-") has what was appended.
 *     A signal that ends the process before the commit or the abort (SIGINT, SIGTERM, SIGHUP,
 *     SIGQUIT, SIGXFSZ, where their action is the default) removes the temporary file first,
 *     then ends it as it would have: Ctrl-C leaves no NAME.XXXXXX.  The handlers are set
 *     from outfile_open to the commit or abort (one outfile at a time is covered).
 *   - Returns 0 or -errno; never logs.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define OUTFILE_MODE_UMASK ((mode_t)-1)

struct outfile {
    int fd;
    bool borrowed;   /* standard output: never closed */
    bool replacing;  /* an existing regular file is being replaced */
    int dirfd;       /* the directory of `tmp` and `name` (O_PATH), or -1 (in place) */
    char *tmp;       /* the temporary file renamed to `name` at commit, or NULL (in place) */
    char *name;
    bool created;    /* `name` was created empty (through a dangling link): removed on abort */
    dev_t created_dev;
    ino_t created_ino;
    int error;       /* the first write error (-errno), kept */
};

int outfile_open(const char *path, mode_t mode, struct outfile *o);
int outfile_append(struct outfile *o, const void *data, size_t len);
int outfile_commit(struct outfile *o);
void outfile_abort(struct outfile *o);

int outfile_write(const char *path, mode_t mode, const void *data, size_t len);
/* What an error of the last outfile_open or outfile_write means, for its one-line message:
 * g_strerror's, or why a sticky directory's name was refused. */
const char *outfile_strerror(int err);
