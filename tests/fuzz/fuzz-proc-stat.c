/* libFuzzer target: the /proc/PID/stat parser must never read out of bounds or accept a
 * record without its fields. */
#include "proc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct proc_stat st;
    if (proc_parse_stat((const char *)data, size, &st) == 0) {
        if (strlen(st.comm) > 63 || st.ppid < 0 || !memchr(data, ')', size))
            abort();
    }
    return 0;
}
