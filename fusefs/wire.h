/* wire — what the kernel says that libfuse 3.14 does not pass on.
 *
 * Why
 *   Without FUSE_HANDLE_KILLPRIV_V2 (kernel 5.11, protocol 7.33) the kernel asks the daemon for
 *   "security.capability" before every write(2) to a FUSE file, to decide whether privileges
 *   must be dropped: one extra round trip per write, ~16% of a C build's requests.  With it the
 *   inode is marked "nothing to drop" after the first check, and the daemon becomes responsible
 *   for clearing set-user-ID / set-group-ID bits when a caller without CAP_FSETID writes,
 *   truncates or opens with O_TRUNC; the kernel flags each such request.  libfuse 3.14 (Debian
 *   12) knows neither the INIT flag nor the per-request flags.
 *
 * How
 *   The session's I/O goes through fuse_session_custom_io() (fs_session_attach in fs.h): every
 *   request read from /dev/fuse is shown to wire_note_request() before libfuse decodes it, and
 *   every reply to wire_amend_reply() before it is written.  The INIT reply is amended to accept
 *   FUSE_HANDLE_KILLPRIV_V2 when the kernel offered it; the kill flag of WRITE, SETATTR, OPEN
 *   and CREATE is kept for the handler (wire_request_kills_suidgid).  Messages are parsed
 *   defensively (short or odd messages are left alone for libfuse to reject); the parser is
 *   fuzzed (tests/fuzz/fuzz-wire.c).
 *
 * Threads
 *   A libfuse worker reads a request and then handles it on the same thread, so the per-request
 *   flag is thread-local and wire_request_kills_suidgid() is meaningful only inside a handler.
 *   The INIT fields are set while INIT is the only request in flight (the kernel sends nothing
 *   else before the INIT reply) and read with atomics afterwards.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

struct wire {
    bool want_killpriv_v2;   /* set by the owner before the session starts */
    uint64_t init_unique;    /* the INIT request's id (0: not seen yet) */
    bool kernel_offers_v2;   /* the INIT request offered FUSE_HANDLE_KILLPRIV_V2 */
    bool killpriv_v2;        /* the INIT reply accepted it (atomic after INIT) */
};

/* A request of `len` bytes was just read into `buf`. */
void wire_note_request(struct wire *w, const void *buf, size_t len);

/* A reply of `count` buffers is about to be written.  May point iov[1] at `scratch` (which must
 * outlive the write and hold at least WIRE_SCRATCH bytes) to amend the INIT reply. */
#define WIRE_SCRATCH 256
void wire_amend_reply(struct wire *w, struct iovec *iov, int count, void *scratch);

/* Inside a handler: the kernel asked for set-user-ID/set-group-ID bits to be cleared with this
 * request (the caller lacks CAP_FSETID and the connection handles KILLPRIV_V2). */
bool wire_request_kills_suidgid(void);

/* Inside a handler: the kernel's id of the request being handled (0 if unknown), unique among
 * the requests in flight — a key for what a handler computes once per request. */
uint64_t wire_request_unique(void);

/* FUSE_HANDLE_KILLPRIV_V2 is in effect on this connection. */
bool wire_killpriv_v2(const struct wire *w);
