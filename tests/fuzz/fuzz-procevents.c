/* libFuzzer target: the process-events (netlink cn_proc) decoder never reads out of bounds,
 * whatever the datagram says about its own lengths. */
#include "procevents.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void count(void *ctx, const struct procev_event *ev)
{
    if (ev->type < PROCEV_FORK || ev->type > PROCEV_EXIT)
        abort();
    ++*(int *)ctx;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int n = 0;
    int r = procev_parse(data, size, 0, count, &n);
    if (r >= 0 && r != n)
        abort();
    return 0;
}
