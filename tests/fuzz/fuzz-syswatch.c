/* libFuzzer target: the /proc/TID/syscall parser and the symlink walk's component splitter
 * (capture/syswatch.h) must never read out of bounds, and a parsed line must have had seven
 * numbers. */
#include "syswatch.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    long nr;
    unsigned long long args[6];
    if (syswatch_parse_syscall((const char *)data, size, &nr, args) == 0 && (size < 13 || nr < 0))
        abort();
    /* The walk's input is a NUL-terminated path. */
    char *path = malloc(size + 2);
    if (!path)
        return 0;
    path[0] = '/';
    memcpy(path + 1, data, size);
    path[size + 1] = '\0';
    char done[8192] = "", comp[256];
    const char *rest = path;
    while ((rest = syswatch_next_component(done, rest, comp))) {
        size_t dl = strlen(done), cl = strlen(comp);
        if (cl == 0 || cl > 255 || strchr(comp, '/'))
            abort();
        if (dl + 1 + cl >= sizeof done)
            break;
        done[dl] = '/';
        memcpy(done + dl + 1, comp, cl + 1);
    }
    free(path);
    return 0;
}
