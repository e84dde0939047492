/* Unit tests: decoding process-events datagrams (fork, exec, exit; malformed lengths). */
#include "procevents.h"

#include <glib.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <string.h>

static GArray *seen;

static void collect(void *ctx, const struct procev_event *ev)
{
    (void)ctx;
    g_array_append_val(seen, *ev);
}

/* One datagram: nlmsghdr, cn_msg, proc_event (built in bytes: cn_msg ends in a flexible
 * array, so it cannot sit inside a struct). */
static size_t make(char *buf, unsigned what, int a, int b, int c, int d)
{
    struct nlmsghdr nl = {.nlmsg_len = NLMSG_LENGTH(sizeof(struct cn_msg) + sizeof(struct proc_event)),
                          .nlmsg_type = NLMSG_DONE};
    struct cn_msg cn = {.id = {.idx = CN_IDX_PROC, .val = CN_VAL_PROC},
                        .len = sizeof(struct proc_event)};
    struct proc_event ev;
    memset(&ev, 0, sizeof ev);
    ev.what = what;
    ev.timestamp_ns = 1000;
    if (what == PROC_EVENT_FORK) {
        ev.event_data.fork.parent_pid = a;
        ev.event_data.fork.parent_tgid = b;
        ev.event_data.fork.child_pid = c;
        ev.event_data.fork.child_tgid = d;
    } else if (what == PROC_EVENT_EXEC) {
        ev.event_data.exec.process_pid = a;
        ev.event_data.exec.process_tgid = b;
    } else if (what == PROC_EVENT_EXIT) {
        ev.event_data.exit.process_pid = a;
        ev.event_data.exit.process_tgid = b;
        ev.event_data.exit.exit_code = (unsigned)c;
    }
    memset(buf, 0, NLMSG_ALIGN(nl.nlmsg_len));
    memcpy(buf, &nl, sizeof nl);
    memcpy(buf + NLMSG_HDRLEN, &cn, sizeof cn);
    memcpy(buf + NLMSG_HDRLEN + sizeof cn, &ev, sizeof ev);
    return NLMSG_ALIGN(nl.nlmsg_len);
}

static void test_decode(void)
{
    char buf[1024];
    size_t len = make(buf, PROC_EVENT_FORK, 10, 10, 11, 11);
    len += make(buf + len, PROC_EVENT_EXEC, 11, 11, 0, 0);
    len += make(buf + len, PROC_EVENT_UID, 11, 11, 0, 0); /* ignored kind */
    len += make(buf + len, PROC_EVENT_EXIT, 11, 11, 3 << 8, 0);
    seen = g_array_new(FALSE, FALSE, sizeof(struct procev_event));
    g_assert_cmpint(procev_parse(buf, len, 5, collect, NULL), ==, 3);
    struct procev_event *e = (struct procev_event *)(void *)seen->data;
    g_assert_cmpint(e[0].type, ==, PROCEV_FORK);
    g_assert_cmpint(e[0].parent_tgid, ==, 10);
    g_assert_cmpint(e[0].pid, ==, 11);
    g_assert_cmpint(e[0].time_ns, ==, 1005);
    g_assert_cmpint(e[1].type, ==, PROCEV_EXEC);
    g_assert_cmpint(e[1].tgid, ==, 11);
    g_assert_cmpint(e[2].type, ==, PROCEV_EXIT);
    g_assert_cmpint(e[2].exit_code, ==, 3 << 8);
    g_array_free(seen, TRUE);
}

static void test_malformed(void)
{
    char buf[256];
    size_t len = make(buf, PROC_EVENT_FORK, 1, 1, 2, 2);
    struct nlmsghdr nh;
    memcpy(&nh, buf, sizeof nh);
    nh.nlmsg_len = 4096; /* claims more than there is */
    memcpy(buf, &nh, sizeof nh);
    seen = g_array_new(FALSE, FALSE, sizeof(struct procev_event));
    g_assert_cmpint(procev_parse(buf, len, 0, collect, NULL), ==, -22);
    g_assert_cmpint(procev_parse(buf, 3, 0, collect, NULL), ==, 0); /* too short: nothing */
    g_assert_cmpuint(seen->len, ==, 0);
    g_array_free(seen, TRUE);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/procevents/decode", test_decode);
    g_test_add_func("/procevents/malformed", test_malformed);
    return g_test_run();
}
