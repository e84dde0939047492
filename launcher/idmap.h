/* idmap — the id maps of an unprivileged build's user namespace.
 *
 * Alone, an unprivileged process may map only its own uid and gid into a new user namespace:
 * every other id is then unmapped, so files of other users could only be shown as the caller's
 * (which defeats ownership checks: git's "dubious ownership", ssh's), and chown/chgrp to any
 * other id fail with EINVAL where natively they fail with EPERM (fakeroot, cp -a, tar and
 * install -o expect EPERM).  With the subordinate ranges that adduser gives each user
 * (/etc/subuid, /etc/subgid) and shadow's set-uid helpers newuidmap/newgidmap (package uidmap),
 * the namespace maps inside ids 0..N-1 (N = the range's size, at most 65536) to the range and
 * the caller's own uid and gid to themselves.  The daemon then shows every file with its real
 * owner (an id the namespace holds), and passes chown/chgrp ids through to the real
 * filesystem, which answers as natively: EPERM to give a file away, success for a group the
 * caller is in.  The build's own credentials are the caller's; the ids of the range are never
 * given to a file or a process (the daemon acts with the caller's real credentials).
 *
 * Supplementary groups keep their ids only where another subgid line of the user allows it
 * (an administrator's "user:100:1"): newgidmap maps nothing else.  The others show as nogroup
 * (65534) in `id` inside, and chgrp to that number fails with EPERM (a chgrp to the group's
 * own number or name works on traced trees), while permissions (decided by the daemon, or by
 * the kernel on untraced trees) still use them; owners at or above N show as the overflow id.
 * On untraced trees (the system trees without --system, `/` itself) the kernel shows every
 * file by its real owner, which the namespace does not map unless it is the caller's own id:
 * root's and system users' files there show as nobody/nogroup.
 *
 * The build's own namespace (run --vary user_group, launcher/vary.h) is a child of the run's
 * (root: of the machine's): idmap_nested() writes its maps, which setup (launcher/ns.c), holding
 * CAP_SETUID/CAP_SETGID in the parent, writes for the build.  Inside, the build's new id stands
 * for its id in the parent (`own`), `own` for the parent's id that has the new id's number, and
 * every other id the parent holds keeps its number: the build is another user, and chown to 0,
 * to the caller's usual ids or to any other id the parent holds reaches the real filesystem and
 * fails with EPERM as for another real user (fakeroot hides that one), never EINVAL.
 * Unprivileged, the run's namespace holds only ids of the caller's own (its subordinate range),
 * which a program of the build can reach in the run's namespace already: nothing is gained by
 * mapping them all.  A root run's parent is the machine's (idmap_nested_root): the new id
 * stands for root, 1..65535 but the new id for themselves, and 0 for IDMAP_NO_FILE_ID, an id
 * no file has: 0 is the id whose set-user-ID programs would give the build capabilities (over
 * every file whose owner and group the namespace maps), and none can be had, since the build
 * cannot give a file away (EPERM); the machine's own uid 2000 is not mapped (shown as 65534).
 *
 * Contract: idmap_plan() reads the ranges (0, or -ENOENT with *why set when wide maps are not
 * possible: no range, or no newuidmap); idmap_apply() runs newuidmap and newgidmap on `pid`
 * (a child in a new user namespace, waiting to be mapped).  Both return 0 or -errno, never log;
 * *why is a sentence for the run's notes, g_free it.  Main thread only (spawns helpers).
 */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

struct idmap {
    char **uid_args; /* for newuidmap after the pid: "inside outside count" triples */
    char **gid_args;
    /* The caller's supplementary groups that no subgid line of the user maps (they show as
     * nogroup inside): their ids, and as text for the run's notes ("users (100), ..."), or
     * NULL/0 when every group is mapped. */
    unsigned *unmapped_gids;
    int n_unmapped;
    char *unmapped_groups;
};

int idmap_plan(uid_t uid, gid_t gid, struct idmap *out, char **why);
int idmap_apply(pid_t pid, const struct idmap *m, char **why);
void idmap_free(struct idmap *m);

/* Build the args of one map (exposed for tests): the ids that keep their own number
 * (`identity`), and inside 0..min(count, 65536)-1 but those to [start, start+count);
 * NULL-terminated, g_strfreev it. */
char **idmap_args(const unsigned *identity, int n_identity, unsigned long start,
                  unsigned long count);

/* Ids a namespace holds, as inside ids (first, count). */
struct idmap_range {
    unsigned long first, count;
};

/* The ranges of a map's "inside outside count" arguments (idmap_args): at most `max`. */
int idmap_held(char *const *args, struct idmap_range *out, int max);

/* The map of the build's own namespace: "inside outside count" lines (the parent's ids outside)
 * for `held` (the ids the parent holds, which must include `own`): `inner` stands for `own`,
 * `own` for `inner` when the parent holds `inner`, every other held id for itself.  NULL when
 * `own` is not held, `inner` == `own`, or the map would pass the kernel's 340 lines or
 * `max_len` bytes; g_free it. */
char *idmap_nested(const struct idmap_range *held, int n_held, unsigned own, unsigned inner,
                   size_t max_len);

/* Root's map for the build's own namespace: "inner 0 1", "0 IDMAP_NO_FILE_ID 1", and 1..65535
 * but `inner` for themselves (`inner` in 1..65535); g_free it. */
#define IDMAP_NO_FILE_ID 2147483646u
char *idmap_nested_root(unsigned inner);

/* Find the subordinate range of `name` or `id` in the contents of /etc/subuid or subgid
 * (exposed for tests and fuzzing): 0 with *start and *count set, or -ENOENT. */
int idmap_find_range(const char *text, const char *name, unsigned id, unsigned long *start,
                     unsigned long *count);
