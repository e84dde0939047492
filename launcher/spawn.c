/* spawn — see spawn.h. */
#include "spawn.h"

#include "run.h"
#include "syswatch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

void spawn_init(struct spawn *sp)
{
    *sp = (struct spawn){.scratch = {NULL, -1}, .sv = {-1, -1}, .rp = {-1, -1},
                         .map_pipe = {-1, -1}, .ns.vary.umask = -1};
}

static int read_int_file(const char *path, int fallback)
{
    g_autofree char *v = NULL;
    return g_file_get_contents(path, &v, NULL, NULL) ? atoi(v) : fallback;
}

/* The installed locales, as `locale -a` lists them (none if it cannot run), and those in the
 * directories of $LOCPATH, which glibc reads first and `locale -a` does not list. */
static char **installed_locales(void)
{
    GPtrArray *all = g_ptr_array_new();
    g_autofree char *out = NULL;
    char *argv[] = {(char *)"locale", (char *)"-a", NULL};
    int status = 0;
    if (g_spawn_sync(NULL, argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL, NULL,
                     NULL, &out, NULL, &status, NULL) &&
        g_spawn_check_wait_status(status, NULL)) {
        g_auto(GStrv) lines = g_strsplit(g_strchomp(out), "\n", -1);
        for (int i = 0; lines[i]; i++)
            if (*lines[i])
                g_ptr_array_add(all, g_strdup(lines[i]));
    }
    const char *locpath = g_getenv("LOCPATH");
    g_auto(GStrv) dirs = locpath && *locpath ? g_strsplit(locpath, ":", -1) : NULL;
    for (int i = 0; dirs && dirs[i]; i++) {
        GDir *d = *dirs[i] ? g_dir_open(dirs[i], 0, NULL) : NULL;
        for (const char *n; d && (n = g_dir_read_name(d));) {
            g_autofree char *ctype = g_build_filename(dirs[i], n, "LC_CTYPE", NULL);
            if (g_file_test(ctype, G_FILE_TEST_IS_REGULAR))
                g_ptr_array_add(all, g_strdup(n));
        }
        if (d)
            g_dir_close(d);
    }
    g_ptr_array_add(all, NULL);
    return (char **)g_ptr_array_free(all, FALSE);
}

/* Can the build's own user namespace map 0 and the caller's ids too (idmap.h)?  Root: its
 * parent is the machine's.  Else the run's namespace must hold subordinate ids; why not in
 * sp->nest_why. */
static bool nest_wide(struct spawn *sp)
{
    if (geteuid() == 0)
        return true;
    struct idmap m;
    g_clear_pointer(&sp->nest_why, g_free);
    bool ok = idmap_plan(getuid(), getgid(), &m, &sp->nest_why) == 0;
    idmap_free(&m);
    return ok;
}

/* The first directory under `dir` (on device `dev`, never through a symbolic link; at most
 * *budget directories looked at) that a user other than root owns: its path (g_free), its
 * owner into *uid; NULL when none. */
static char *foreign_dir(const char *dir, dev_t dev, unsigned *budget, long long *uid)
{
    DIR *d = opendir(dir);
    char *found = NULL;
    for (struct dirent *e; d && !found && *budget && (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
            (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN))
            continue;
        g_autofree char *p = g_build_filename(dir, e->d_name, NULL);
        struct stat st;
        if (lstat(p, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_dev != dev)
            continue;
        --*budget;
        if (st.st_uid != 0) {
            *uid = st.st_uid;
            found = g_steal_pointer(&p);
        } else {
            found = foreign_dir(p, dev, budget, uid);
        }
    }
    if (d)
        closedir(d);
    return found;
}

void spawn_vary_facts(struct spawn *sp, const char *cwd, bool watched, bool tree,
                      struct vary_facts *f)
{
    CPU_ZERO(&sp->caller_cpus);
    if (sched_getaffinity(0, sizeof sp->caller_cpus, &sp->caller_cpus) < 0)
        CPU_ZERO(&sp->caller_cpus);
    if (uname(&sp->uts) < 0)
        memset(&sp->uts, 0, sizeof sp->uts);
    sp->locales = installed_locales();
    struct stat st;
    *f = (struct vary_facts){
        .cwd_uid = cwd && stat(cwd, &st) == 0 ? (long long)st.st_uid : -1,
        .cwd = cwd, .n_cpus = CPU_COUNT(&sp->caller_cpus),
        .locales = (const char *const *)sp->locales,
        .randomize_va_space = read_int_file("/proc/sys/kernel/randomize_va_space", -1),
        .watched_trees = watched,
        .nested_userns = read_int_file("/proc/sys/user/max_user_namespaces", 1) > 0,
        .uid = getuid(), .gid = getgid(), .nest_wide = nest_wide(sp),
        .nest_narrow_why = sp->nest_why,
        .hostname = sp->uts.nodename, .domainname = sp->uts.domainname,
        .release = sp->uts.release};
    g_clear_pointer(&sp->foreign_dir, g_free);
    if (tree && f->uid == 0 && f->cwd_uid == 0 && stat(cwd, &st) == 0) {
        unsigned budget = 100000; /* directories: a large tree's, in well under a second */
        f->foreign_uid = -1;
        sp->foreign_dir = foreign_dir(cwd, st.st_dev, &budget, &f->foreign_uid);
        f->foreign_dir = sp->foreign_dir;
    }
}

/* The wide maps of the build's own namespace (idmap.h): root's (idmap_nested_root), or every
 * id the run's namespace holds (sp->idm, planned by spawn_prepare: idmap_nested).  Left empty
 * when they cannot be made: setup writes the narrow ones. */
static void nested_maps(struct spawn *sp, const struct vary_plan *v)
{
    struct ns_vary *nv = &sp->ns.vary;
    g_autofree char *um = NULL, *gm = NULL;
    if (!sp->user_ns) {
        um = idmap_nested_root(v->inner_uid);
        gm = idmap_nested_root(v->inner_gid);
    } else {
        struct idmap_range u[340], g[340];
        int nu = idmap_held(sp->idm.uid_args, u, 340), ng = idmap_held(sp->idm.gid_args, g, 340);
        um = idmap_nested(u, nu, getuid(), v->inner_uid, sizeof nv->uid_map_wide);
        gm = idmap_nested(g, ng, getgid(), v->inner_gid, sizeof nv->gid_map_wide);
    }
    if (um && gm) {
        g_strlcpy(nv->uid_map_wide, um, sizeof nv->uid_map_wide);
        g_strlcpy(nv->gid_map_wide, gm, sizeof nv->gid_map_wide);
    }
}

void spawn_vary(struct spawn *sp, const struct vary_plan *v)
{
    struct ns_vary *nv = &sp->ns.vary;
    extern char **environ;
    sp->vary_env = vary_environ(v, environ);
    nv->envp = sp->vary_env;
    nv->umask = v->umask;
    if (v->keep_cpus > 0) {
        nv->affinity = true;
        CPU_ZERO(&nv->cpus);
        for (int c = 0, kept = 0; c < CPU_SETSIZE && kept < v->keep_cpus; c++)
            if (CPU_ISSET(c, &sp->caller_cpus)) {
                CPU_SET(c, &nv->cpus);
                kept++;
            }
    }
    if (v->personality) {
        int now = personality(0xffffffff);
        nv->personality = now >= 0;
        nv->persona = ((unsigned long)(now < 0 ? 0 : now) | v->personality_set) &
                      ~(unsigned long)v->personality_clear;
    }
    nv->uts = v->uts;
    nv->hostname = v->hostname;
    nv->domainname = v->domainname;
    nv->nest_user = v->nest_user;
    snprintf(nv->uid_map, sizeof nv->uid_map, "%u %u 1\n", v->inner_uid, getuid());
    snprintf(nv->gid_map, sizeof nv->gid_map, "%u %u 1\n", v->inner_gid, getgid());
    if (v->nest_wide)
        nested_maps(sp, v);
}

static int userns_hint(void)
{
    g_autofree char *v = NULL;
    if (g_file_get_contents("/proc/sys/kernel/unprivileged_userns_clone", &v, NULL, NULL) &&
        atoi(v) == 0)
        return 1;
    g_free(g_steal_pointer(&v));
    if (g_file_get_contents("/proc/sys/user/max_user_namespaces", &v, NULL, NULL) && atoi(v) == 0)
        return 1;
    return 0;
}

int spawn_preflight(struct spawn *sp)
{
    sp->user_ns = geteuid() != 0;
    if (access("/dev/fuse", R_OK | W_OK) < 0) {
        int e = errno;
        fprintf(stderr, "buildtrail run: cannot use /dev/fuse: %s; %s" DOCTOR_HINT "\n",
                g_strerror(e),
                e == ENOENT ? "load the fuse module (modprobe fuse) or install fuse3"
                            : "make it usable by your user (chmod 0666 /dev/fuse, as Debian's "
                              "udev rule does) or run as root");
        return -1;
    }
    if (sp->user_ns && userns_hint()) {
        fputs("buildtrail run: unprivileged user namespaces are disabled; enable them (sysctl "
              "kernel.unprivileged_userns_clone=1 and user.max_user_namespaces>0) or run as root"
              DOCTOR_HINT "\n",
              stderr);
        return -1;
    }
    return 0;
}

static int mkdir_p(const char *path, mode_t mode)
{
    g_autofree char *copy = g_strdup(path);
    for (char *p = copy + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(copy, mode) < 0 && errno != EEXIST)
            return -errno;
        *p = '/';
    }
    if (mkdir(copy, mode) < 0 && errno != EEXIST)
        return -errno;
    return 0;
}

int spawn_private_dirs(struct spawn *sp, struct plan *plan)
{
    const char *base = g_getenv("TMPDIR");
    if (!base || !*base || !g_path_is_absolute(base))
        base = "/tmp";
    /* Leftovers of runs that were killed (SIGKILL, a crash) hold a whole /tmp: reclaim them,
     * and only them (scratch.h). */
    (void)scratch_reclaim(base);
    int e = scratch_create(base, &sp->scratch);
    if (e < 0) {
        fprintf(stderr, "buildtrail run: cannot make a private directory in %s: %s; set TMPDIR "
                        "to a writable directory\n", base, g_strerror(-e));
        return -1;
    }
    sp->scratch_base = g_path_get_basename(sp->scratch.path);
    g_autofree char *scratch_dir = g_path_get_dirname(sp->scratch.path);
    if (stat(scratch_dir, &sp->scratch_dir_st) < 0)
        memset(&sp->scratch_dir_st, 0, sizeof sp->scratch_dir_st);
    sp->staging = g_build_filename(sp->scratch.path, "mnt", NULL);
    g_autofree char *tmp = g_build_filename(sp->scratch.path, "tmp", NULL);
    bool private_tmp = plan->private_tmp;
    if (mkdir(sp->staging, 0700) < 0 || (private_tmp && mkdir(tmp, 0700) < 0) ||
        (private_tmp && chmod(tmp, 01777) < 0)) {
        fprintf(stderr, "buildtrail run: cannot prepare %s: %s; set TMPDIR to a writable "
                        "directory\n", sp->scratch.path, g_strerror(errno));
        return -1;
    }
    if (!private_tmp)
        return 0;
    /* Trees under /tmp need their mount points inside the private /tmp too. */
    for (int k = 0; k < plan_n_trees(plan); k++) {
        const char *p = plan_tree(plan, k)->path;
        if (plan_path_under(p, "/tmp") && strcmp(p, "/tmp")) {
            g_autofree char *mp = g_build_filename(tmp, p + 4, NULL);
            if (mkdir_p(mp, 0755) < 0) {
                fprintf(stderr, "buildtrail run: cannot prepare %s: %s\n", mp, g_strerror(errno));
                return -1;
            }
        }
    }
    plan_add_tree(plan, "/tmp", tmp, PLAN_TMP);
    return 0;
}

void spawn_close_trees(struct spawn *sp)
{
    for (int k = 0; k < sp->ns.n_trees; k++)
        close(sp->fs_trees[k].fd);
}

/* Each tree's real directory opened, its mount flags (those of the filesystem it shadows), and
 * the mount order.  0 or -1 (said; those opened closed). */
static int open_trees(struct spawn *sp, const struct plan *plan)
{
    const struct plan_probe *probe = plan_probe_real();
    struct ns_plan *ns = &sp->ns;
    ns->n_trees = plan_n_trees(plan);
    for (int i = 0; i < ns->n_trees; i++) {
        const struct plan_tree *t = plan_tree(plan, i);
        ns->tree_paths[i] = t->path;
        /* The private /tmp shadows /tmp: it gets /tmp's flags, not those of its backing. */
        ns->tree_flags[i] = probe->mount_flags(probe->ctx,
                                               t->role == PLAN_TMP ? "/tmp" : t->backing);
        sp->fs_trees[i].path = t->path;
        sp->fs_trees[i].fd = open(t->backing, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (sp->fs_trees[i].fd < 0) {
            fprintf(stderr, "buildtrail run: cannot open %s: %s\n", t->backing, g_strerror(errno));
            for (int k = 0; k < i; k++)
                close(sp->fs_trees[k].fd);
            ns->n_trees = 0;
            return -1;
        }
    }
    plan_mount_order(plan, ns->mount_order);
    return 0;
}

int spawn_prepare(struct spawn *sp, const struct plan *plan, int watch_fd, const char *cwd,
                  char **argv)
{
    struct ns_plan *ns = &sp->ns;
    ns->user_namespace = sp->user_ns;
    snprintf(ns->uid_map, sizeof ns->uid_map, "%u %u 1\n", getuid(), getuid());
    snprintf(ns->gid_map, sizeof ns->gid_map, "%u %u 1\n", getgid(), getgid());
    ns->map_sync_fd = -1;
    if (sp->user_ns && idmap_plan(getuid(), getgid(), &sp->idm, &sp->idmap_note) == 0) {
        if (pipe2(sp->map_pipe, O_CLOEXEC) < 0) {
            sp->idmap_note = g_strdup_printf("cannot create a pipe: %s", g_strerror(errno));
            idmap_free(&sp->idm);
        } else {
            ns->map_sync_fd = sp->map_pipe[0];
        }
    }
    /* No default_permissions option: as a mount option the kernel would judge by mode bits
     * alone, ignoring ACLs.  The daemon turns it on with ACLs enforced by accepting
     * FUSE_POSIX_ACL in INIT where the ids allow (fs_set_kernel_checks); the real filesystem
     * judges each call as well, made with the caller's credentials (fusefs/fs-creds.c,
     * creds_enter). */
    snprintf(ns->fuse_options, sizeof ns->fuse_options,
             "rootmode=40000,user_id=%u,group_id=%u,allow_other", getuid(), getgid());
    ns->staging = sp->staging;
    ns->watch_fd = watch_fd;
    ns->watch_mask = SYSWATCH_MARK_MASK;
    ns->guard_filter = sp->guard_filter;
    ns->guard_len = watch_fd >= 0 ? (unsigned short)nsguard_filter(sp->guard_filter, false) : 0;
    ns->init_filter = sp->init_filter;
    ns->init_len = watch_fd >= 0 ? (unsigned short)nsguard_filter(sp->init_filter, true) : 0;
    for (guint i = 0; i < plan->watched->len && i < NS_MAX_TREES; i++)
        ns->watched_paths[ns->n_watched++] = plan->watched->pdata[i];
    for (guint i = 0; i < plan->watch_marks->len && i < NS_MAX_WATCH_MARKS; i++)
        ns->watch_marks[ns->n_watch_marks++] = plan->watch_marks->pdata[i];
    ns->cwd = cwd;
    ns->argv = argv;
    if (open_trees(sp, plan) < 0)
        return -1;
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp->sv) < 0 ||
        pipe2(sp->rp, O_CLOEXEC) < 0) {
        fprintf(stderr, "buildtrail run: cannot create a pipe: %s\n", g_strerror(errno));
        spawn_close_trees(sp);
        return -1;
    }
    ns->sock_fd = sp->sv[1];
    ns->report_fd = sp->rp[1];
    return 0;
}

void spawn_start(struct spawn *sp)
{
    sp->setup = ns_spawn(&sp->ns);
    /* Files the build creates get exactly the mode it asked for: the kernel has applied the
     * build's umask already (see op_init), so ours must not mask again.  Only after the spawn:
     * the build inherits the caller's umask. */
    umask(0);
    /* The daemon keeps an O_PATH fd for every inode the kernel holds (a directory of 100k
     * entries listed with ls -l: 100k fds).  Raise our soft limit to the hard one — after the
     * spawn, so the build keeps the caller's limits. */
    struct rlimit nofile;
    if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur < nofile.rlim_max) {
        nofile.rlim_cur = nofile.rlim_max;
        setrlimit(RLIMIT_NOFILE, &nofile);
    }
    close(sp->sv[1]);
    sp->sv[1] = -1;
    close(sp->rp[1]);
    sp->rp[1] = -1;
    if (sp->map_pipe[0] >= 0) {
        close(sp->map_pipe[0]);
        sp->map_pipe[0] = -1;
    }
}

/* The inside ids of a map's "inside outside count" arguments (idmap.h), at most
 * FS_MAX_ID_RANGES of them. */
static int inside_ranges(char **args, struct fs_id_range *out)
{
    int n = 0;
    for (int i = 0; args && args[i] && args[i + 1] && args[i + 2] && n < FS_MAX_ID_RANGES; i += 3)
        out[n++] = (struct fs_id_range){(uint32_t)strtoul(args[i], NULL, 10),
                                        (uint32_t)strtoul(args[i + 2], NULL, 10)};
    return n;
}

void spawn_map_ids(struct spawn *sp, struct fs *fs)
{
    if (sp->setup > 0 && sp->map_pipe[1] >= 0) {
        /* Map the namespace from outside (newuidmap), then let setup go on; if that fails,
         * setup maps our own ids only and files are shown as ours (fusefs/fs.h). */
        g_clear_pointer(&sp->idmap_note, g_free);
        sp->ids_mapped = idmap_apply(sp->setup, &sp->idm, &sp->idmap_note) == 0;
        sp->unmapped_groups = g_steal_pointer(&sp->idm.unmapped_groups);
        if (sp->ids_mapped) {
            struct fs_id_range u[FS_MAX_ID_RANGES], g[FS_MAX_ID_RANGES];
            int nu = inside_ranges(sp->idm.uid_args, u), ng = inside_ranges(sp->idm.gid_args, g);
            fs_set_inside_ids(fs, u, nu, g, ng);
        }
        char go = sp->ids_mapped ? 'M' : 'S';
        if (write(sp->map_pipe[1], &go, 1) != 1)
            sp->ids_mapped = false; /* setup is gone; its report says why */
    }
    /* As root, a build in a user namespace of its own is root's uid without capabilities. */
    fs_set_root_callers_read(fs, !sp->user_ns && sp->ns.vary.nest_user);
    if (sp->map_pipe[1] >= 0) {
        close(sp->map_pipe[1]);
        sp->map_pipe[1] = -1;
    }
    idmap_free(&sp->idm);
}

/* Why a setup step failed, and what to do about it: one line on `f`. */
static void describe_failure(FILE *f, const struct ns_report *r, const struct plan *trees,
                             const struct spawn *sp, char **argv)
{
    const struct ns_plan *plan = &sp->ns;
    const char *err = g_strerror(r->value);
    switch (r->step) {
    case NS_STEP_EXEC:
        fprintf(f, "buildtrail run: cannot run '%s': %s\n", argv[0], err);
        return;
    case NS_STEP_OPEN_FUSE:
        fprintf(f, "buildtrail run: cannot open /dev/fuse: %s; %s" DOCTOR_HINT "\n", err,
                r->value == ENOENT ? "load the fuse module (modprobe fuse) or install fuse3"
                : r->value == EACCES || r->value == EPERM
                    ? "make it usable by your user (chmod 0666 /dev/fuse, as Debian's udev rule "
                      "does) or run as root"
                    : "check that FUSE works on this machine");
        return;
    case NS_STEP_BIND_TREE:
        fprintf(f, "buildtrail run: cannot %s (%s): %s\n", ns_step_describe(r->step),
                r->tree >= 0 ? plan_tree(trees, r->tree)->path : "?", err);
        return;
    case NS_STEP_WATCH_TREE:
    case NS_STEP_WATCH_MARK: {
        const char *what = r->step == NS_STEP_WATCH_TREE
            ? (r->tree >= 0 && r->tree < plan->n_watched ? plan->watched_paths[r->tree] : "?")
            : (r->tree >= 0 && r->tree < plan->n_watch_marks ? plan->watch_marks[r->tree] : "?");
        fprintf(f, "buildtrail run: cannot %s (%s): %s; use --system=full to trace the "
                        "system trees through FUSE instead\n", ns_step_describe(r->step), what,
                err);
        return;
    }
    case NS_STEP_VARY:
        if (r->tree == VARY_USER_GROUP && sp->user_ns && !sp->ids_mapped &&
            plan->vary.uid_map_wide[0]) {
            fprintf(f, "buildtrail run: cannot apply the variation user_group: the run's user "
                       "namespace holds your own ids only (%s), so the build's cannot map 0 and "
                       "yours as planned; fix what newuidmap says, or leave it out (--vary "
                       "all,-user_group)\n", sp->idmap_note ? sp->idmap_note : "?");
            return;
        }
        fprintf(f, "buildtrail run: cannot apply the variation %s: %s; leave it out (--vary "
                   "all,-%s)\n", vary_name_str((enum vary_name)r->tree), err,
                vary_name_str((enum vary_name)r->tree));
        return;
    case NS_STEP_MOUNT_FUSE:
        fprintf(f, "buildtrail run: cannot mount the FUSE filesystem: %s; %s" DOCTOR_HINT "\n",
                err,
                "FUSE mounts in user namespaces need Linux 4.18 or later; or run as root");
        return;
    default:
        fprintf(f, "buildtrail run: cannot %s: %s\n", ns_step_describe(r->step), err);
    }
}

void spawn_report_failure(const struct spawn *sp, const struct plan *plan,
                          const struct ns_report *r, char **argv, const char *tail)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return;
    describe_failure(f, r, plan, sp, argv);
    if (fclose(f) == 0 && buf) {
        while (len && buf[len - 1] == '\n')
            buf[--len] = '\0';
        fprintf(stderr, "%s%s\n", buf, tail ? tail : "");
    }
    free(buf);
}

void spawn_cleanup(struct spawn *sp)
{
    for (int i = 0; i < 2; i++) {
        if (sp->sv[i] >= 0)
            close(sp->sv[i]);
        if (sp->rp[i] >= 0)
            close(sp->rp[i]);
        if (sp->map_pipe[i] >= 0)
            close(sp->map_pipe[i]);
    }
    scratch_remove(&sp->scratch);
    idmap_free(&sp->idm);
    g_free(sp->staging);
    g_free(sp->scratch_base);
    g_free(sp->idmap_note);
    g_free(sp->nest_why);
    g_free(sp->unmapped_groups);
    g_strfreev(sp->locales);
    g_free(sp->foreign_dir);
    g_strfreev(sp->vary_env);
}
