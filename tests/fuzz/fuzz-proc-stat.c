/* libFuzzer target: the /proc/PID/stat parser must never read out of bounds or accept a
 * record without its fields. */
#include "proc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char comm[64];
    pid_t ppid;
    unsigned long long start;
    if (proc_parse_stat((const char *)data, size, comm, &ppid, &start) == 0) {
        if (strlen(comm) > 63 || ppid < 0 || !memchr(data, ')', size))
            abort();
    }
    return 0;
}
