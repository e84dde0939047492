/* libFuzzer target: wire.c reads any bytes as a FUSE request, and amends any reply, without
 * reading past either; a reply it amends keeps its length and gains only the KILLPRIV_V2 bit. */
#include "wire.h"

#include <linux/fuse.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct wire w = {.want_killpriv_v2 = true};
    /* The input is one request; then the same bytes as a reply to it. */
    uint8_t *req = malloc(size ? size : 1);
    memcpy(req, data, size);
    wire_note_request(&w, req, size);
    (void)wire_request_kills_suidgid();

    size_t split = size < sizeof(struct fuse_out_header) ? size : sizeof(struct fuse_out_header);
    uint8_t *head = malloc(split ? split : 1), *body = malloc(size - split ? size - split : 1);
    memcpy(head, data, split);
    memcpy(body, data + split, size - split);
    struct iovec iov[2] = {{head, split}, {body, size - split}};
    char scratch[WIRE_SCRATCH];
    wire_amend_reply(&w, iov, 2, scratch);
    if (iov[1].iov_len != size - split)
        abort();
    if (iov[1].iov_base != body) {
        /* amended: same bytes but the flags word, which gained FUSE_HANDLE_KILLPRIV_V2 */
        size_t at = offsetof(struct fuse_init_out, flags);
        if (memcmp(iov[1].iov_base, body, at) != 0 ||
            memcmp((char *)iov[1].iov_base + at + 4, body + at + 4, size - split - at - 4) != 0)
            abort();
        uint32_t before, after;
        memcpy(&before, body + at, 4);
        memcpy(&after, (char *)iov[1].iov_base + at, 4);
        if (after != (before | FUSE_HANDLE_KILLPRIV_V2))
            abort();
    }
    free(req);
    free(head);
    free(body);
    return 0;
}
