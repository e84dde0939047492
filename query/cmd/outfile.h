/* outfile — write a query's output document to where `-o PATH` says, as a shell redirection
 * would, but never replacing what is not a regular file.
 *
 * Contract
 *   - "-" is standard output.
 *   - A regular file (or a name that does not exist yet) is replaced atomically: the data goes
 *     to a temporary file beside it, which is renamed over it (an existing file keeps its
 *     permissions; a new one gets 0666 less the umask).
 *   - A symlink is followed and its target written; the link stays.  A path that goes through
 *     /proc or /dev (/dev/stdout, /proc/self/fd/1, a link to them) is opened and written in
 *     place, never renamed over.
 *   - A device, FIFO or socket is opened for writing and written (a FIFO waits for a reader,
 *     as a shell redirection does; a socket fails with ENXIO).  A directory is refused
 *     (-EISDIR).
 *   - A document can be written in one call (outfile_write) or streamed: outfile_open, any
 *     number of outfile_append, then outfile_commit (which renames the temporary file into
 *     place) or outfile_abort (which removes it: a replaced file keeps its old content).  A
 *     streamed file written in place (a device, /dev/stdout, "-") has what was appended.
 *   - Returns 0 or -errno; never logs.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct outfile {
    int fd;
    bool borrowed;   /* standard output: never closed */
    bool replacing;  /* an existing regular file is being replaced */
    char *tmp;       /* the temporary file renamed to `target` at commit, or NULL (in place) */
    char *target;
    int error;       /* the first write error (-errno), kept */
};

int outfile_open(const char *path, struct outfile *o);
int outfile_append(struct outfile *o, const void *data, size_t len);
int outfile_commit(struct outfile *o);
void outfile_abort(struct outfile *o);

int outfile_write(const char *path, const void *data, size_t len);
