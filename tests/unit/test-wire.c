/* Unit tests: what wire.c reads from raw FUSE requests and how it amends the INIT reply. */
#include "wire.h"

#include <fcntl.h>
#include <glib.h>
#include <linux/fuse.h>
#include <string.h>

/* A request: header then `args` (len set to the whole message). */
static size_t make(char *buf, uint32_t opcode, uint64_t unique, const void *args, size_t args_len)
{
    struct fuse_in_header h = {.len = (uint32_t)(sizeof h + args_len), .opcode = opcode,
                               .unique = unique, .nodeid = 1, .pid = 42};
    memcpy(buf, &h, sizeof h);
    memcpy(buf + sizeof h, args, args_len);
    return sizeof h + args_len;
}

/* INIT offered with `flags`; the reply libfuse would send; what goes on the wire. */
static uint32_t negotiate(struct wire *w, uint32_t offered, int out_error, uint64_t reply_unique)
{
    char buf[512];
    struct fuse_init_in in = {.major = 7, .minor = 38, .flags = offered};
    wire_note_request(w, buf, make(buf, FUSE_INIT, 7, &in, sizeof in));

    struct fuse_out_header oh = {.len = sizeof oh + sizeof(struct fuse_init_out),
                                 .error = out_error, .unique = reply_unique};
    struct fuse_init_out out = {.major = 7, .minor = 36, .flags = FUSE_ASYNC_READ | FUSE_HANDLE_KILLPRIV};
    struct iovec iov[2] = {{&oh, sizeof oh}, {&out, sizeof out}};
    char scratch[WIRE_SCRATCH];
    wire_amend_reply(w, iov, 2, scratch);
    struct fuse_init_out sent;
    memcpy(&sent, iov[1].iov_base, sizeof sent);
    g_assert_cmpuint(out.flags, ==, FUSE_ASYNC_READ | FUSE_HANDLE_KILLPRIV); /* libfuse's copy untouched */
    g_assert_cmpuint(sent.max_write, ==, out.max_write);
    return sent.flags;
}

static void test_init_accepts_v2_when_offered(void)
{
    struct wire w = {.want_killpriv_v2 = true};
    uint32_t flags = negotiate(&w, FUSE_ASYNC_READ | FUSE_HANDLE_KILLPRIV_V2, 0, 7);
    g_assert_true(flags & FUSE_HANDLE_KILLPRIV_V2);
    g_assert_true(flags & FUSE_HANDLE_KILLPRIV); /* the rest is libfuse's */
    g_assert_true(wire_killpriv_v2(&w));
}

static void test_init_left_alone(void)
{
    struct wire not_offered = {.want_killpriv_v2 = true};
    g_assert_false(negotiate(&not_offered, FUSE_ASYNC_READ, 0, 7) & FUSE_HANDLE_KILLPRIV_V2);
    g_assert_false(wire_killpriv_v2(&not_offered));

    struct wire not_wanted = {.want_killpriv_v2 = false};
    g_assert_false(negotiate(&not_wanted, FUSE_HANDLE_KILLPRIV_V2, 0, 7) & FUSE_HANDLE_KILLPRIV_V2);

    struct wire refused = {.want_killpriv_v2 = true}; /* libfuse answered INIT with an error */
    g_assert_false(negotiate(&refused, FUSE_HANDLE_KILLPRIV_V2, -EPROTO, 7) & FUSE_HANDLE_KILLPRIV_V2);
    g_assert_false(wire_killpriv_v2(&refused));

    struct wire other = {.want_killpriv_v2 = true}; /* a reply to something else */
    g_assert_false(negotiate(&other, FUSE_HANDLE_KILLPRIV_V2, 0, 8) & FUSE_HANDLE_KILLPRIV_V2);
}

static void test_kill_flags(void)
{
    struct wire w = {.want_killpriv_v2 = true};
    char buf[512];
    struct fuse_write_in wr = {.size = 1, .write_flags = FUSE_WRITE_KILL_SUIDGID};
    wire_note_request(&w, buf, make(buf, FUSE_WRITE, 9, &wr, sizeof wr));
    g_assert_true(wire_request_kills_suidgid());

    wr.write_flags = FUSE_WRITE_LOCKOWNER;
    wire_note_request(&w, buf, make(buf, FUSE_WRITE, 10, &wr, sizeof wr));
    g_assert_false(wire_request_kills_suidgid());

    struct fuse_setattr_in sa = {.valid = FATTR_SIZE | FATTR_KILL_SUIDGID};
    wire_note_request(&w, buf, make(buf, FUSE_SETATTR, 11, &sa, sizeof sa));
    g_assert_true(wire_request_kills_suidgid());
    sa.valid = FATTR_MODE | FATTR_KILL_SUIDGID; /* only a truncate kills */
    wire_note_request(&w, buf, make(buf, FUSE_SETATTR, 12, &sa, sizeof sa));
    g_assert_false(wire_request_kills_suidgid());

    struct fuse_open_in op = {.flags = O_WRONLY | O_TRUNC, .open_flags = FUSE_OPEN_KILL_SUIDGID};
    wire_note_request(&w, buf, make(buf, FUSE_OPEN, 13, &op, sizeof op));
    g_assert_true(wire_request_kills_suidgid());

    struct fuse_create_in cr = {.flags = O_WRONLY | O_TRUNC, .mode = 0644,
                                .open_flags = FUSE_OPEN_KILL_SUIDGID};
    wire_note_request(&w, buf, make(buf, FUSE_CREATE, 14, &cr, sizeof cr));
    g_assert_true(wire_request_kills_suidgid());

    /* Any other request clears the flag: it belongs to one request. */
    wire_note_request(&w, buf, make(buf, FUSE_GETATTR, 15, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 16));
    g_assert_false(wire_request_kills_suidgid());
}

static void test_malformed(void)
{
    struct wire w = {.want_killpriv_v2 = true};
    char buf[512];
    struct fuse_write_in wr = {.write_flags = FUSE_WRITE_KILL_SUIDGID};
    size_t n = make(buf, FUSE_WRITE, 9, &wr, sizeof wr);
    wire_note_request(&w, buf, n - 20); /* truncated: header length disagrees */
    g_assert_false(wire_request_kills_suidgid());
    wire_note_request(&w, buf, 10); /* shorter than a header */
    g_assert_false(wire_request_kills_suidgid());
    struct fuse_in_header h;
    memcpy(&h, buf, sizeof h);
    h.len = sizeof h + 4; /* a WRITE too short for its flags */
    memcpy(buf, &h, sizeof h);
    wire_note_request(&w, buf, h.len);
    g_assert_false(wire_request_kills_suidgid());

    /* A second INIT does not move the first one's id. */
    struct fuse_init_in in = {.major = 7, .minor = 38, .flags = FUSE_HANDLE_KILLPRIV_V2};
    wire_note_request(&w, buf, make(buf, FUSE_INIT, 100, &in, sizeof in));
    wire_note_request(&w, buf, make(buf, FUSE_INIT, 200, &in, sizeof in));
    g_assert_cmpuint(w.init_unique, ==, 100);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/wire/init-accepts-v2", test_init_accepts_v2_when_offered);
    g_test_add_func("/wire/init-left-alone", test_init_left_alone);
    g_test_add_func("/wire/kill-flags", test_kill_flags);
    g_test_add_func("/wire/malformed", test_malformed);
    return g_test_run();
}
