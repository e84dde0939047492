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
 *   - Returns 0 or -errno; never logs.
 */
#pragma once

#include <stddef.h>

int outfile_write(const char *path, const void *data, size_t len);
