/* nsguard — what a watched build (--system as root, capture/syswatch.h) does to its mounts:
 * the calls that would let it reach the system trees through a mount without a fanotify mark.
 *
 * Why: the watched trees are marked per mount (FAN_MARK_MOUNT on the build's own bind mounts
 *   of /usr, /etc, /opt).  A mount namespace the build makes (unshare -m, clone(CLONE_NEWNS),
 *   setns into one; bwrap, podman, sbuild's unshare mode) holds unmarked copies of them, and a
 *   mount the build makes (a tmpfs over /usr/local, a bind mount of /usr elsewhere, an
 *   open_tree clone, an unmount that uncovers what lies under a marked mount) is unmarked too:
 *   opens through them raise no event.  Marking the copies when they appear cannot be made
 *   exact (nothing reports a new namespace before the process that made it runs on), and a
 *   filesystem-wide mark would put every process of the host that is not in the daemon's
 *   mount namespace on the daemon's event path (docs/architecture.md, "Watched system trees").
 *   So these calls are seen, and the trace is marked incomplete with the first one and the fix
 *   (--system=full, whose FUSE mounts are copied along and keep recording).
 *
 * How: setup installs a seccomp filter (nsguard_filter) on itself just before it forks the
 *   build, so the build and everything it starts carry it (a filter cannot be removed); the
 *   calls below are sent to the daemon as user notifications (SECCOMP_RET_USER_NOTIF) and
 *   every other call runs untouched.  The daemon's guard thread reads each, judges it while the
 *   caller waits, and lets it go on (SECCOMP_USER_NOTIF_FLAG_CONTINUE): the build can do all it
 *   could before.  Judged as making an unwatched view:
 *   - unshare and clone with CLONE_NEWNS (the flags are in a register: filtered in the kernel);
 *     clone3 (flags in memory: every clone3 is sent, the daemon reads struct clone_args;
 *     flags it cannot read, as in memfd_secret pages, are judged as CLONE_NEWNS);
 *   - setns with CLONE_NEWNS, or with 0 and a descriptor of a mount namespace;
 *   - mount unless MS_REMOUNT or a propagation change alone; umount/umount2, pivot_root,
 *     move_mount, open_tree and open_tree_attr with OPEN_TREE_CLONE or OPEN_TREE_NAMESPACE
 *     (Linux 7.0: a namespace whose root mount open_tree then opens), fsmount.
 *   On x86-64, i386 calls are filtered by their own numbers and x32 calls by the x86-64 ones;
 *   i386 arguments are judged by their low 32 bits, as the kernel takes them (a 64-bit process
 *   calling through int 0x80 sets the high ones as it likes).
 *
 * One difference for the build: the kernel lets a process have one seccomp listener in its
 *   filters, so a build that asks for its own (SECCOMP_FILTER_FLAG_NEW_LISTENER: LXC, some
 *   sandboxes, libseccomp's tests) gets EBUSY.  seccomp() calls are sent too so that the run
 *   can say so (nsguard_stop's *refused).
 *
 * Limits (docs/conformance.md): the clone3 flags and a setns descriptor are read from the
 *   caller while it waits, as seccomp allows: a second thread of the build that rewrites the
 *   flags between that read and the kernel's own goes unseen (deliberate evasion only).
 *
 * Threads: one guard thread; nsguard_stop joins it.  Its state is its own but the result,
 *   read after the join.
 */
#pragma once

#include <linux/filter.h>
#include <stdbool.h>
#include <stddef.h>

/* The filter's length bound. */
#define NSGUARD_FILTER_MAX 64

/* Fill `out` (NSGUARD_FILTER_MAX entries) with the filter; its length.  `refuse`: the calls
 * fail with EPERM instead of being sent (for the pid namespace's init, which makes none of
 * them, so that no process of the build is without the filter: a root build could ptrace
 * init into making them). */
size_t nsguard_filter(struct sock_filter *out, bool refuse);

/* Whether this kernel lets us install the filter with a listener: 0 or -errno (-ENOSYS,
 * -EINVAL before Linux 5.5, -EACCES/-EPERM in a container refusing seccomp).  Forks a child. */
int nsguard_probe(void);

struct nsguard;

/* Start the guard thread on listener `fd` (taken over).  NULL on failure (*err: -errno). */
struct nsguard *nsguard_start(int fd, int *err);

/* After the build has ended: stop the thread, close the listener, free.  Returns NULL when no
 * call was judged as making an unwatched view, else (caller frees) one line without ';' naming
 * the first such call, whether there were more, and the fix.  *refused (if `refused`; caller
 * frees) gets NULL, or a line naming the first process refused a seccomp listener of its own
 * and the fix. */
char *nsguard_stop(struct nsguard *g, char **refused);
