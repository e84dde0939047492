/* ns — start the build inside its own mount (+ user) and pid namespaces, on the traced mount.
 *
 * Processes (docs/architecture.md has the picture)
 *   daemon ──clone(NEWNS[|NEWUSER])──> setup ──fork, after unshare(NEWPID)──> init (pid 1)
 *                                            └─fork──────────────────────────> build (pid 2: argv)
 *   setup: closes every descriptor it inherited but stdin/out/err, plan->sock_fd,
 *     plan->report_fd, plan->map_sync_fd and plan->watch_fd; in the user namespace case waits
 *     to be mapped by the daemon (newuidmap) or maps its own uid/gid, makes every mount
 *     private, marks the watched trees' own bind mounts (then closes plan->watch_fd), opens
 *     /dev/fuse (after unsharing: the kernel refuses a /dev/fuse fd opened in another user
 *     namespace), mounts the FUSE filesystem on plan->staging, passes the /dev/fuse fd to the
 *     daemon over plan->sock_fd (SCM_RIGHTS), bind-mounts each tree of the staging mount over
 *     the tree's own path (shortest path first, so nested trees and a workspace under /tmp stay
 *     visible) with the mount flags of the filesystem it shadows (plan->tree_flags), detaches the staging mount, unshares the pid namespace, forks init, waits until
 *     init has mounted /proc, forks the build (with a user namespace of the build's own,
 *     plan->vary.nest_user, writes its maps once the build has made it), sends init's pid,
 *     waits for the build
 *     and reports its wait status, then kills init (which ends whatever the build left
 *     running) and exits.  Setup stays in the daemon's pid namespace, so the pids in FUSE
 *     requests are pids the daemon can look up in its own /proc, and the build cannot see
 *     setup or reach its descriptors.
 *   init: mounts a /proc for the new pid namespace (with watched trees then refuses itself
 *     the calls the guard watches, plan->init_filter), then holds nothing but the write end of a
 *     pipe to setup (its closing tells setup that init died) and reaps orphans.  Nothing
 *     inside the namespace can kill it; if something outside does, the namespace ends and
 *     setup reports NS_STEP_INIT_DIED {signal} before the build's status.
 *   build: restores the caller's signal mask and SIGPIPE disposition, makes the FUSE
 *     stdout/stderr files fds 1 and 2, closes everything else (the report pipe is
 *     close-on-exec), makes the variations (plan->vary: umask, CPU affinity, personality, a
 *     UTS namespace and its names, then a user namespace of its own, last, since it leaves
 *     the build no power in the others; setup writes its maps and setgroups "deny"), chdir()s to plan->cwd again (now through the mount)
 *     and execvp()s plan->argv (with plan->vary.envp when set).  Its parent is setup, outside its namespace (getppid() is 0).
 *
 * Reporting: every failure in setup, init or build-before-exec is written to plan->report_fd as
 * a struct ns_report {step, errno}; {NS_STEP_STARTED} once the build's exec succeeded (setup
 * learns it from a close-on-exec pipe the build writes to only when it fails before or at its
 * exec); the build's wait status, from the kernel, as
 * {NS_STEP_STATUS, status}; then, unless init is gone already, {NS_STEP_KILL_LEFT, time_ns}
 * just before init is killed (taken once no process in the namespace is dying any more, so
 * that what the build killed itself dies before it): a process of the build that dies after
 * that instant by SIGKILL was left running by the build and killed with its pid namespace.  No process of the build
 * holds the report pipe after its exec.
 *
 * Contract: everything the children need is prepared in struct ns_plan before ns_spawn(); after
 * the clone the children call only async-signal-safe functions (no malloc, no GLib, no stdio).
 */
#pragma once

#include <linux/filter.h>
#include <sched.h>
#include <stdbool.h>
#include <sys/types.h>

#define NS_MAX_TREES 64
#define NS_MAX_WATCH_MARKS 256

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
    NS_STEP_INIT_DIED, /* value: the signal that killed init (from outside the namespace) */
    NS_STEP_WATCH_TREE, /* bind-mount a watched tree (tree: which one) */
    NS_STEP_WATCH_MARK, /* mark a mount in a watched tree (tree: which of watch_marks) */
    NS_STEP_KILL_LEFT,  /* not a failure: after the status, setup kills init (and with it what
                         * the build left running) at time_ns (CLOCK_MONOTONIC) */
    NS_STEP_GUARD,      /* install the mount-call filter (launcher/nsguard.h) or pass it on */
    NS_STEP_STARTED,    /* not a failure: the build's command was executed (its exec succeeded;
                         * or, rarely, the build was killed before it could fail) */
    NS_STEP_VARY,       /* apply a variation (tree: which, enum vary_name) */
    NS_STEP_DROP_CAPS,  /* drop the build's mount capabilities (drop_mount_caps) */
};

struct ns_report {
    int step;  /* enum ns_step */
    int value; /* errno, or the wait status for NS_STEP_STATUS */
    int tree;  /* NS_STEP_BIND_TREE: which tree */
    long long time_ns; /* NS_STEP_KILL_LEFT: when */
};

struct ns_plan {
    bool user_namespace;        /* not root: a new user namespace */
    char uid_map[64], gid_map[64]; /* our own ids only: what setup writes itself, unless... */
    int map_sync_fd;            /* ...(>= 0) it first reads one byte here: 'M' the daemon has
                                 * mapped it (launcher/idmap.h), 'S' write the maps above */
    char fuse_options[256];     /* the FUSE mount options except fd= (filled in by setup) */
    const char *staging;        /* an empty directory to mount the FUSE filesystem on */
    int n_trees;
    const char *tree_paths[NS_MAX_TREES]; /* where tree i is mounted; tree i is "t<i>" */
    unsigned long tree_flags[NS_MAX_TREES]; /* MS_NOSUID|MS_NODEV|MS_NOEXEC|MS_RDONLY of the
                                             * filesystem tree i shadows: its bind mount gets
                                             * them, so the build has no powers it lacks
                                             * natively (a set-uid file, a device node) */
    int mount_order[NS_MAX_TREES];        /* tree indices, parents before children */
    /* Watched trees (capture/syswatch.h): each is bind-mounted onto itself with the mounts
     * inside it, and each of those mounts (watch_marks: the trees and every mount point inside
     * them) is marked in watch_fd with watch_mask, before any traced tree is mounted (one may
     * lie inside); then setup closes watch_fd. */
    int n_watched;
    const char *watched_paths[NS_MAX_TREES];
    int n_watch_marks;
    const char *watch_marks[NS_MAX_WATCH_MARKS];
    int watch_fd;                 /* a fanotify group, or -1 */
    unsigned long long watch_mask;
    /* With watched trees: the seccomp filter (launcher/nsguard.h) setup installs on itself once
     * init runs, just before it forks the build; it passes the listener to the daemon over
     * sock_fd (SCM_RIGHTS) before init's pid.  guard_len 0: none. */
    const struct sock_filter *guard_filter;
    unsigned short guard_len;
    /* The same calls refused (nsguard_filter's `refuse`): what init installs on itself once it
     * has mounted /proc, so that it carries a filter too.  Used when guard_len is not 0. */
    const struct sock_filter *init_filter;
    unsigned short init_len;
    /* run --only-inputs: the build runs without CAP_SYS_ADMIN and CAP_DAC_READ_SEARCH (dropped
     * from its bounding set before the exec), with which a root build could unmount a traced
     * tree, bind-mount what lies under it, or open a file by handle, and so read the real trees
     * behind the FUSE mounts, hidden files included, untraced. */
    bool drop_mount_caps;
    const char *cwd;
    char *const *argv;
    /* The variations (launcher/vary.h: run --vary, --vary-control), made by the build just
     * before its exec, in this order; a failure is NS_STEP_VARY with the variation's name in
     * `tree`.  Each "the caller's" unless set. */
    struct ns_vary {
        char *const *envp;         /* the build's environment, or NULL */
        int umask;                 /* or -1 */
        bool affinity;             /* sched_setaffinity(cpus) */
        cpu_set_t cpus;
        bool personality;          /* personality(persona) */
        unsigned long persona;
        bool uts;                  /* a new UTS namespace with these names */
        const char *hostname, *domainname;
        bool nest_user;            /* a user namespace of its own, mapped by setup (which
                                    * holds CAP_SETUID/CAP_SETGID in its parent: the build
                                    * unshares, tells setup its pid over a pipe and waits)... */
        char uid_map[64], gid_map[64];            /* ...with these: the build's own ids */
        char uid_map_wide[4096], gid_map_wide[4096]; /* or these (idmap_nested), when set and
                                                     * setup's namespace holds the ids: root, or
                                                     * mapped from outside ('M') */
    } vary;
    sigset_t sigmask;     /* the caller's signal mask, for the build */
    bool sigpipe_ignored; /* whether the caller ignored SIGPIPE (the daemon does) */
    int sock_fd;    /* setup's end of the socketpair (O_CLOEXEC) */
    int report_fd;  /* write end of the report pipe (O_CLOEXEC) */
};

/* Start the setup process; returns its pid or -errno.  The caller must have the signals it
 * handles blocked (the children restore default dispositions and the plan's mask).  It may have
 * other threads (the recorder's writer runs by then): the clone copies only the calling thread,
 * and from there on setup, init and the build make only async-signal-safe calls (no malloc, no
 * stdio, no lock another thread could have held) until the build's exec. */
pid_t ns_spawn(const struct ns_plan *plan);

/* Words for a failed step, for the daemon's one-line error ("mount the FUSE filesystem"). */
const char *ns_step_describe(int step);

/* Receive one fd over a unix socket (SCM_RIGHTS); returns it or -errno (-EPIPE on EOF). */
int ns_recv_fd(int sock);
