/* wire — see wire.h. */
#include "wire.h"

#include <linux/fuse.h>
#include <string.h>

static __thread bool request_kills_suidgid;
static __thread uint64_t request_unique;

/* Copy the op struct that follows the header, if the message holds all of it. */
static bool op_args(const void *buf, size_t len, void *out, size_t out_len)
{
    if (len < sizeof(struct fuse_in_header) + out_len)
        return false;
    memcpy(out, (const char *)buf + sizeof(struct fuse_in_header), out_len);
    return true;
}

void wire_note_request(struct wire *w, const void *buf, size_t len)
{
    request_kills_suidgid = false;
    request_unique = 0;
    struct fuse_in_header h;
    if (len < sizeof h)
        return;
    memcpy(&h, buf, sizeof h);
    request_unique = h.unique;
    if (h.len != len)
        return; /* libfuse rejects it */
    switch (h.opcode) {
    case FUSE_INIT: {
        struct fuse_init_in in;
        /* major, minor, max_readahead, flags: present in every protocol version */
        if (!op_args(buf, len, &in, offsetof(struct fuse_init_in, flags) + sizeof in.flags))
            return;
        if (__atomic_load_n(&w->init_unique, __ATOMIC_ACQUIRE) != 0)
            return; /* a second INIT: libfuse refuses it; keep the first */
        w->kernel_offers_v2 = in.major == 7 && (in.flags & FUSE_HANDLE_KILLPRIV_V2);
        __atomic_store_n(&w->init_unique, h.unique, __ATOMIC_RELEASE);
        return;
    }
    case FUSE_WRITE: {
        struct fuse_write_in in;
        if (op_args(buf, len, &in, offsetof(struct fuse_write_in, write_flags) + sizeof in.write_flags))
            request_kills_suidgid = in.write_flags & FUSE_WRITE_KILL_SUIDGID;
        return;
    }
    case FUSE_SETATTR: {
        struct fuse_setattr_in in;
        if (op_args(buf, len, &in, sizeof in.valid))
            request_kills_suidgid = (in.valid & FATTR_KILL_SUIDGID) && (in.valid & FATTR_SIZE);
        return;
    }
    case FUSE_OPEN: {
        struct fuse_open_in in;
        if (op_args(buf, len, &in, sizeof in))
            request_kills_suidgid = in.open_flags & FUSE_OPEN_KILL_SUIDGID;
        return;
    }
    case FUSE_CREATE: {
        struct fuse_create_in in;
        if (op_args(buf, len, &in, sizeof in))
            request_kills_suidgid = in.open_flags & FUSE_OPEN_KILL_SUIDGID;
        return;
    }
    default:
        return;
    }
}

void wire_amend_reply(struct wire *w, struct iovec *iov, int count, void *scratch)
{
    uint64_t init_unique = __atomic_load_n(&w->init_unique, __ATOMIC_ACQUIRE);
    if (init_unique == 0 || __atomic_load_n(&w->killpriv_v2, __ATOMIC_ACQUIRE))
        return;
    if (!w->want_killpriv_v2 || !w->kernel_offers_v2 || count < 2)
        return;
    struct fuse_out_header h;
    if (iov[0].iov_len < sizeof h)
        return;
    memcpy(&h, iov[0].iov_base, sizeof h);
    if (h.unique != init_unique || h.error != 0)
        return;
    /* The init_out libfuse sends may be shorter than ours (older protocol minors); the flags
     * word is in every version. */
    size_t n = iov[1].iov_len;
    if (n < offsetof(struct fuse_init_out, flags) + sizeof(uint32_t) || n > WIRE_SCRATCH)
        return;
    memcpy(scratch, iov[1].iov_base, n);
    uint32_t flags;
    char *f = (char *)scratch + offsetof(struct fuse_init_out, flags);
    memcpy(&flags, f, sizeof flags);
    flags |= FUSE_HANDLE_KILLPRIV_V2;
    memcpy(f, &flags, sizeof flags);
    iov[1].iov_base = scratch;
    __atomic_store_n(&w->killpriv_v2, true, __ATOMIC_RELEASE);
}

bool wire_request_kills_suidgid(void)
{
    return request_kills_suidgid;
}

bool wire_killpriv_v2(const struct wire *w)
{
    return __atomic_load_n(&w->killpriv_v2, __ATOMIC_ACQUIRE);
}

uint64_t wire_request_unique(void)
{
    return request_unique;
}
