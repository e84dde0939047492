/* doctor — see doctor.h. */
#include "doctor.h"

#include "idmap.h"
#include "procevents.h"
#include "nsguard.h"
#include "spawn.h"
#include "syswatch.h"
#include "textout.h"

#include <errno.h>
#include <fuse_lowlevel.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <grp.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

enum verdict { OK, NOTE, FAIL };
static int failures;
static GString *json; /* --json: the checks so far, as a JSON array's members; NULL: text */

/* One line: the verdict, the check, what was found; the fix on the next, indented.  With
 * --json, one object {check, verdict, found, fix}. */
static void report(enum verdict v, const char *check, const char *found, const char *fix)
{
    static const char *const words[] = {"ok  ", "note", "FAIL"};
    static const char *const json_words[] = {"ok", "note", "fail"};
    if (v == FAIL)
        failures++;
    if (json) {
        g_string_append(json, json->len ? ",{\"check\":" : "{\"check\":");
        json_string(json, check, strlen(check));
        g_string_append_printf(json, ",\"verdict\":\"%s\",\"found\":", json_words[v]);
        json_string(json, found, strlen(found));
        g_string_append(json, ",\"fix\":");
        if (fix && v != OK)
            json_string(json, fix, strlen(fix));
        else
            g_string_append(json, "null");
        g_string_append_c(json, '}');
        return;
    }
    printf("%s  %-19s %s\n", words[v], check, found);
    if (fix && v != OK)
        printf("      %-19s fix: %s\n", "", fix);
}

static bool in_container(char **what)
{
    if (access("/.dockerenv", F_OK) == 0) {
        *what = g_strdup("Docker");
        return true;
    }
    g_autofree char *env = NULL;
    if (g_file_get_contents("/run/.containerenv", &env, NULL, NULL)) {
        *what = g_strdup("Podman");
        return true;
    }
    g_autofree char *cg = NULL;
    if (g_file_get_contents("/proc/1/cgroup", &cg, NULL, NULL) &&
        (strstr(cg, "docker") || strstr(cg, "kubepods") || strstr(cg, "lxc"))) {
        *what = g_strdup(strstr(cg, "kubepods") ? "Kubernetes" : strstr(cg, "lxc") ? "LXC"
                                                                                    : "Docker");
        return true;
    }
    return false;
}

static void check_dev_fuse(bool container)
{
    struct stat st;
    if (stat("/dev/fuse", &st) < 0) {
        report(FAIL, "/dev/fuse", g_strerror(errno),
               container ? "start the container with --device /dev/fuse"
                         : "modprobe fuse (and apt-get install fuse3)");
        return;
    }
    if (!S_ISCHR(st.st_mode) || major(st.st_rdev) != 10 || minor(st.st_rdev) != 229) {
        report(FAIL, "/dev/fuse", "is not the FUSE device (character device 10,229)",
               "remove it and load the fuse module: modprobe fuse");
        return;
    }
    if (access("/dev/fuse", R_OK | W_OK) < 0) {
        g_autofree char *found = g_strdup_printf("mode %04o: not readable and writable by you",
                                                 st.st_mode & 07777);
        report(FAIL, "/dev/fuse", found,
               "chmod 0666 /dev/fuse (as Debian's udev rule makes it), or run as root");
        return;
    }
    g_autofree char *found = g_strdup_printf("character device, mode %04o, usable by you",
                                             st.st_mode & 07777);
    report(OK, "/dev/fuse", found, NULL);
}

static void check_fuse_fs(void)
{
    g_autofree char *fs = NULL;
    bool have = g_file_get_contents("/proc/filesystems", &fs, NULL, NULL) &&
                strstr(fs, "\tfuse\n");
    report(have ? OK : FAIL, "FUSE in the kernel",
           have ? "the fuse filesystem is registered" : "no fuse in /proc/filesystems",
           "modprobe fuse");
}

/* Make a user and mount namespace for real, in a child: what a run needs when not root. */
static void check_userns(void)
{
    if (geteuid() == 0) {
        report(OK, "user namespaces", "not needed: you are root", NULL);
        return;
    }
    int pfd[2];
    if (pipe(pfd) < 0) {
        report(FAIL, "user namespaces", g_strerror(errno), NULL);
        return;
    }
    pid_t pid = fork();
    if (pid == 0) {
        close(pfd[0]);
        int e = unshare(CLONE_NEWUSER | CLONE_NEWNS) == 0 ? 0 : errno;
        (void)!write(pfd[1], &e, sizeof e);
        _exit(0);
    }
    close(pfd[1]);
    int e = -1;
    if (pid < 0 || read(pfd[0], &e, sizeof e) != (ssize_t)sizeof e)
        e = pid < 0 ? errno : EIO;
    close(pfd[0]);
    if (pid > 0)
        waitpid(pid, NULL, 0);
    if (e == 0) {
        report(OK, "user namespaces", "you can make one (runs are unprivileged)", NULL);
        return;
    }
    g_autofree char *found = g_strdup_printf("cannot make one: %s", g_strerror(e));
    g_autofree char *aa = NULL;
    const char *fix = "sysctl -w kernel.unprivileged_userns_clone=1 user.max_user_namespaces=15000";
    if (g_file_get_contents("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", &aa, NULL,
                            NULL) && atoi(aa) == 1)
        fix = "sysctl -w kernel.apparmor_restrict_unprivileged_userns=0 (or an AppArmor "
              "profile for buildtrail)";
    report(FAIL, "user namespaces", found, fix);
}


/* Real owners inside the build need newuidmap/newgidmap and a subordinate range; each
 * supplementary group needs a subgid line of its own, or it shows as nogroup inside. */
static void check_idmap(void)
{
    if (geteuid() == 0) {
        report(OK, "id maps", "not needed: you are root", NULL);
        return;
    }
    g_autofree char *uidmap = g_find_program_in_path("newuidmap");
    g_autofree char *gidmap = g_find_program_in_path("newgidmap");
    if (!uidmap || !gidmap) {
        report(NOTE, "id maps", "no newuidmap/newgidmap: others' files show as yours and "
                                "chown to other ids fails", "apt-get install uidmap");
        return;
    }
    struct passwd *pw = getpwuid(getuid());
    g_autofree char *user = pw ? g_strdup(pw->pw_name) : g_strdup_printf("%u", (unsigned)getuid());
    struct idmap m;
    g_autofree char *why = NULL;
    if (idmap_plan(getuid(), getgid(), &m, &why) < 0) {
        g_autofree char *fix = g_strdup_printf("usermod --add-subuids 100000-165535 "
                                               "--add-subgids 100000-165535 %s", user);
        report(NOTE, "id maps", "no range for you in /etc/subuid and /etc/subgid: others' "
                                "files show as yours", fix);
        return;
    }
    report(OK, "id maps", "newuidmap and a subordinate range: files in traced trees keep their "
                          "owners", NULL);
    for (int i = 0; i < m.n_unmapped; i++) {
        struct group *gr = getgrgid(m.unmapped_gids[i]);
        g_autofree char *found = g_strdup_printf(
            "your group %s (%u) is not mapped: inside the build it shows as nogroup and "
            "chgrp to it as id -G reports it fails", gr ? gr->gr_name : "?", m.unmapped_gids[i]);
        g_autofree char *fix = g_strdup_printf("as root, add the line %s:%u:1 to /etc/subgid",
                                               user, m.unmapped_gids[i]);
        report(NOTE, "group map", found, fix);
    }
    idmap_free(&m);
}

static int kernel_at_least(int want_major, int want_minor, char **release)
{
    struct utsname u;
    if (uname(&u) < 0)
        return -1;
    *release = g_strdup(u.release);
    int ma = 0, mi = 0;
    if (sscanf(u.release, "%d.%d", &ma, &mi) != 2)
        return -1;
    return ma > want_major || (ma == want_major && mi >= want_minor);
}

static void check_process_events(void)
{
    g_autofree char *release = NULL;
    int new_enough = kernel_at_least(6, 6, &release);
    struct procev *pe = NULL;
    int r = procev_open(&pe);
    if (r == 0) {
        procev_close(pe);
        report(OK, "process events", "the kernel's connector is open to you: exact process "
                                     "tree and exits", NULL);
        return;
    }
    g_autofree char *found = g_strdup_printf(
        "not available to you (%s; Linux %s): runs record processes that touched traced files, "
        "not exits", g_strerror(-r), release ? release : "?");
    report(NOTE, "process events", found,
           new_enough == 1 ? "run as root (CAP_NET_ADMIN)"
                           : "run as root, or use Linux 6.6 or later for unprivileged runs");
}

/* --system as root watches the system trees with fanotify permission events. */
static void check_system_watch(void)
{
    if (geteuid() != 0) {
        report(OK, "--system", "served through FUSE (without root the only way: every "
                               "lookup recorded, slower)", NULL);
        return;
    }
    int fd = syswatch_group_new();
    int guard = fd >= 0 ? nsguard_probe() : 0;
    if (fd >= 0)
        close(fd);
    if (fd >= 0 && guard == 0) {
        report(OK, "--system", "watched with fanotify (opens, execs, writes, symlinks; "
                               "--system=full adds failed lookups and stat)", NULL);
        return;
    }
    if (fd >= 0) {
        g_autofree char *why = g_strdup_printf("seccomp user notifications unavailable (%s), "
                                               "which watching needs to see the build's own "
                                               "mount namespaces: --system serves the system "
                                               "trees through FUSE (slower)", g_strerror(-guard));
        report(NOTE, "--system", why, "use Linux 5.5 or later, or allow seccomp() in the "
                                      "container");
        return;
    }
    g_autofree char *found = g_strdup_printf("fanotify permission events unavailable (%s): "
                                             "--system serves the system trees through FUSE "
                                             "(slower)", g_strerror(-fd));
    report(NOTE, "--system", found,
           fd == -EPERM ? "run with CAP_SYS_ADMIN (a container: --cap-add SYS_ADMIN)"
                        : "use a kernel built with CONFIG_FANOTIFY_ACCESS_PERMISSIONS");
}

static void check_versions(void)
{
    g_autofree char *release = NULL;
    (void)kernel_at_least(0, 0, &release);
    g_autofree char *found = g_strdup_printf("libfuse %s, Linux %s", fuse_pkgversion(),
                                             release ? release : "?");
    report(OK, "versions", found, NULL);
}

static void check_tmpdir(void)
{
    const char *t = getenv("TMPDIR");
    if (!t || !*t)
        t = "/tmp";
    g_autofree char *tmpl = g_build_filename(t, "buildtrail-doctor-XXXXXX", NULL);
    g_autofree char *found = NULL;
    if (!g_mkdtemp(tmpl)) {
        found = g_strdup_printf("%s: cannot make a directory there: %s", t, g_strerror(errno));
        report(FAIL, "TMPDIR", found, "set TMPDIR to a writable directory");
        return;
    }
    g_rmdir(tmpl);
    found = g_strdup_printf("%s is writable (runs keep a private directory there)", t);
    report(OK, "TMPDIR", found, NULL);
}

/* What `run --vary all` can make here (launcher/vary.h): a note naming each variation it
 * cannot, with why. */
static void check_variations(void)
{
    struct spawn sp;
    spawn_init(&sp);
    struct vary_facts facts;
    spawn_vary_facts(&sp, "/", false, false, &facts);
    uint32_t all = 0;
    g_autofree char *err = NULL;
    (void)vary_parse("all", &all, &err);
    struct vary_plan *p = vary_plan_make(all, VARY_EXPERIMENT, &facts);
    g_autoptr(GString) names = g_string_new(NULL);
    g_autoptr(GString) why = g_string_new(NULL);
    for (int i = 0; i < p->n_rows; i++) {
        if (p->rows[i].applied && !p->rows[i].why_not)
            continue;
        const char *n = vary_name_str(p->rows[i].name);
        g_string_append_printf(names, "%s%s%s", names->len ? ", " : "", n,
                               p->rows[i].applied ? " (partly)" : "");
        g_string_append_printf(why, "%s%s: %s", why->len ? "; " : "", n, p->rows[i].why_not);
    }
    if (names->len) {
        g_autofree char *found = g_strdup_printf("run --vary all cannot vary %s here (said as "
                                                 "not varied, or partly)", names->str);
        report(NOTE, "variations", found, why->str);
    } else {
        report(OK, "variations", "run --vary all can make every variation here (not time: it "
                                 "would need faketime)", NULL);
    }
    vary_plan_free(p);
    spawn_cleanup(&sp);
}

/* The proof: this binary records `true` into a scratch trace. */
static void check_trial_run(void)
{
    g_autofree char *self = g_file_read_link("/proc/self/exe", NULL);
    g_autofree char *dir = g_dir_make_tmp("buildtrail-doctor-XXXXXX", NULL);
    if (!self || !dir) {
        report(FAIL, "a trial run", "cannot prepare it", NULL);
        return;
    }
    g_autofree char *db = g_build_filename(dir, "trial.db", NULL);
    char run[] = "run", quiet[] = "-q", out[] = "-o", dashes[] = "--", cmd[] = "true";
    char *argv[] = {self, run, quiet, out, db, dashes, cmd, NULL};
    g_autofree char *err = NULL;
    int status = -1;
    GError *gerr = NULL;
    bool spawned = g_spawn_sync(dir, argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL,
                                &err, &status, &gerr);
    for (const char *suffix = ""; suffix; suffix = !*suffix ? "-wal" : !strcmp(suffix, "-wal")
                                                                           ? "-shm" : NULL) {
        g_autofree char *f = g_strconcat(db, suffix, NULL);
        g_unlink(f);
    }
    g_rmdir(dir);
    if (!spawned) {
        report(FAIL, "a trial run", gerr->message, NULL);
        g_error_free(gerr);
        return;
    }
    if (g_spawn_check_wait_status(status, NULL)) {
        report(OK, "a trial run", "'buildtrail run -- true' recorded a trace", NULL);
        return;
    }
    g_strstrip(err);
    char *nl = strchr(err, '\n');
    if (nl)
        *nl = '\0';
    report(FAIL, "a trial run", *err ? err : "failed", "see the checks above");
}

int doctor_main(int argc, char **argv)
{
    if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        fputs("Usage: buildtrail doctor [--json]\n"
              "Check what tracing needs on this machine: /dev/fuse, FUSE in the kernel, a\n"
              "container, user namespaces (when not root), id maps, the kernel's process\n"
              "events, how --system traces, versions, TMPDIR, the variations run --vary\n"
              "can make, and a trial run.  Each line says ok, note (tracing works, with a\n"
              "loss said) or FAIL, with the command that fixes it.\n"
              "\n"
              "Options:\n"
              "      --json            one JSON document: {\"works\": true|false, \"checks\":\n"
              "                        [{\"check\", \"verdict\": ok|note|fail, \"found\",\n"
              "                        \"fix\"}]} (docs/json.md)\n"
              "  -h, --help            print this help\n"
              "\n"
              "Exit status: 0 tracing works here; 1 it does not; 2 a usage error.\n",
              stdout);
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "--json")) {
        json = g_string_new(NULL);
        argc--, argv++;
    }
    if (argc > 1) {
        fprintf(stderr, "buildtrail doctor: unexpected argument '%s'; see 'buildtrail doctor "
                        "--help'\n", argv[1]);
        if (json)
            g_string_free(json, TRUE);
        json = NULL;
        return 2;
    }
    g_autofree char *container = NULL;
    bool in = in_container(&container);
    if (in) {
        g_autofree char *found = g_strdup_printf("inside %s (FUSE there needs --device "
                                                 "/dev/fuse%s)", container,
                                                 geteuid() == 0 ? " and --cap-add SYS_ADMIN"
                                                                : "");
        report(OK, "container", found, NULL);
    }
    check_dev_fuse(in);
    check_fuse_fs();
    check_userns();
    check_idmap();
    check_process_events();
    check_system_watch();
    check_versions();
    check_tmpdir();
    check_variations();
    check_trial_run();
    fflush(stdout);
    if (json) {
        printf("{\"json_version\":1,\"works\":%s,\"checks\":[%s]}\n",
               failures ? "false" : "true", json->str);
        g_string_free(json, TRUE);
        json = NULL;
    } else if (failures)
        printf("tracing will not work here: fix the FAIL lines above\n");
    else
        printf("tracing works here\n");
    return failures ? 1 : 0;
}
