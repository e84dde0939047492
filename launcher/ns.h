/* ns — start the build inside its own mount (+ user) and pid namespaces, on the traced mount.
 *
 * Processes (docs/architecture.md has the picture)
 *   daemon ──clone(NEWNS[|NEWUSER])──> setup ──fork, after unshare(NEWPID)──> init (pid 1)
 *                                                                 └─fork──> build (pid 2: argv)
 *   setup: maps its uid/gid (user namespace case), makes every mount private, opens /dev/fuse
 *     (after unsharing: the kernel refuses a /dev/fuse fd opened in another user namespace),
 *     mounts the FUSE filesystem on plan->staging, passes the /dev/fuse fd to the daemon over
 *     plan->sock_fd (SCM_RIGHTS), bind-mounts each tree of the staging mount over the tree's own
 *     path (shortest path first, so nested trees and a workspace under /tmp stay visible),
 *     detaches the staging mount, then forks init in a new pid namespace, sends init's pid,
 *     waits for it and exits.  Setup stays in the daemon's pid namespace, so the pids in FUSE
 *     requests are pids the daemon can look up in its own /proc.
 *   init: mounts a /proc for the new pid namespace, makes the FUSE stdout/stderr files fds 1
 *     and 2, forks the build, reaps orphans, and when the build exits reports its wait status
 *     and exits — which kills whatever the build left running (pid namespace semantics).
 *   build: chdir()s to plan->cwd again (now through the mount) and execvp()s plan->argv.
 *
 * Reporting: every failure in setup, init or build-before-exec is written to plan->report_fd as
 * a struct ns_report {step, errno}, and the build's wait status as {NS_STEP_STATUS, status}.
 *
 * Contract: everything the children need is prepared in struct ns_plan before ns_spawn(); after
 * the clone the children call only async-signal-safe functions (no malloc, no GLib, no stdio).
 */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#define NS_MAX_TREES 64

enum ns_step {
    NS_STEP_STATUS = 0, /* not a failure: value is the build's wait status */
    NS_STEP_SETGROUPS,
    NS_STEP_UID_MAP,
    NS_STEP_GID_MAP,
    NS_STEP_MAKE_PRIVATE,
    NS_STEP_OPEN_FUSE,
    NS_STEP_MOUNT_FUSE,
    NS_STEP_SEND_FD,
    NS_STEP_OPEN_STAGING,
    NS_STEP_BIND_TREE,
    NS_STEP_DETACH_STAGING,
    NS_STEP_UNSHARE_PID,
    NS_STEP_FORK_INIT,
    NS_STEP_MOUNT_PROC,
    NS_STEP_FORK_BUILD,
    NS_STEP_CHDIR,
    NS_STEP_EXEC,
};

struct ns_report {
    int step;  /* enum ns_step */
    int value; /* errno, or the wait status for NS_STEP_STATUS */
    int tree;  /* NS_STEP_BIND_TREE: which tree */
};

struct ns_plan {
    bool user_namespace;        /* not root: map our own uid/gid in a new user namespace */
    char uid_map[64], gid_map[64];
    char fuse_options[256];     /* the FUSE mount options except fd= (filled in by setup) */
    const char *staging;        /* an empty directory to mount the FUSE filesystem on */
    int n_trees;
    const char *tree_paths[NS_MAX_TREES]; /* where tree i is mounted; tree i is "t<i>" */
    int mount_order[NS_MAX_TREES];        /* tree indices, parents before children */
    const char *cwd;
    char *const *argv;
    int sock_fd;    /* setup's end of the socketpair */
    int report_fd;  /* write end of the report pipe (O_CLOEXEC) */
    int close_fds[8]; /* daemon-side fds the children must close; -1 ends */
};

/* Start the setup process; returns its pid or -errno.  The caller must be single-threaded and
 * have the signals it handles blocked (the children restore default dispositions and mask). */
pid_t ns_spawn(const struct ns_plan *plan);

/* Words for a failed step, for the daemon's one-line error ("mount the FUSE filesystem"). */
const char *ns_step_describe(int step);

/* Receive one fd over a unix socket (SCM_RIGHTS); returns it or -errno (-EPIPE on EOF). */
int ns_recv_fd(int sock);
