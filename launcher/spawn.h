/* spawn — the build's namespaces from the daemon's side (ns.h is the other side, after the
 * clone): what the machine must allow, the private directory (staging mount point, private
 * /tmp), the namespace plan made from the run's plan (the trees' real directories opened, their
 * mount flags and order, the id maps, the mount-call filters), setup spawned and its ids mapped
 * from outside, and a failed step of setup's in words.
 *
 * Contract
 *   - In order: spawn_init, spawn_preflight, spawn_private_dirs (which adds the private /tmp
 *     to the plan's trees), spawn_prepare, spawn_start, spawn_map_ids; spawn_cleanup always.
 *   - The trees' fds (fs_trees) go to the filesystem (fs_new takes them); until then
 *     spawn_close_trees closes them.
 *   - Main-level code of `run`: a failure is one line on stderr ending with the fix (and
 *     "'buildtrail doctor' checks this machine" when it is about the machine), and -1.
 *   - Main thread only.
 */
#pragma once

#include "fs.h"
#include "idmap.h"
#include "ns.h"
#include "nsguard.h"
#include "plan.h"
#include "scratch.h"
#include "vary.h"

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/utsname.h>

struct spawn {
    bool user_ns;                  /* not root: a user namespace */
    struct scratch scratch;        /* the private directory */
    struct stat scratch_dir_st;    /* the directory holding it ... */
    char *scratch_base;            /* ... and its name there (hidden from the build) */
    char *staging;                 /* its mnt/ */
    struct ns_plan ns;
    struct fs_tree fs_trees[NS_MAX_TREES];
    int sv[2], rp[2];              /* the socket and the report pipe to setup */
    pid_t setup;                   /* or -errno */
    struct idmap idm;
    int map_pipe[2];
    bool ids_mapped;               /* mapped from outside (newuidmap) */
    char *idmap_note;              /* why not */
    char *unmapped_groups;         /* groups no subgid line maps, or NULL */
    struct sock_filter guard_filter[NSGUARD_FILTER_MAX]; /* launcher/nsguard.h, with syswatch */
    struct sock_filter init_filter[NSGUARD_FILTER_MAX];  /* the same calls refused, for init */
    /* The variations' facts and what the build gets (spawn_vary_facts, spawn_vary) */
    char **locales;                /* `locale -a` */
    char *foreign_dir;             /* root's: a directory in the tree another user owns */
    struct utsname uts;
    cpu_set_t caller_cpus;
    char **vary_env;               /* the build's environment, or NULL */
    char *nest_why;                /* why the build's own namespace maps its ids only */
};

void spawn_init(struct spawn *sp);
/* /dev/fuse usable, and user namespaces enabled when not root.  0 or -1 (said). */
int spawn_preflight(struct spawn *sp);
/* $TMPDIR/buildtrail-XXXXXX (leftovers of killed runs reclaimed) with mnt/ and, with a private
 * /tmp, tmp/ (mode 1777, with mount points for the trees under /tmp), added to the plan as the
 * PLAN_TMP tree.  0 or -1 (said). */
int spawn_private_dirs(struct spawn *sp, struct plan *plan);
/* The namespace plan: the trees (real directories opened), the watched trees and their marks
 * (with the fanotify group `watch_fd`, or -1), cwd and argv, the id maps, and the channels to
 * setup.  0 or -1 (said; the trees' fds closed). */
int spawn_prepare(struct spawn *sp, const struct plan *plan, int watch_fd, const char *cwd,
                  char **argv);
/* Spawn setup (sp->setup: its pid or -errno), then raise the descriptor limit and close
 * setup's ends.  The daemon's umask is 0 from here on: the kernel applied the build's. */
void spawn_start(struct spawn *sp);
/* Map setup's user namespace from outside (newuidmap) and tell the filesystem the inside ids,
 * or let setup map our own ids only. */
void spawn_map_ids(struct spawn *sp, struct fs *fs);
/* A failed step of setup's, one line on stderr, ending with `tail` (NULL: nothing). */
void spawn_report_failure(const struct spawn *sp, const struct plan *plan,
                          const struct ns_report *r, char **argv, const char *tail);
/* What vary_plan_make needs to know of this machine and run (vary.h), in *f (pointing into
 * `sp`, which must outlive it): the caller's CPUs, the installed locales, the personality the
 * kernel allows, whether the build may nest a user namespace (and map 0 and the caller's ids in
 * it: root, or subordinate ids), the names of the machine. */
/* `tree`: look in cwd's tree for a directory another user owns (root's run, user_group
 * varied: uid 2000 could not write there). */
void spawn_vary_facts(struct spawn *sp, const char *cwd, bool watched, bool tree,
                      struct vary_facts *f);
/* The variations of `v` into the namespace plan (after spawn_prepare): the environment, umask,
 * affinity, personality, names and ids the build gets (ns.h, struct ns_vary). */
void spawn_vary(struct spawn *sp, const struct vary_plan *v);
void spawn_close_trees(struct spawn *sp);
void spawn_cleanup(struct spawn *sp);
