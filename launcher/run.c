/* run — see run.h. */
#include "run.h"

#include "fs.h"
#include "idmap.h"
#include "ns.h"
#include "proc.h"
#include "recorder.h"
#include "redact.h"
#include "scratch.h"
#include "nsguard.h"
#include "syswatch.h"
#include "queries.h"
#include "textout.h"
#include "tracedb.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <glib.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/mount.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_DB "buildtrail.db"
/* Ends each setup error that is about the machine, not the build. */
#define DOCTOR_HINT "; 'buildtrail doctor' checks this machine"

enum tree_role { ROLE_WORKSPACE, ROLE_TRACE, ROLE_TMP };
static const char *const role_names[] = {"workspace", "trace", "tmp"};

struct run_tree {
    char *path;    /* as the build sees it */
    char *backing; /* the real directory served there */
    enum tree_role role;
};

struct run_opts {
    char *db_path;
    GPtrArray *trace_dirs; /* char* */
    GPtrArray *env_redact; /* char*: --env-redact patterns */
    GPtrArray *argv_redact; /* char*: --argv-redact options, NULL-terminated */
    bool private_tmp;
    bool system;
    enum { SYSTEM_AUTO, SYSTEM_OPENS, SYSTEM_FULL } system_how; /* --system=HOW */
    bool quiet;            /* -q: no summary line */
    char *options;         /* the options as given, quoted (runs.options) */
    bool cache_lookups;
    int64_t hash_limit;
    mode_t output_mode;
    char **argv;
};

#define DEFAULT_HASH_LIMIT (1LL << 30)

static void usage(FILE *f)
{
    fputs("Usage: buildtrail run [OPTION]... [--] COMMAND [ARG]...\n"
          "Run COMMAND with every file access and every line of output recorded.\n"
          "\n"
          "Everything the build touches is traced wherever it lies (the current\n"
          "directory, its siblings, $HOME, /tmp, /var, other filesystems), except the\n"
          "system trees (/usr, /etc, /opt: --system) and the kernel's (/proc, /sys,\n"
          "/dev, /run).  The trace goes to ./" DEFAULT_DB ", replacing an earlier\n"
          "trace there once COMMAND has started (a COMMAND that cannot start leaves\n"
          "it as it was; a run that replaces one says which).  At the end, one line\n"
          "on stderr sums the trace up: processes, files read and written, output,\n"
          "the trace's path and size, whether it is complete, what the build left\n"
          "running (killed when its command ends, with its pid namespace: natively it\n"
          "would go on) and what the build used that was not traced.\n"
          "\n"
          "The build's stdout and stderr are not a terminal (buildtrail records them\n"
          "and prints them on): programs that ask print no colours and no progress\n"
          "line (gcc's colours, ninja's status line: one line per step).  To force\n"
          "colours: CFLAGS=-fdiagnostics-color=always (gcc, clang), CLICOLOR_FORCE=1\n"
          "(ninja, CMake's makefiles); NINJA_STATUS sets ninja's status lines.\n"
          "\n"
          "Options:\n"
          "  -o, --output FILE     write the trace to FILE instead of ./" DEFAULT_DB "\n"
          "                        (to DIR/" DEFAULT_DB " if FILE is a directory DIR)\n"
          "                        (only a trace or an empty file there is ever\n"
          "                        replaced; keep it out of directories the build\n"
          "                        deletes: a trace open there makes their removal fail)\n"
          "      --output-mode MODE  the trace's permissions, in octal (default 0600: it\n"
          "                        holds the names, sizes and hashes of what the build\n"
          "                        read)\n"
          "      --system[=HOW]    also trace the system trees (/usr, /etc, /opt): which\n"
          "                        headers, libraries and tools the build used.  As root,\n"
          "                        HOW=opens (the default) watches them with fanotify:\n"
          "                        every open, exec and symlink followed there, not\n"
          "                        failed lookups, stat, listings, renames or removals,\n"
          "                        nor opens in mount namespaces or mounts the build\n"
          "                        makes (the trace then says it is incomplete);\n"
          "                        HOW=full serves them through FUSE: everything, slower\n"
          "                        (the only way without root)\n"
          "      --trace DIR       also trace DIR, inside a tree not traced (repeatable)\n"
          "      --private-tmp     give the build a private, empty /tmp (removed\n"
          "                        afterwards) instead of the real one\n"
          "      --env-redact PATTERN  record only the name of environment variables whose\n"
          "                        name matches PATTERN (a glob, any case; repeatable).\n"
          "                        Always redacted: names containing TOKEN, SECRET,\n"
          "                        PASSWORD, PASSWD, PASSPHRASE, PASSCODE, CREDENTIAL,\n"
          "                        APIKEY, PRIVATEKEY, JWT, COOKIE, SESSION or AUTH (not\n"
          "                        in AUTHOR), or with the word KEY, KEYS, PAT, PASS, PWD\n"
          "                        or PW, or a word ending in PASS (not ASKPASS, BYPASS)\n"
          "                        (words: between characters that are not letters or\n"
          "                        digits; PWD itself is kept), any case\n"
          "      --argv-redact OPTION  record REDACTED for the value of OPTION (an exact\n"
          "                        option name such as --pin or -p; repeatable) in every\n"
          "                        program's arguments: both OPTION=VALUE and OPTION VALUE,\n"
          "                        and -pVALUE for a one-letter option, also inside a\n"
          "                        command line given as one argument (sh -c '...').\n"
          "                        Always redacted: --password --passwd --passphrase\n"
          "                        --token\n"
          "                      Credentials in URLs (scheme://user:pass@host) become\n"
          "                        user:REDACTED in every argument and environment value\n"
          "                        (a user name alone, e.g. a token, becomes REDACTED,\n"
          "                        but for ssh), and so does the value of an\n"
          "                        Authorization:, Cookie:, Private-Token: (...) header;\n"
          "                        what the build prints is recorded as is\n"
          "      --hash-limit SIZE  hash file contents up to SIZE bytes (K, M, G suffixes;\n"
          "                        default 1G; 0: no limit); larger ones are not hashed\n"
          "      --cache-lookups   let the kernel remember names found missing and symlink\n"
          "                        targets: faster for configure scripts, include-path\n"
          "                        searches and --system, but each missing name and each\n"
          "                        symlink followed is recorded for the first process only\n"
          "  -q, --quiet           print no summary line at the end\n"
          "  -h, --help            print this help\n"
          "\n"
          "Exit status: the build's own; 128+N if signal N killed it; 125 if buildtrail\n"
          "could not set the build up or could not record it (the build is then\n"
          "stopped); 126/127 if COMMAND could not be executed/found; 2 for a usage error.\n"
          "'buildtrail doctor' checks what tracing needs on this machine.\n",
          f);
}

/* 0: parsed; >0: exit with (status-1), e.g. --help; <0: usage error. */
static int parse_args(int argc, char **argv, struct run_opts *o)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},
        {"trace", required_argument, NULL, 'T'},
        {"no-tmp", no_argument, NULL, 'N'},
        {"private-tmp", no_argument, NULL, 'p'},
        {"env-redact", required_argument, NULL, 'E'},
        {"argv-redact", required_argument, NULL, 'A'},
        {"system", optional_argument, NULL, 'S'},
        {"hash-limit", required_argument, NULL, 'L'},
        {"cache-lookups", no_argument, NULL, 'M'},
        {"output-mode", required_argument, NULL, 'P'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {0},
    };
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "+o:qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'o':
            g_free(o->db_path);
            o->db_path = g_strdup(optarg);
            break;
        case 'T':
            g_ptr_array_add(o->trace_dirs, g_strdup(optarg));
            break;
        case 'N':
            break; /* the real /tmp is the default now; kept for old scripts */
        case 'p':
            o->private_tmp = true;
            break;
        case 'E':
            g_ptr_array_add(o->env_redact, g_strdup(optarg));
            break;
        case 'A':
            if (!redact_option_valid(optarg)) {
                fprintf(stderr, "buildtrail run: --argv-redact '%s' is not an option name; give "
                                "one such as --password or -p, without its value\n", optarg);
                return -1;
            }
            g_ptr_array_insert(o->argv_redact, (gint)o->argv_redact->len - 1, g_strdup(optarg));
            break;
        case 'S':
            o->system = true;
            if (!optarg)
                o->system_how = SYSTEM_AUTO;
            else if (!strcmp(optarg, "opens"))
                o->system_how = SYSTEM_OPENS;
            else if (!strcmp(optarg, "full"))
                o->system_how = SYSTEM_FULL;
            else {
                fprintf(stderr, "buildtrail run: --system=%s: not a way to trace the system "
                                "trees; give --system=opens or --system=full\n", optarg);
                return -1;
            }
            break;
        case 'M':
            o->cache_lookups = true;
            break;
        case 'q':
            o->quiet = true;
            break;
        case 'P': {
            char *end;
            long m = strtol(optarg, &end, 8);
            if (end == optarg || *end || m < 0 || m > 0777) {
                fprintf(stderr, "buildtrail run: --output-mode '%s' is not a file mode; give "
                                "octal permissions such as 0600 or 0644\n", optarg);
                return -1;
            }
            o->output_mode = (mode_t)m;
            break;
        }
        case 'L': {
            char *end;
            long long n = strtoll(optarg, &end, 10);
            long long mult = !*end ? 1 : !strcmp(end, "K") ? 1LL << 10 : !strcmp(end, "M") ? 1LL << 20
                           : !strcmp(end, "G") ? 1LL << 30 : -1;
            if (end == optarg || n < 0 || mult < 0 || n > INT64_MAX / mult) {
                fprintf(stderr, "buildtrail run: --hash-limit '%s' is not a size; give bytes, "
                                "optionally with K, M or G (e.g. 512M)\n", optarg);
                return -1;
            }
            o->hash_limit = n * mult;
            break;
        }
        case 'h':
            usage(stdout);
            return 1;
        default:
            fputs("Try 'buildtrail run --help'.\n", stderr);
            return -1;
        }
    }
    if (optind >= argc) {
        fputs("buildtrail run: no command given; usage: buildtrail run [OPTION]... -- COMMAND "
              "[ARG]...\n", stderr);
        return -1;
    }
    o->argv = argv + optind;
    GString *opts = g_string_new(NULL);
    for (int i = 1; i < optind; i++) {
        if (!strcmp(argv[i], "--") && i == optind - 1)
            break;
        if (opts->len)
            g_string_append_c(opts, ' ');
        text_quote_arg(opts, argv[i], strlen(argv[i]));
    }
    o->options = g_string_free(opts, FALSE);
    return 0;
}

static bool path_is_under(const char *path, const char *dir)
{
    size_t l = strlen(dir);
    return strncmp(path, dir, l) == 0 && (path[l] == '/' || path[l] == '\0' || !strcmp(dir, "/"));
}

static int compare_tree_depth(const void *a, const void *b, void *data)
{
    const struct run_tree *t = data;
    size_t la = strlen(t[*(const int *)a].path), lb = strlen(t[*(const int *)b].path);
    return la < lb ? -1 : la > lb;
}

/* Why the directory `real` (absolute, symlinks resolved) cannot be traced, or NULL if it can.
 * The kernel's own trees (/proc, /sys, /dev and the pseudo-filesystems mounted anywhere) do
 * not behave as files: a passthrough of them would fail late or lie. */
static const char *untraceable(const char *real)
{
    static const char *const kernel_trees[] = {"/proc", "/sys", "/dev"};
    for (size_t i = 0; i < G_N_ELEMENTS(kernel_trees); i++)
        if (path_is_under(real, kernel_trees[i]))
            return "it is the kernel's, not files a build makes";
    struct statfs sf;
    if (statfs(real, &sf) == 0) {
        switch ((unsigned long)sf.f_type) {
        case 0x9fa0:     /* proc */
        case 0x62656572: /* sysfs */
        case 0x1cd1:     /* devpts */
        case 0x27e0eb:   /* cgroup */
        case 0x63677270: /* cgroup2 */
        case 0x64626720: /* debugfs */
        case 0x74726163: /* tracefs */
        case 0x73636673: /* securityfs */
        case 0xcafe4a11: /* bpf */
        case 0x65735546: /* fuse control */
            return "it is a kernel pseudo-filesystem, not files a build makes";
        default:
            break;
        }
    }
    return NULL;
}

/* The mount flags of the filesystem holding `path` that restrict what a build may do there. */
static unsigned long mount_flags_of(const char *path)
{
    struct statvfs v;
    if (statvfs(path, &v) < 0)
        return 0;
    return (v.f_flag & ST_NOSUID ? MS_NOSUID : 0) | (v.f_flag & ST_NODEV ? MS_NODEV : 0) |
           (v.f_flag & ST_NOEXEC ? MS_NOEXEC : 0) | (v.f_flag & ST_RDONLY ? MS_RDONLY : 0);
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

static int64_t realtime_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The build's command as runs.argv records it: NUL-separated, redacted as every process's
 * argv is (fusefs/redact.h). */
static GBytes *join_argv(char **argv, char *const *redact)
{
    GByteArray *b = g_byte_array_new();
    for (char **a = argv; *a; a++)
        g_byte_array_append(b, (const guint8 *)*a, (guint)strlen(*a) + 1);
    size_t len;
    char *kept = redact_argv((const char *)b->data, b->len, redact, &len);
    g_byte_array_free(b, TRUE);
    return g_bytes_new_take(kept, len);
}

/* Why a setup step failed, and what to do about it: one line on `f`. */
static void describe_setup_failure(FILE *f, const struct ns_report *r,
                                   const struct run_tree *trees, const struct ns_plan *plan,
                                   char **argv)
{
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
                r->tree >= 0 ? trees[r->tree].path : "?", err);
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
    case NS_STEP_MOUNT_FUSE:
        fprintf(f, "buildtrail run: cannot mount the FUSE filesystem: %s; %s" DOCTOR_HINT "\n",
                err,
                "FUSE mounts in user namespaces need Linux 4.18 or later; or run as root");
        return;
    default:
        fprintf(f, "buildtrail run: cannot %s: %s\n", ns_step_describe(r->step), err);
    }
}

struct loop_ctx {
    struct fuse_session *se;
    int max_threads;
    int result;
    bool done; /* protected by lock */
    pthread_mutex_t lock;
    pthread_cond_t cond;
};

/* That line on stderr, ending with `tail` (NULL: nothing). */
static void report_setup_failure(const struct ns_report *r, const struct run_tree *trees,
                                 const struct ns_plan *plan, char **argv, const char *tail)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return;
    describe_setup_failure(f, r, trees, plan, argv);
    if (fclose(f) == 0 && buf) {
        while (len && buf[len - 1] == '\n')
            buf[--len] = '\0';
        fprintf(stderr, "%s%s\n", buf, tail ? tail : "");
    }
    free(buf);
}

static void *loop_main(void *arg)
{
    struct loop_ctx *l = arg;
    struct fuse_loop_config *cfg = fuse_loop_cfg_create();
    fuse_loop_cfg_set_max_threads(cfg, (unsigned)l->max_threads);
    fuse_loop_cfg_set_clone_fd(cfg, 0);
    l->result = fuse_session_loop_mt(l->se, cfg);
    fuse_loop_cfg_destroy(cfg);
    pthread_mutex_lock(&l->lock);
    l->done = true;
    pthread_cond_broadcast(&l->cond);
    pthread_mutex_unlock(&l->lock);
    return NULL;
}

/* Wait up to `seconds` for the FUSE loop to end (the mount went away with the namespace). */
static bool loop_wait(struct loop_ctx *l, int seconds)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += seconds;
    pthread_mutex_lock(&l->lock);
    while (!l->done)
        if (pthread_cond_timedwait(&l->cond, &l->lock, &until) == ETIMEDOUT)
            break;
    bool done = l->done;
    pthread_mutex_unlock(&l->lock);
    return done;
}

static int read_full(int fd, void *buf, size_t len)
{
    size_t got = 0;
    while (got < len) {
        ssize_t n = read(fd, (char *)buf + got, len - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? -errno : -EPIPE;
        got += (size_t)n;
    }
    return 0;
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

/* What the daemon watches while the build runs: the recorder's health and the trace's own
 * file.  The recorder's hooks run on its writer thread: they print (main-level reporting, on
 * behalf of the launcher) and wake the main loop through wake_fd; the fields they set are
 * atomics, read by the main thread. */
struct run_watch {
    const char *db_path;
    int wake_fd;               /* eventfd: the main loop polls it */
    atomic_int write_errno;    /* a write of the trace failed (not for lack of space) */
    atomic_bool disk_full;     /* the recorder is waiting for space */
    char *lost;                /* what happened to the trace file, if it went; main thread */
};

static void watch_wake(struct run_watch *w)
{
    uint64_t one = 1;
    if (write(w->wake_fd, &one, sizeof one) < 0) {
        /* The counter cannot overflow here; the main loop also polls every second. */
    }
}

static void on_disk_full(void *arg, int err, bool full)
{
    struct run_watch *w = arg;
    atomic_store(&w->disk_full, full);
    if (full)
        fprintf(stderr, "buildtrail run: the disk holding %s is full (%s); the build is paused "
                        "until space is freed \u2014 Ctrl-C to stop\n", w->db_path,
                g_strerror(err));
    else
        fprintf(stderr, "buildtrail run: there is space again for %s; the build goes on\n",
                w->db_path);
}

static void on_write_failed(void *arg, int err)
{
    struct run_watch *w = arg;
    atomic_store(&w->write_errno, err);
    fprintf(stderr, "buildtrail run: cannot write the trace %s: %s; stopping the build, which "
                    "would run on unrecorded\n", w->db_path, g_strerror(err));
    watch_wake(w);
}

/* Is the trace still the file at its path?  NULL, or what happened to it (g_free it).  A NULL
 * path (no trace of this run left to watch) is no problem. */
static char *trace_file_problem(const char *path, int lock_fd, const struct stat *orig)
{
    if (!path)
        return NULL;
    struct stat now, at_path;
    if (stat(path, &at_path) == 0) {
        if (at_path.st_dev != orig->st_dev || at_path.st_ino != orig->st_ino)
            return g_strdup("was replaced by another file");
        return NULL;
    }
    if (errno != ENOENT)
        return g_strdup_printf("cannot be checked: %s", g_strerror(errno));
    if (fstat(lock_fd, &now) == 0 && now.st_nlink == 0)
        return g_strdup("was deleted");
    return g_strdup("was renamed");
}

/* One run, through its four stages: plan (what to trace, checks), prepare (private
 * directory, trace, namespace plan, recorder and filesystem), serve (spawn the build, serve
 * FUSE, wait), finish (settle how it ended, write the run's end).  run_cleanup undoes what was
 * done, whichever stage stopped.  Main thread only; the recorder's hooks touch `watch`. */
struct run {
    struct run_opts o;
    char cwd[PATH_MAX];
    GArray *trees;                 /* struct run_tree */
    struct run_tree *tv;           /* trees->data, once every tree is known */
    int n_trees;
    bool private_tmp, user_ns;
    bool workspace_nested;         /* the workspace lies in a traced tree: a row, no mount */
    struct stat scratch_dir_st;    /* the directory holding the private directory ... */
    char *scratch_base;            /* ... and its name there (hidden from the build) */
    char *db_path, *db_dir, *db_base, *staging;
    char *pending_base;            /* the new trace's temporary name (hidden from the build) */
    char *stats, *notes, *tree_note;
    char *stop_reason;             /* why buildtrail stopped the build itself */
    char *failure_text;            /* why the run failed (runs.failure) */
    sqlite3 *db;
    int db_lock_fd;
    struct tracedb_pending pending; /* the new trace, at a temporary name until published */
    bool published;                /* in place at db_path: the build's command started */
    bool said_not_replaced;        /* the setup failure's line said so */
    struct tracedb_replaced replaced; /* what publishing it replaced */
    struct stat db_dir_st, db_st;
    struct rec *rec;
    struct proc_table *procs;
    struct vers *vers;
    struct fs *fs;
    struct fuse_session *se;
    struct fs_tree fs_trees[NS_MAX_TREES];
    struct ns_plan plan;
    int sv[2], rp[2], sigfd, fuse_fd;
    bool serving, signals_blocked, loop_running;
    struct scratch scratch;
    struct idmap idm;
    int map_pipe[2];
    bool ids_mapped;
    char *idmap_note, *ids_note, *unmapped_groups;
    char *own_judge;               /* reached filesystems that judge permissions themselves */
    GPtrArray *not_traced;         /* top directories left untraced for want of room */
    GPtrArray *watched;            /* char*: system trees watched instead of mounted */
    GPtrArray *watch_marks;        /* char*: those trees and every mount point inside them */
    int watch_fd;                  /* their fanotify group until the watcher takes it */
    char *watch_why_not;           /* why --system serves them through FUSE as root */
    struct syswatch *syswatch;
    char *watch_note;
    struct sock_filter guard_filter[NSGUARD_FILTER_MAX]; /* launcher/nsguard.h, with syswatch */
    struct sock_filter init_filter[NSGUARD_FILTER_MAX];  /* the same calls refused, for init */
    struct nsguard *guard;
    char *unseen;                  /* what the guard saw hide accesses (runs.notes "unseen=") */
    struct run_watch watch;
    struct loop_ctx loop;
    pthread_t loop_thread;
    sigset_t handled, old_mask;
    pid_t setup;
    struct ns_report failure;      /* the first step setup reported as failed */
    bool have_status, interrupted, setup_done;
    int64_t mono_to_boot_ns;       /* CLOCK_BOOTTIME - CLOCK_MONOTONIC, taken before the spawn */
    int64_t kill_left_ns;          /* when setup ended what the build left running (BOOTTIME), or 0 */
    int wait_status, setup_wait;
    int exit_status, term_signal;
    int status;                    /* run_main's exit status */
};

/* Where this run's trace is now: in place once published, else its temporary name (NULL when
 * a failed publish removed it). */
static const char *live_path(const struct run *r)
{
    return r->published ? r->db_path : r->pending.tmp_path;
}

/* The deepest planned tree holding `path`, or NULL. */
static const char *tree_of(const struct run *r, const char *path)
{
    const char *best = NULL;
    for (guint k = 0; k < r->trees->len; k++) {
        const char *t = g_array_index(r->trees, struct run_tree, k).path;
        if (path_is_under(path, t) && (!best || strlen(t) > strlen(best)))
            best = t;
    }
    return best;
}

/* Whether `path` is inside (or is) a watched system tree. */
static bool watched_already(const struct run *r, const char *path)
{
    for (guint k = 0; k < r->watched->len; k++)
        if (path_is_under(path, r->watched->pdata[k]))
            return true;
    return false;
}

/* Whether `path` is inside (or is) a tree already planned for mounting. */
static bool traced_already(const struct run *r, const char *path)
{
    return tree_of(r, path) != NULL;
}

/* The top of the filesystem as a build sees it, traced: every directory in / but the system
 * trees (traced only with --system), the kernel's and the runtime's, which never are, and
 * links (a merged-/usr system's /bin, /lib ... lead into /usr).  So the build's sibling trees,
 * `..`, $HOME, /var/tmp and other filesystems mounted anywhere below are traced wherever they
 * lie, with no flag.  /tmp is the real one unless --private-tmp. */
static const char *const system_tops[] = {"usr", "etc", "opt", "bin", "sbin", "lib", "lib32",
                                          "lib64", "libx32", "boot"};
static const char *const never_tops[] = {"proc", "sys", "dev", "run"};

static bool name_in(const char *name, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(name, list[i]))
            return true;
    return false;
}

static gint compare_names(gconstpointer a, gconstpointer b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A mountinfo field with its octal escapes (\040 for a space, ...) undone, in place. */
static void unescape_mountinfo(char *s)
{
    char *out = s;
    for (char *in = s; *in; in++) {
        if (in[0] == '\\' && in[1] >= '0' && in[1] <= '3' && in[2] >= '0' && in[2] <= '7' &&
            in[3] >= '0' && in[3] <= '7') {
            *out++ = (char)((in[1] - '0') * 64 + (in[2] - '0') * 8 + (in[3] - '0'));
            in += 3;
        } else {
            *out++ = *in;
        }
    }
    *out = '\0';
}


/* A filesystem mounted inside a traced tree is reached through it, but a tree is one mount
 * with one set of flags: one mounted with other restrictions (nosuid, nodev, noexec,
 * read-only) than its tree's becomes a tree of its own, so that the build keeps exactly the
 * powers it has natively there.  Inside a watched tree, every mount is marked (watch_marks). */
static void plan_flagged_mounts(struct run *r)
{
    g_autofree char *info = NULL;
    if (!g_file_get_contents("/proc/self/mountinfo", &info, NULL, NULL))
        return;
    GPtrArray *points = g_ptr_array_new_with_free_func(g_free);
    for (char *line = strtok(info, "\n"); line; line = strtok(NULL, "\n")) {
        char *f[5] = {0};
        char *save = NULL;
        int n = 0;
        for (char *w = strtok_r(line, " ", &save); w && n < 5; w = strtok_r(NULL, " ", &save))
            f[n++] = w;
        if (n < 5)
            continue;
        unescape_mountinfo(f[4]);
        g_ptr_array_add(points, g_strdup(f[4]));
    }
    g_ptr_array_sort(points, compare_names); /* parents before their children */
    for (guint i = 0; i < points->len && r->trees->len < NS_MAX_TREES - 2; i++) {
        const char *mp = points->pdata[i];
        const char *tree = tree_of(r, mp);
        if (!tree || !strcmp(tree, mp) || untraceable(mp))
            continue;
        struct stat st;
        if (stat(mp, &st) < 0 || !S_ISDIR(st.st_mode) ||
            mount_flags_of(mp) == mount_flags_of(tree))
            continue;
        struct run_tree t = {g_strdup(mp), g_strdup(mp), ROLE_TRACE};
        g_array_append_val(r->trees, t);
    }
    /* A watched tree's mark covers its own mount only: every mount inside it is marked too. */
    for (guint i = 0; i < r->watched->len; i++)
        g_ptr_array_add(r->watch_marks, g_strdup(r->watched->pdata[i]));
    for (guint i = 0; i < points->len; i++) {
        const char *mp = points->pdata[i];
        if (!watched_already(r, mp) || name_in(mp, (const char *const *)r->watched->pdata,
                                                r->watched->len) ||
            untraceable(mp) || (i > 0 && !strcmp(mp, points->pdata[i - 1])))
            continue;
        g_ptr_array_add(r->watch_marks, g_strdup(mp)); /* run_plan checks the count */
    }
    g_ptr_array_free(points, TRUE);
}

/* Whether a mount (its mountinfo type and super options) decides permissions by rules of its
 * own that the modes and owners it shows do not tell: a network filesystem's server (NFS whose
 * id mapping shows files as nobody's, NFSv4 or SMB ACLs, CIFS `noperm`), a FUSE daemon
 * without default_permissions (sshfs, virtiofs); and an automount point, which may become any
 * of those during the build.  The kernel's checks on the traced mount would refuse there what
 * the filesystem allows natively. */
static bool judges_itself(const char *type, const char *super_opts)
{
    static const char *const remote[] = {"nfs", "nfs4", "cifs", "smb3", "smbfs", "9p", "ceph",
                                         "afs", "coda", "lustre", "gpfs", "beegfs", "vboxsf",
                                         "orangefs", "pvfs2", "ncpfs", "virtiofs", "autofs"};
    for (size_t i = 0; i < G_N_ELEMENTS(remote); i++)
        if (!strcmp(type, remote[i]))
            return true;
    if (strcmp(type, "fuse") && strcmp(type, "fuseblk") && strncmp(type, "fuse.", 5) &&
        strncmp(type, "fuseblk.", 8))
        return false;
    g_auto(GStrv) opts = g_strsplit(super_opts, ",", -1);
    return !g_strv_contains((const char *const *)opts, "default_permissions");
}

/* The filesystems the build reaches through a traced tree (holding one, or mounted inside one)
 * that judge permissions themselves (judges_itself): "MOUNT POINT (TYPE), ...", or NULL.  The
 * kernel does not check permissions on the traced mount then (fs_set_kernel_checks). */
static char *find_own_judge(const struct run *r)
{
    g_autofree char *info = NULL;
    if (!g_file_get_contents("/proc/self/mountinfo", &info, NULL, NULL))
        return NULL;
    GString *found = g_string_new(NULL);
    for (char *line = strtok(info, "\n"); line; line = strtok(NULL, "\n")) {
        char *dash = strstr(line, " - ");
        char *f[5] = {0}, *t[3] = {0};
        char *save = NULL;
        int n = 0, m = 0;
        if (!dash)
            continue;
        *dash = '\0';
        for (char *w = strtok_r(line, " ", &save); w && n < 5; w = strtok_r(NULL, " ", &save))
            f[n++] = w;
        for (char *w = strtok_r(dash + 3, " ", &save); w && m < 3; w = strtok_r(NULL, " ", &save))
            t[m++] = w; /* type, source, super options */
        if (n < 5 || m < 3 || !judges_itself(t[0], t[2]))
            continue;
        unescape_mountinfo(f[4]);
        bool reached = tree_of(r, f[4]) != NULL;
        for (guint k = 0; k < r->trees->len && !reached; k++)
            reached = path_is_under(g_array_index(r->trees, struct run_tree, k).backing, f[4]);
        if (reached)
            g_string_append_printf(found, "%s%s (%s)", found->len ? ", " : "", f[4], t[0]);
    }
    return found->len ? g_string_free(found, FALSE) : (g_string_free(found, TRUE), NULL);
}

static int plan_top_trees(struct run *r)
{
    DIR *root = opendir("/");
    if (!root) {
        fprintf(stderr, "buildtrail run: cannot list /: %s\n", g_strerror(errno));
        return -1;
    }
    GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
    struct dirent *e;
    while ((e = readdir(root)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            g_ptr_array_add(names, g_strdup(e->d_name));
    closedir(root);
    g_ptr_array_sort(names, compare_names);
    for (guint i = 0; i < names->len; i++) {
        const char *name = names->pdata[i];
        g_autofree char *path = g_strconcat("/", name, NULL);
        struct stat st;
        if (lstat(path, &st) < 0 || !S_ISDIR(st.st_mode))
            continue;
        if (name_in(name, never_tops, G_N_ELEMENTS(never_tops)) ||
            (!r->o.system && name_in(name, system_tops, G_N_ELEMENTS(system_tops))) ||
            (r->private_tmp && !strcmp(name, "tmp")) || untraceable(path))
            continue;
        if (r->watch_fd >= 0 && name_in(name, system_tops, G_N_ELEMENTS(system_tops))) {
            g_ptr_array_add(r->watched, g_steal_pointer(&path));
            continue;
        }
        if (r->trees->len >= NS_MAX_TREES - 2) {
            g_ptr_array_add(r->not_traced, g_strdup(path)); /* said by the summary */
            continue;
        }
        struct run_tree t = {g_strdup(path), g_strdup(path), ROLE_TRACE};
        g_array_append_val(r->trees, t);
    }
    g_ptr_array_free(names, TRUE);
    return 0;
}

/* Plan: the workspace, --trace and --system trees, and whether /dev/fuse and user namespaces
 * can be used.  0, or -1 after one line on stderr. */
static int run_plan(struct run *r)
{
    if (!getcwd(r->cwd, sizeof r->cwd)) {
        fprintf(stderr, "buildtrail run: cannot get the current directory: %s\n", g_strerror(errno));
        return -1;
    }

    /* --- the trees ---------------------------------------------------------------------- */
    if (!strcmp(r->cwd, "/")) {
        fputs("buildtrail run: cannot trace / as the workspace; run from the project's directory\n",
              stderr);
        return -1;
    }
    const char *why_not = untraceable(r->cwd);
    if (why_not) {
        fprintf(stderr, "buildtrail run: cannot trace the current directory %s: %s; run from the "
                        "project's directory\n", r->cwd, why_not);
        return -1;
    }
    r->private_tmp = r->o.private_tmp;
    /* As root, --system watches the system trees with fanotify (fusefs/syswatch.h) unless
     * --system=full; where the kernel or a container refuses, they are served as without. */
    if (r->o.system && r->o.system_how != SYSTEM_FULL && geteuid() == 0) {
        r->watch_fd = syswatch_group_new();
        if (r->watch_fd < 0) {
            int e = -r->watch_fd;
            if (r->o.system_how == SYSTEM_OPENS) {
                fprintf(stderr, "buildtrail run: --system=opens: cannot watch the system trees "
                                "with fanotify: %s; use --system=full" DOCTOR_HINT "\n",
                        g_strerror(e));
                return -1;
            }
            r->watch_why_not = g_strdup_printf("fanotify permission events unavailable: %s",
                                               g_strerror(e));
            r->watch_fd = -1;
        }
        /* Without the guard a mount namespace of the build's own would hide its opens. */
        int ge = r->watch_fd >= 0 ? nsguard_probe() : 0;
        if (ge < 0) {
            close(r->watch_fd);
            r->watch_fd = -1;
            if (r->o.system_how == SYSTEM_OPENS) {
                fprintf(stderr, "buildtrail run: --system=opens: cannot watch the build's mount "
                                "calls (seccomp user notifications): %s; use --system=full"
                                DOCTOR_HINT "\n", g_strerror(-ge));
                return -1;
            }
            r->watch_why_not = g_strdup_printf("seccomp user notifications unavailable: %s",
                                               g_strerror(-ge));
        }
    } else if (r->o.system && r->o.system_how == SYSTEM_OPENS) {
        fputs("buildtrail run: --system=opens needs root (fanotify); run as root, or use "
              "--system to trace the system trees through FUSE\n", stderr);
        return -1;
    }
    if (plan_top_trees(r) < 0)
        return -1;
    plan_flagged_mounts(r);
    if (r->watch_marks->len > NS_MAX_WATCH_MARKS) {
        fprintf(stderr, "buildtrail run: --system: %u mounts inside the system trees, more than "
                        "the %d buildtrail can watch; use --system=full\n",
                r->watch_marks->len, NS_MAX_WATCH_MARKS);
        return -1;
    }
    for (guint i = 0; i < r->o.trace_dirs->len; i++) {
        const char *d = r->o.trace_dirs->pdata[i];
        char real[PATH_MAX];
        struct stat st;
        if (!realpath(d, real) || stat(real, &st) < 0) {
            fprintf(stderr, "buildtrail run: --trace %s: %s; give an existing directory\n", d,
                    g_strerror(errno));
            return -1;
        }
        if (!S_ISDIR(st.st_mode)) {
            fprintf(stderr, "buildtrail run: --trace %s: not a directory; give a directory\n", d);
            return -1;
        }
        if (!strcmp(real, "/")) {
            fprintf(stderr, "buildtrail run: --trace %s: cannot trace /; name the directories the "
                            "build uses\n", d);
            return -1;
        }
        if ((why_not = untraceable(real))) {
            fprintf(stderr, "buildtrail run: --trace %s: cannot trace it: %s; name the directories "
                            "the build reads and writes\n", d, why_not);
            return -1;
        }
        if (!strcmp(real, "/tmp"))
            r->private_tmp = false; /* /tmp itself, as it is */
        if (traced_already(r, real))
            continue;
        if (r->trees->len >= NS_MAX_TREES - 2) {
            fprintf(stderr, "buildtrail run: too many directories to trace (at most %d)\n",
                    NS_MAX_TREES - 2);
            return -1;
        }
        struct run_tree t = {g_strdup(real), g_strdup(real), ROLE_TRACE};
        g_array_append_val(r->trees, t);
    }
    /* The workspace is traced where it lies: under a traced tree it is only named (the trees
     * table's 'workspace' row); elsewhere (under /usr without --system, say) it is mounted. */
    r->workspace_nested = traced_already(r, r->cwd);
    if (!r->workspace_nested) {
        struct run_tree ws = {g_strdup(r->cwd), g_strdup(r->cwd), ROLE_WORKSPACE};
        g_array_append_val(r->trees, ws);
    }

    /* --- preflight ---------------------------------------------------------------------- */
    r->user_ns = geteuid() != 0;
    if (access("/dev/fuse", R_OK | W_OK) < 0) {
        int e = errno;
        fprintf(stderr, "buildtrail run: cannot use /dev/fuse: %s; %s" DOCTOR_HINT "\n",
                g_strerror(e),
                e == ENOENT ? "load the fuse module (modprobe fuse) or install fuse3"
                            : "make it usable by your user (chmod 0666 /dev/fuse, as Debian's "
                              "udev rule does) or run as root");
        return -1;
    }
    if (r->user_ns && userns_hint()) {
        fputs("buildtrail run: unprivileged user namespaces are disabled; enable them (sysctl "
              "kernel.unprivileged_userns_clone=1 and user.max_user_namespaces>0) or run as root"
              DOCTOR_HINT "\n",
              stderr);
        return -1;
    }
    return 0;
}

/* The private directory: mnt/ (the staging mount point) and, unless /tmp is traced or
 * --no-tmp, tmp/ (the build's private /tmp, with mount points for trees under /tmp). */
static int prepare_private_dirs(struct run *r)
{
    {
        const char *base = g_getenv("TMPDIR");
        if (!base || !*base || !g_path_is_absolute(base))
            base = "/tmp";
        /* Leftovers of runs that were killed (SIGKILL, a crash) hold a whole /tmp: reclaim
         * them, and only them (scratch.h). */
        (void)scratch_reclaim(base);
        int e = scratch_create(base, &r->scratch);
        if (e < 0) {
            fprintf(stderr, "buildtrail run: cannot make a private directory in %s: %s; set TMPDIR "
                            "to a writable directory\n", base, g_strerror(-e));
            return -1;
        }
        r->scratch_base = g_path_get_basename(r->scratch.path);
        g_autofree char *scratch_dir = g_path_get_dirname(r->scratch.path);
        if (stat(scratch_dir, &r->scratch_dir_st) < 0)
            memset(&r->scratch_dir_st, 0, sizeof r->scratch_dir_st);
        r->staging = g_build_filename(r->scratch.path, "mnt", NULL);
        g_autofree char *tmp = g_build_filename(r->scratch.path, "tmp", NULL);
        if (mkdir(r->staging, 0700) < 0 || (r->private_tmp && mkdir(tmp, 0700) < 0) ||
            (r->private_tmp && chmod(tmp, 01777) < 0)) {
            fprintf(stderr, "buildtrail run: cannot prepare %s: %s; set TMPDIR to a writable "
                            "directory\n", r->scratch.path, g_strerror(errno));
            return -1;
        }
        if (r->private_tmp) {
            /* Trees under /tmp need their mount points inside the private /tmp too. */
            for (guint k = 0; k < r->trees->len; k++) {
                const char *p = g_array_index(r->trees, struct run_tree, k).path;
                if (path_is_under(p, "/tmp") && strcmp(p, "/tmp")) {
                    g_autofree char *mp = g_build_filename(tmp, p + 4, NULL);
                    if (mkdir_p(mp, 0755) < 0) {
                        fprintf(stderr, "buildtrail run: cannot prepare %s: %s\n", mp,
                                g_strerror(errno));
                        return -1;
                    }
                }
            }
            struct run_tree t = {g_strdup("/tmp"), g_steal_pointer(&tmp), ROLE_TMP};
            g_array_append_val(r->trees, t);
        }
    }
    return 0;
}

/* A watched tree is the build's to see and change: the trace and the private directory, which
 * a served tree hides, cannot lie in one (outside a tree served inside it).  0, or -1 after
 * one line on stderr naming `path` and `fix`. */
static int refuse_if_watched(const struct run *r, const char *path, const char *fix)
{
    if (!watched_already(r, path) || traced_already(r, path))
        return 0;
    fprintf(stderr, "buildtrail run: %s lies in a system tree that --system watches, where the "
                    "build could change it; %s, or use --system=full\n", path, fix);
    return -1;
}

/* The trace: created (tracedb_create: never replacing what is not a trace) with its run row. */
static int prepare_trace(struct run *r)
{
    struct stat dst;
    g_autofree char *real_dir = NULL;
    if (r->o.db_path && stat(r->o.db_path, &dst) == 0 && S_ISDIR(dst.st_mode)) {
        /* -o DIR: DIR/buildtrail.db, named as given, opened where DIR really is (SQLite
         * follows no link) */
        real_dir = realpath(r->o.db_path, NULL);
        char *in_dir = g_build_filename(r->o.db_path, DEFAULT_DB, NULL);
        g_free(r->o.db_path);
        r->o.db_path = in_dir;
    }
    r->db_path = real_dir ? g_build_filename(real_dir, DEFAULT_DB, NULL)
                 : !r->o.db_path ? g_build_filename(r->cwd, DEFAULT_DB, NULL)
                 : g_path_is_absolute(r->o.db_path) ? g_strdup(r->o.db_path)
                                                    : g_build_filename(r->cwd, r->o.db_path, NULL);
    if (refuse_if_watched(r, r->db_path, "write the trace elsewhere with -o FILE") < 0)
        return -1;
    {
        g_autofree char *err = NULL;
        int e = tracedb_create_pending(r->db_path, r->o.output_mode, &r->pending, &r->db, &err);
        if (e < 0) {
            fprintf(stderr, "buildtrail run: cannot write the trace %s: %s; %s\n", r->db_path, err,
                    e == -EEXIST ? "remove it or choose another file with -o"
                    : e == -EBUSY ? "wait for that run, or choose another file with -o"
                    : e == -ENOSPC || e == -EDQUOT
                        ? "free space there, or choose another place with -o FILE"
                        : "choose a writable place with -o FILE");
            return -1;
        }
        r->db_lock_fd = r->pending.lock_fd; /* r->pending's */
    }
    r->db_dir = g_path_get_dirname(r->db_path);
    r->db_base = g_path_get_basename(r->db_path);
    r->pending_base = g_path_get_basename(r->pending.tmp_path);
    if (stat(r->db_dir, &r->db_dir_st) < 0)
        memset(&r->db_dir_st, 0, sizeof r->db_dir_st);
    if (fstat(r->db_lock_fd, &r->db_st) < 0)
        memset(&r->db_st, 0, sizeof r->db_st);

    r->tv = (struct run_tree *)(void *)r->trees->data;
    r->n_trees = (int)r->trees->len;
    {
        g_autofree char *err = NULL;
        char host[256] = "";
        if (gethostname(host, sizeof host - 1) < 0)
            host[0] = '\0';
        g_autoptr(GBytes) args = join_argv(r->o.argv, (char *const *)r->o.argv_redact->pdata);
        /* Every mounted tree, and the workspace where it lies inside one of them. */
        struct tracedb_tree rows[2 * NS_MAX_TREES + 1];
        int n_rows = 0;
        for (int i = 0; i < r->n_trees && i < NS_MAX_TREES; i++)
            rows[n_rows++] = (struct tracedb_tree){r->tv[i].path, role_names[r->tv[i].role]};
        if (r->workspace_nested)
            rows[n_rows++] = (struct tracedb_tree){r->cwd, role_names[ROLE_WORKSPACE]};
        for (guint i = 0; i < r->watched->len && i < NS_MAX_TREES; i++)
            rows[n_rows++] = (struct tracedb_tree){r->watched->pdata[i], "watched"};
        gsize args_len = 0;
        const void *args_data = g_bytes_get_data(args, &args_len);
        struct tracedb_run_start start = {
            .argv = args_data, .argv_len = args_len, .cwd = r->cwd,
            .start_realtime_ns = realtime_ns(), .start_ns = rec_now_ns(),
            .uid = getuid(), .gid = getgid(), .hostname = host, .version = BT_VERSION,
            .options = r->o.options, .trees = rows, .n_trees = n_rows};
        if (tracedb_write_run_start(r->db, &start, &err) < 0) {
            fprintf(stderr, "buildtrail run: cannot write the trace %s: %s; choose a writable place "
                            "with -o FILE\n", r->db_path, err);
            return -1;
        }
    }
    /* Opened again, in place, once the build's command has started (publish_trace). */
    sqlite3_close(r->db);
    r->db = NULL;
    return 0;
}

/* The build's command has started: the new trace takes the old one's place and the recorder
 * writes what it has queued.  0, or -1 after one line on stderr (the build is then stopped:
 * it would run unrecorded). */
static int publish_trace(struct run *r)
{
    g_autofree char *err = NULL;
    sqlite3 *db = NULL;
    int e = tracedb_publish(&r->pending, &db, &r->replaced, &err);
    if (e == 0) {
        r->published = true;
        if (rec_attach(r->rec, db) == 0)
            return 0;
        r->db = db; /* still ours: the run's end is written to it */
        err = g_strdup("cannot prepare the recorder's statements on it");
        e = -EIO;
    }
    fprintf(stderr, "buildtrail run: cannot put the trace in place at %s: %s; stopping the build, "
                    "which would run unrecorded\n", r->db_path, err);
    r->stop_reason = g_strdup_printf("the trace could not be put in place: %s", err);
    return -1;
}

/* The namespace plan (ns.h): id maps, mount options, the trees in mount order with their
 * real directories' fds, and the channels to setup. */
static int prepare_namespace(struct run *r)
{
    r->plan.user_namespace = r->user_ns;
    snprintf(r->plan.uid_map, sizeof r->plan.uid_map, "%u %u 1\n", getuid(), getuid());
    snprintf(r->plan.gid_map, sizeof r->plan.gid_map, "%u %u 1\n", getgid(), getgid());
    r->plan.map_sync_fd = -1;
    if (r->user_ns && idmap_plan(getuid(), getgid(), &r->idm, &r->idmap_note) == 0) {
        if (pipe2(r->map_pipe, O_CLOEXEC) < 0) {
            r->idmap_note = g_strdup_printf("cannot create a pipe: %s", g_strerror(errno));
            idmap_free(&r->idm);
        } else {
            r->plan.map_sync_fd = r->map_pipe[0];
        }
    }
    /* No default_permissions option: as a mount option the kernel would judge by mode bits
     * alone, ignoring ACLs.  The daemon turns it on with ACLs enforced by accepting
     * FUSE_POSIX_ACL in INIT where the ids allow (fs_set_kernel_checks below); the real
     * filesystem judges each call as well, made with the caller's credentials
     * (fusefs/fs-creds.c, creds_enter). */
    snprintf(r->plan.fuse_options, sizeof r->plan.fuse_options,
             "rootmode=40000,user_id=%u,group_id=%u,allow_other", getuid(), getgid());
    r->plan.staging = r->staging;
    r->plan.watch_fd = r->watch_fd;
    r->plan.watch_mask = SYSWATCH_MARK_MASK;
    r->plan.guard_filter = r->guard_filter;
    r->plan.guard_len =
        r->watch_fd >= 0 ? (unsigned short)nsguard_filter(r->guard_filter, false) : 0;
    r->plan.init_filter = r->init_filter;
    r->plan.init_len = r->watch_fd >= 0 ? (unsigned short)nsguard_filter(r->init_filter, true) : 0;
    for (guint i = 0; i < r->watched->len && i < NS_MAX_TREES; i++)
        r->plan.watched_paths[r->plan.n_watched++] = r->watched->pdata[i];
    for (guint i = 0; i < r->watch_marks->len && i < NS_MAX_WATCH_MARKS; i++)
        r->plan.watch_marks[r->plan.n_watch_marks++] = r->watch_marks->pdata[i];
    r->plan.n_trees = r->n_trees;
    r->plan.cwd = r->cwd;
    r->plan.argv = r->o.argv;
    for (int i = 0; i < r->n_trees; i++) {
        r->plan.tree_paths[i] = r->tv[i].path;
        /* The private /tmp shadows /tmp: it gets /tmp's flags, not those of its backing. */
        r->plan.tree_flags[i] = mount_flags_of(r->tv[i].role == ROLE_TMP ? "/tmp" : r->tv[i].backing);
        r->plan.mount_order[i] = i;
        r->fs_trees[i].path = r->tv[i].path;
        r->fs_trees[i].fd = open(r->tv[i].backing, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (r->fs_trees[i].fd < 0) {
            fprintf(stderr, "buildtrail run: cannot open %s: %s\n", r->tv[i].backing, g_strerror(errno));
            for (int k = 0; k < i; k++)
                close(r->fs_trees[k].fd);
            return -1;
        }
    }
    g_qsort_with_data(r->plan.mount_order, r->n_trees, sizeof(int), compare_tree_depth, r->tv);

    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, r->sv) < 0 ||
        pipe2(r->rp, O_CLOEXEC) < 0) {
        fprintf(stderr, "buildtrail run: cannot create a pipe: %s\n", g_strerror(errno));
        for (int i = 0; i < r->n_trees; i++)
            close(r->fs_trees[i].fd);
        return -1;
    }
    r->plan.sock_fd = r->sv[1];
    r->plan.report_fd = r->rp[1];
    return 0;
}

/* Signals (blocked, to a signalfd), the recorder with its hooks, the process table (with
 * process events when the kernel gives them) and the filesystem. */
static int prepare_serving(struct run *r)
{
    /* Signals: the daemon handles them on a signalfd; every thread inherits the mask. */
    sigemptyset(&r->handled);
    sigaddset(&r->handled, SIGINT);
    sigaddset(&r->handled, SIGTERM);
    sigaddset(&r->handled, SIGHUP);
    sigaddset(&r->handled, SIGQUIT);
    sigaddset(&r->handled, SIGCHLD);
    sigprocmask(SIG_BLOCK, &r->handled, &r->old_mask);
    r->signals_blocked = true;
    r->plan.sigmask = r->old_mask;
    /* a closed stdout becomes EPIPE for the writer, see fusefs/fs-vroot.c */
    r->plan.sigpipe_ignored = signal(SIGPIPE, SIG_IGN) == SIG_IGN;
    r->sigfd = signalfd(-1, &r->handled, SFD_CLOEXEC);

    rec_start(&r->rec, NULL); /* its trace comes when the build's command starts */
    if (!r->rec) {
        fprintf(stderr, "buildtrail run: cannot start the recorder for %s\n", r->db_path);
        for (int i = 0; i < r->n_trees; i++)
            close(r->fs_trees[i].fd);
        return -1;
    }
    r->db = NULL; /* the writer thread owns it now */
    r->watch.db_path = r->db_path;
    r->watch.wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (r->watch.wake_fd < 0) {
        fprintf(stderr, "buildtrail run: cannot create an eventfd: %s\n", g_strerror(errno));
        for (int i = 0; i < r->n_trees; i++)
            close(r->fs_trees[i].fd);
        return -1;
    }
    rec_set_hooks(r->rec, &(struct rec_hooks){on_disk_full, on_write_failed, &r->watch});
    r->procs = proc_table_new(r->rec);
    for (guint i = 0; i < r->o.env_redact->len; i++)
        proc_table_add_env_redact(r->procs, r->o.env_redact->pdata[i]);
    for (guint i = 0; i + 1 < r->o.argv_redact->len; i++)
        proc_table_add_argv_redact(r->procs, r->o.argv_redact->pdata[i]);
    /* Before the spawn, so that no fork of the build happens before the subscription.  Without
     * events the tree is partial and runs.process_tree says so.  BUILDTRAIL_NO_PROC_EVENTS=1
     * forces that /proc-only mode (tests use it to keep the fallback exercised). */
    if (g_strcmp0(g_getenv("BUILDTRAIL_NO_PROC_EVENTS"), "1") != 0)
        proc_table_enable_events(r->procs);
    r->vers = vers_new(r->rec, 0, r->o.hash_limit);
    struct fs_config fcfg = {
        .trees = r->fs_trees,
        .n_trees = r->n_trees,
        .out_fd = STDOUT_FILENO,
        .err_fd = STDERR_FILENO,
        .rec = r->rec,
        .procs = r->procs,
        .vers = r->vers,
        /* The trace (with its SQLite side files) and buildtrail's private directory, which
         * lie in traced trees. */
        .hide = {{r->db_dir_st.st_dev, r->db_dir_st.st_ino, r->db_base, true},
                 {r->scratch_dir_st.st_dev, r->scratch_dir_st.st_ino, r->scratch_base, false},
                 {r->db_dir_st.st_dev, r->db_dir_st.st_ino, r->pending_base, true}},
        /* Every change to a traced tree during the build comes through this mount, so the
         * kernel's entry and attribute caches can be trusted for long (docs/performance.md). */
        .timeout = 60.0,
        .present_ids_as_own = r->user_ns,
        .kernel_checks = !r->user_ns, /* user namespace: decided once the ids are mapped */
        .cache_lookups = r->o.cache_lookups,
        .debug = g_strcmp0(g_getenv("BUILDTRAIL_DEBUG"), "fs") == 0,
        /* For benchmarks: BUILDTRAIL_NO_KILLPRIV_V2=1 keeps the kernel's getxattr per write. */
        .no_killpriv_v2 = g_strcmp0(g_getenv("BUILDTRAIL_NO_KILLPRIV_V2"), "1") == 0,
    };
    r->fs = fs_new(&fcfg);
    if (r->watch_fd >= 0) {
        int e = 0;
        /* The watcher owns the group; setup inherits it (same number) to make the marks. */
        g_autofree const char **served = g_new0(const char *, r->n_trees + 1);
        for (int i = 0; i < r->n_trees; i++)
            served[i] = r->tv[i].path;
        g_ptr_array_add(r->watched, NULL); /* terminated for the watcher, then not */
        r->syswatch = syswatch_start(r->watch_fd, r->rec, r->procs, r->vers,
                                     (char *const *)r->watched->pdata, (char *const *)served, &e);
        g_ptr_array_remove_index(r->watched, r->watched->len - 1);
        if (!r->syswatch) {
            r->watch_fd = -1;
            fprintf(stderr, "buildtrail run: cannot start watching the system trees: %s\n",
                    g_strerror(-e));
            return -1;
        }
    }
    return 0;
}

/* Prepare: the private directory (and private /tmp), the trace with its run row, the
 * namespace plan and the trees' fds, the signal mask, the recorder, the process table and the
 * filesystem.  0, or -1 after one line on stderr. */
static int run_prepare(struct run *r)
{
    if (prepare_private_dirs(r) < 0 ||
        refuse_if_watched(r, r->scratch.path, "set TMPDIR to a directory outside /usr, /etc "
                                              "and /opt") < 0 ||
        prepare_trace(r) < 0 || prepare_namespace(r) < 0)
        return -1;
    return prepare_serving(r);
}

static int64_t clock_ns(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
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

/* Serve: spawn the build's namespaces, map ids, serve FUSE, and wait for the build while
 * watching signals, setup's reports and the trace.  0, or -1 when the namespaces could not be
 * made (said on stderr; nothing to finish). */
static int run_serve(struct run *r)
{
    /* The process events' clock is CLOCK_MONOTONIC made BOOTTIME with an offset taken at
     * their start (procevents.c); take ours too before the build runs, so that setup's
     * monotonic kill time compares with their exit times even across a suspend. */
    r->mono_to_boot_ns = clock_ns(CLOCK_BOOTTIME) - clock_ns(CLOCK_MONOTONIC);
    r->setup = ns_spawn(&r->plan);
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
    close(r->sv[1]);
    r->sv[1] = -1;
    close(r->rp[1]);
    r->rp[1] = -1;
    if (r->map_pipe[0] >= 0) {
        close(r->map_pipe[0]);
        r->map_pipe[0] = -1;
    }
    if (r->setup > 0 && r->map_pipe[1] >= 0) {
        /* Map the namespace from outside (newuidmap), then let setup go on; if that fails,
         * setup maps our own ids only and files are shown as ours (fusefs/fs.h). */
        g_clear_pointer(&r->idmap_note, g_free);
        r->ids_mapped = idmap_apply(r->setup, &r->idm, &r->idmap_note) == 0;
        r->unmapped_groups = g_steal_pointer(&r->idm.unmapped_groups);
        if (r->ids_mapped) {
            struct fs_id_range u[FS_MAX_ID_RANGES], g[FS_MAX_ID_RANGES];
            int nu = inside_ranges(r->idm.uid_args, u), ng = inside_ranges(r->idm.gid_args, g);
            fs_set_inside_ids(r->fs, u, nu, g, ng);
        }
        char go = r->ids_mapped ? 'M' : 'S';
        if (write(r->map_pipe[1], &go, 1) != 1)
            r->ids_mapped = false; /* setup is gone; its report says why */
    }
    if (r->map_pipe[1] >= 0) {
        close(r->map_pipe[1]);
        r->map_pipe[1] = -1;
    }
    idmap_free(&r->idm);
    fs_set_present_ids_as_own(r->fs, r->user_ns && !r->ids_mapped);
    /* The kernel judges by the ids it sees: only where every file shows its real owner and
     * every group of the caller is mapped (fusefs/fs.h). */
    r->own_judge = find_own_judge(r);
    fs_set_kernel_checks(r->fs, (!r->user_ns || (r->ids_mapped && !r->unmapped_groups)) &&
                                    !r->own_judge &&
                                    /* for benchmarks and tests: the old behaviour */
                                    g_strcmp0(g_getenv("BUILDTRAIL_NO_KERNEL_CHECKS"), "1") != 0);
    if (r->setup < 0) {
        fprintf(stderr, "buildtrail run: cannot create the build's namespaces: %s; %s" DOCTOR_HINT "\n",
                g_strerror(-r->setup),
                r->user_ns ? "enable unprivileged user namespaces or run as root"
                        : "is this a container without CAP_SYS_ADMIN?");
        return -1;
    }
    proc_table_set_launcher(r->procs, r->setup, 0);

    r->failure = (struct ns_report){-1, 0, -1};
    r->have_status = false;
    r->interrupted = false;
    r->wait_status = 0;

    r->fuse_fd = ns_recv_fd(r->sv[0]);
    if (r->fuse_fd >= 0) {
        struct fuse_args args = FUSE_ARGS_INIT(0, NULL);
        fuse_opt_add_arg(&args, "buildtrail");
        r->se = fuse_session_new(&args, fs_operations(), sizeof(struct fuse_lowlevel_ops), r->fs);
        fuse_opt_free_args(&args);
        if (!r->se || fs_session_attach(r->fs, r->se, r->fuse_fd) != 0) {
            fputs("buildtrail run: cannot serve the FUSE connection (libfuse refused it)\n", stderr);
            kill(r->setup, SIGKILL);
        } else {
            r->fuse_fd = -1; /* the session owns it */
            r->loop.se = r->se;
            long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
            r->loop.max_threads = (int)MAX(16, 4 * ncpu);
            pthread_create(&r->loop_thread, NULL, loop_main, &r->loop);
            r->serving = true;
            if (r->plan.guard_len) {
                int gfd = ns_recv_fd(r->sv[0]), e = gfd;
                if (gfd >= 0 && !(r->guard = nsguard_start(gfd, &e)))
                    gfd = -1;
                if (gfd < 0 && e != -EPIPE) { /* EPIPE: setup failed, its report says why */
                    fprintf(stderr, "buildtrail run: cannot watch the build's mount calls: %s\n",
                            g_strerror(-e));
                    r->stop_reason = g_strdup("the build's mount calls could not be watched");
                    kill(r->setup, SIGKILL);
                }
            }
            pid_t init = 0;
            if (read_full(r->sv[0], &init, sizeof init) == 0)
                proc_table_set_launcher(r->procs, r->setup, init);
        }
    }

    /* --- wait for the build ------------------------------------------------------------- */
    r->setup_wait = 0;
    r->setup_done = false;
    bool reports_done = false;
    while (!r->setup_done || !reports_done) {
        struct pollfd pfd[3] = {{r->sigfd, POLLIN, 0}, {r->watch.wake_fd, POLLIN, 0}, {r->rp[0], POLLIN, 0}};
        int n = poll(pfd, reports_done ? 2 : 3, 1000);
        if (n < 0 && errno != EINTR)
            break;
        if (pfd[1].revents & POLLIN) {
            uint64_t v;
            if (read(r->watch.wake_fd, &v, sizeof v) < 0) {
                /* nothing to drain: a spurious wake */
            }
        }
        if (!r->stop_reason) {
            int werr = atomic_load(&r->watch.write_errno);
            if (werr) {
                r->stop_reason = g_strdup_printf("writing the trace failed: %s", g_strerror(werr));
            } else if (!r->watch.lost) {
                r->watch.lost = trace_file_problem(live_path(r), r->db_lock_fd, &r->db_st);
                if (r->watch.lost) {
                    fprintf(stderr, "buildtrail run: the trace %s %s while the build was running; "
                                    "stopping the build, whose record would be lost\n",
                            r->db_path, r->watch.lost);
                    r->stop_reason = g_strdup_printf("the trace file %s during the run", r->watch.lost);
                }
            }
            if (r->stop_reason)
                kill(r->setup, SIGKILL); /* init and the build's pid namespace die with it */
        }
        if (!reports_done && (pfd[2].revents & (POLLIN | POLLHUP))) {
            struct ns_report rep;
            int e = read_full(r->rp[0], &rep, sizeof rep);
            if (e < 0) {
                reports_done = true;
            } else if (rep.step == NS_STEP_STATUS) {
                r->have_status = true;
                r->wait_status = rep.value;
            } else if (rep.step == NS_STEP_STARTED) {
                if (!r->published && !r->stop_reason && publish_trace(r) < 0)
                    kill(r->setup, SIGKILL);
            } else if (rep.step == NS_STEP_KILL_LEFT) {
                r->kill_left_ns = rep.time_ns + r->mono_to_boot_ns;
            } else if (r->failure.step < 0) {
                r->failure = rep;
            }
        }
        if (pfd[0].revents & POLLIN) {
            struct signalfd_siginfo si;
            if (read(r->sigfd, &si, sizeof si) != sizeof si)
                continue;
            if (si.ssi_signo == SIGCHLD) {
                if (!r->setup_done && waitpid(r->setup, &r->setup_wait, WNOHANG) == r->setup)
                    r->setup_done = true;
                continue;
            }
            r->interrupted = true;
            if (atomic_load(&r->watch.disk_full) && !r->stop_reason) {
                /* The build is paused on a full disk and the user asked to stop: give up. */
                r->stop_reason = g_strdup("stopped while waiting for disk space for the trace");
                rec_abandon(r->rec);
                kill(r->setup, SIGKILL);
                continue;
            }
            /* A terminal's Ctrl-C already reached the build (same process group); a signal
             * sent to buildtrail alone is passed on to the build's root process. */
            pid_t root = proc_table_root_pid(r->procs);
            if ((si.ssi_code == SI_USER || si.ssi_code == SI_QUEUE || si.ssi_signo == SIGTERM ||
                 si.ssi_signo == SIGHUP) &&
                root > 0)
                kill(root, (int)si.ssi_signo);
            else if (root <= 0 && r->setup > 0 && si.ssi_code == SI_USER)
                kill(r->setup, SIGKILL); /* the build never started: stop setting it up */
        }
    }
    return 0;
}

/* Mark the exits by SIGKILL at or after `since_ns` (when setup killed the build's pid
 * namespace): processes the build left running.  0 or -1. */
static int mark_killed_at_end(sqlite3 *db, int64_t since_ns)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, tracedb_sql(TQ_MARK_KILLED_AT_END), -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 1, since_ns);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* The build's command never started: its trace is not kept and the old one is left in place.
 * "no trace kept: the previous trace FILE is left as it was" (g_free it). */
static char *not_replaced(const struct run *r)
{
    const char *shown = r->o.db_path ? r->o.db_path : DEFAULT_DB;
    struct stat st;
    bool there = lstat(r->db_path, &st) == 0;
    GString *line = g_string_new(there ? "no trace kept: the previous trace " : "no trace written to ");
    text_escape(line, shown, strlen(shown));
    if (there)
        g_string_append(line, " is left as it was");
    return g_string_free(line, FALSE);
}

/* Finish: stop serving, settle the exit status and why the run failed, and write the run's
 * end; sets r->status. */
static void run_finish(struct run *r)
{
    /* --- finish ------------------------------------------------------------------------- */
    r->loop_running = false;
    if (r->serving) {
        if (!loop_wait(&r->loop, 10)) {
            /* Something outside the build's namespaces holds the mount (an fd passed out over
             * a socket).  Its loop threads may still be serving: leave the session and the
             * filesystem to process exit rather than free them under those threads. */
            fputs("buildtrail run: warning: the FUSE mount outlived the build; its remaining "
                  "requests are not recorded\n", stderr);
            fuse_session_exit(r->se);
            r->loop_running = true;
        } else {
            pthread_join(r->loop_thread, NULL);
        }
        fs_flush_open_handles(r->fs);
    }
    proc_table_stop_events(r->procs, 5000);
    r->tree_note = proc_table_tree_note(r->procs);
    if (r->syswatch) {
        g_autofree char *lost = NULL;
        r->watch_note = syswatch_stop(r->syswatch, &lost); /* after the last exec events */
        if (lost) { /* the trace misses accesses: say so where queries look */
            char *note = tracedb_tree_complete(r->tree_note)
                             ? g_strdup_printf("incomplete: %s", lost)
                             : g_strdup_printf("incomplete: %s; %s", lost,
                                               r->tree_note ? r->tree_note : "not recorded");
            g_free(r->tree_note);
            r->tree_note = note;
        }
        r->syswatch = NULL;
        r->watch_fd = -1;
    }
    g_autofree char *refused = NULL;
    r->unseen = nsguard_stop(r->guard, &refused); /* no build process is left */
    r->guard = NULL;
    if (refused)
        fprintf(stderr, "buildtrail run: warning: %s\n", refused);

    r->exit_status = -1;
    r->term_signal = 0;
    if (r->have_status) {
        if (WIFEXITED(r->wait_status))
            r->exit_status = WEXITSTATUS(r->wait_status);
        else if (WIFSIGNALED(r->wait_status)) {
            r->term_signal = WTERMSIG(r->wait_status);
            r->exit_status = 128 + r->term_signal;
        }
    }
    /* Why the run failed, if it did: the first of what buildtrail did, what its helpers
     * reported, and how they ended. */
    if (r->stop_reason) {
        r->failure_text = g_strdup_printf("buildtrail stopped the build: %s", r->stop_reason);
        r->exit_status = RUN_EXIT_SETUP_FAILED;
    } else if (r->failure.step == NS_STEP_INIT_DIED) {
        r->failure_text = g_strdup_printf("the build's pid-namespace init was killed by signal %d "
                                       "(from outside the build), which ended the build",
                                       r->failure.value);
        fprintf(stderr, "buildtrail run: %s\n", r->failure_text);
        r->exit_status = RUN_EXIT_SETUP_FAILED;
    } else if (r->failure.step >= 0) {
        g_autofree char *kept = r->published ? NULL : not_replaced(r);
        g_autofree char *tail = kept ? g_strdup_printf("; %s", kept) : NULL;
        report_setup_failure(&r->failure, r->tv, &r->plan, r->o.argv, tail);
        r->said_not_replaced = !r->published;
        if (r->failure.step != NS_STEP_EXEC) {
            r->exit_status = RUN_EXIT_SETUP_FAILED;
            r->failure_text = g_strdup_printf("cannot %s: %s", ns_step_describe(r->failure.step),
                                           g_strerror(r->failure.value));
        }
    } else if (!r->have_status) {
        r->failure_text = r->setup_done && WIFSIGNALED(r->setup_wait)
                           ? g_strdup_printf("the build's setup process was killed by signal "
                                             "%d, which ended the build", WTERMSIG(r->setup_wait))
                           : g_strdup("the build's launcher ended without reporting the "
                                      "build's status");
        fprintf(stderr, "buildtrail run: %s\n", r->failure_text);
        r->exit_status = RUN_EXIT_SETUP_FAILED;
    }

    r->stats = fs_stats_summary(r->fs);
    uint64_t events = rec_event_count(r->rec);
    sqlite3 *recorded = NULL;
    int rec_err = rec_stop(r->rec, &recorded);
    if (recorded)
        r->db = recorded;
    if (rec_err && r->db) {
        /* Make room for the run's end: move what was committed into the trace and empty the
         * WAL (a file-size limit or quota may then allow the few bytes of the end record). */
        (void)tracedb_exec(r->db, tracedb_sql(TQ_CHECKPOINT), NULL);
    }
    if (!rec_err && r->db && r->kill_left_ns && mark_killed_at_end(r->db, r->kill_left_ns) < 0)
        rec_err = -EIO;
    if (rec_err && !r->failure_text)
        r->failure_text = g_strdup_printf("writing the trace failed: %s; events after the "
                                       "failure are missing", g_strerror(-rec_err));
    const char *state = r->failure_text ? TRACEDB_RUN_FAILED
                        : r->interrupted ? TRACEDB_RUN_INTERRUPTED
                                      : TRACEDB_RUN_FINISHED;
    struct rusage self_usage;
    getrusage(RUSAGE_SELF, &self_usage);
    r->ids_note =
        !r->user_ns ? g_strdup("")
        : r->ids_mapped
            ? g_strdup_printf("ids=mapped (others' files show their owners; chown/chgrp as "
                              "natively)%s%s; ", r->unmapped_groups ? ", supplementary groups "
                              "shown as nogroup inside (no subgid line maps them): " : "",
                              r->unmapped_groups ? r->unmapped_groups : "")
            : g_strdup_printf("ids=own only (others' files show as yours, chown/chgrp to other ids "
                              "fail with EINVAL): %s; ", r->idmap_note ? r->idmap_note : "?");
    g_autofree char *system_note =
        r->watch_note ? g_strdup_printf("%s; ", r->watch_note)
        : r->o.system && r->watch_why_not
            ? g_strdup_printf("system_trees=served (%s); ", r->watch_why_not)
            : g_strdup("");
    g_autofree char *unseen_note = r->unseen ? g_strdup_printf("unseen=%s; ", r->unseen)
                                             : g_strdup("");
    r->notes = g_strdup_printf("%sevents=%llu; daemon_maxrss_kb=%ld; daemon_peak_images=%u; "
                            "killpriv_v2=%d; kernel_checks=%d%s%s%s; %s%s%srequests: %s",
                            unseen_note,
                            (unsigned long long)events, self_usage.ru_maxrss,
                            r->procs ? proc_table_peak_images(r->procs) : 0,
                            r->fs ? fs_killpriv_v2(r->fs) : 0, fs_kernel_checks(r->fs),
                            r->own_judge ? " (permissions judged by the filesystem: " : "",
                            r->own_judge ? r->own_judge : "", r->own_judge ? ")" : "",
                            system_note, r->ids_note,
                            r->o.cache_lookups
                                ? "cache_lookups=1 (missing names, symlinks: first process only); "
                                : "",
                            r->stats);
    struct tracedb_run_end end = {
        .end_ns = rec_now_ns(), .exit_status = r->exit_status, .term_signal = r->term_signal,
        .state = state, .root_process_id = proc_table_root_id(r->procs), .notes = r->notes,
        .process_tree = r->tree_note, .failure = r->failure_text};
    if (r->db && tracedb_write_run_end(r->db, &end, NULL) < 0 && !rec_err)
        rec_err = -EIO;
    /* A self-contained file from here on; if a query still has it open it stays in WAL mode,
     * which loses nothing. */
    if (r->db)
        (void)tracedb_seal(r->db);
    if (rec_err) {
        fprintf(stderr, "buildtrail run: the trace %s is incomplete: writing it failed: %s%s\n",
                r->db_path, g_strerror(-rec_err),
                rec_err == -ENOSPC || rec_err == -EDQUOT
                    ? "; free space or choose another place with -o" : "");
        if (r->exit_status == 0)
            r->exit_status = 1;
    }
    if (!r->watch.lost)
        r->watch.lost = trace_file_problem(live_path(r), r->db_lock_fd, &r->db_st);
    if (r->watch.lost) {
        fprintf(stderr, "buildtrail run: the trace %s %s during the run: this run's record is "
                        "lost\n", r->db_path, r->watch.lost);
        if (r->exit_status == 0)
            r->exit_status = 1;
    }
    r->status = r->exit_status < 0 ? RUN_EXIT_SETUP_FAILED : r->exit_status;

    if (r->loop_running) { /* see above: still in use by the loop threads */
        r->se = NULL;
        r->fs = NULL;
        r->procs = NULL;
        r->rec = NULL;
    }
}

/* The top directory of an absolute path ("/usr" of "/usr/bin/cc"). */
static char *top_dir(const char *path)
{
    const char *slash = strchr(path + 1, '/');
    return slash ? g_strndup(path, slash - path) : g_strdup(path);
}

/* What the build ran from trees that were not traced: "/usr (41 programs)", one clause per
 * top directory; with the fix for the system trees.  NULL when there is none. */
static char *untraced_use(struct run *r)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(r->db, tracedb_sql(TQ_EXECUTABLES), -1, &st, NULL) != SQLITE_OK)
        return NULL;
    GHashTable *tops = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *exe = (const char *)sqlite3_column_text(st, 0);
        if (!exe || exe[0] != '/' || traced_already(r, exe) || watched_already(r, exe))
            continue;
        char *top = top_dir(exe);
        g_hash_table_insert(tops, top, GINT_TO_POINTER(GPOINTER_TO_INT(
                                           g_hash_table_lookup(tops, top)) + 1));
    }
    sqlite3_finalize(st);
    GString *out = g_string_new(NULL);
    bool system = false;
    GList *keys = g_list_sort(g_hash_table_get_keys(tops), (GCompareFunc)strcmp);
    for (GList *k = keys; k; k = k->next) {
        int n = GPOINTER_TO_INT(g_hash_table_lookup(tops, k->data));
        g_string_append_printf(out, "%s%s (ran %d program%s from it)", out->len ? ", " : "",
                               (char *)k->data, n, n == 1 ? "" : "s");
        system |= name_in((char *)k->data + 1, system_tops, G_N_ELEMENTS(system_tops));
    }
    g_list_free(keys);
    g_hash_table_destroy(tops);
    for (guint i = 0; i < r->not_traced->len; i++)
        g_string_append_printf(out, "%s%s (more top directories than buildtrail can mount)",
                               out->len ? ", " : "", (char *)r->not_traced->pdata[i]);
    if (system)
        g_string_append(out, "; --system records what the build read in the system trees");
    return out->len ? g_string_free(out, FALSE) : (g_string_free(out, TRUE), NULL);
}

/* "; N processes left running by the build, killed at its end: ARGV, ARGV, ARGV, ...": at most
 * three named (the table is small: nothing the build left is rare). */
static void killed_at_end(struct run *r, GString *line)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(r->db, tracedb_sql(TQ_KILLED_AT_END), -1, &st, NULL) != SQLITE_OK)
        return;
    GString *names = g_string_new(NULL);
    int n = 0, rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (++n > 3)
            continue;
        const char *argv = sqlite3_column_blob(st, 1);
        g_string_append(names, n > 1 ? ", " : "");
        if (argv)
            text_argv(names, argv, (size_t)sqlite3_column_bytes(st, 1));
        else
            g_string_append(names, "(argv unknown)");
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        g_string_append(line, "; cannot read which processes were killed at the end");
    else if (n)
        g_string_append_printf(line, "; %d process%s left running by the build, killed at its "
                               "end: %s%s", n, n == 1 ? "" : "es", names->str,
                               n > 3 ? ", ..." : "");
    g_string_free(names, TRUE);
}

/* "buildtrail run: replaced the trace of 'make -j2' (started ..., finished, exit 0)": which
 * trace this run's replaced, when it did. */
static void print_replaced(const struct run *r)
{
    const struct tracedb_replaced *o = &r->replaced;
    if (!o->existed)
        return;
    GString *line = g_string_new("buildtrail run: ");
    if (o->empty) {
        g_string_append(line, "replaced an empty file");
    } else if (!o->argv && !o->state) {
        g_string_append(line, "replaced an earlier trace (its run not recorded)");
    } else {
        g_string_append(line, "replaced the trace of ");
        if (o->argv)
            text_argv(line, o->argv, o->argv_len);
        else
            g_string_append(line, "(command not recorded)");
        char when[32];
        g_string_append(line, " (");
        if (o->start_realtime_ns && text_iso_utc(o->start_realtime_ns, when))
            g_string_append_printf(line, "started %s, ", when);
        /* "running" in a trace nobody records (publishing checked that) is a killed run */
        g_string_append(line, !o->state ? "state not recorded"
                              : !strcmp(o->state, "running") ? "killed before it finished"
                                                             : o->state);
        if (o->exit_status >= 0)
            g_string_append_printf(line, ", exit %d", o->exit_status);
        g_string_append_c(line, ')');
    }
    fprintf(stderr, "%s\n", line->str);
    g_string_free(line, TRUE);
}

/* "; the build could not remove DIR (Directory not empty) because the trace lay in it: ...":
 * an open trace makes the removal of a directory holding it fail (the daemon holds it, and
 * the build cannot see it to remove it first). */
static void removal_blocked(struct run *r, GString *line)
{
    g_autofree char *dir = NULL, *err = NULL;
    if (tracedb_removal_blocked(r->db, r->db_path, &dir, &err) < 0) {
        g_string_append_printf(line, "; cannot read which directories the build removed: %s", err);
        return;
    }
    if (!dir)
        return;
    /* Beside the build's directory's subtree that holds it (rm -rf out fails on out/sub
     * first), else beside the directory itself. */
    g_autofree char *parent = tracedb_path_below(r->cwd, dir) ? g_strdup(r->cwd)
                                                               : g_path_get_dirname(dir);
    g_autofree char *outside = g_build_filename(parent, r->db_base, NULL);
    g_string_append(line, "; the build could not remove ");
    text_escape(line, dir, strlen(dir));
    g_string_append(line, " (Directory not empty) because the trace lay in it: write the trace "
                          "outside the directories the build deletes (-o ");
    text_escape(line, outside, strlen(outside));
    g_string_append_c(line, ')');
}

/* One line on stderr at the end of a run: what the trace holds, where, how complete, what the
 * build left running (killed), and what the build used that it does not hold. */
static void print_summary(struct run *r)
{
    if (!r->db)
        return;
    struct tracedb_counts c;
    g_autofree char *err = NULL;
    if (tracedb_count(r->db, TRACEDB_SCHEMA_VERSION, &c, &err) != SQLITE_OK) {
        fprintf(stderr, "buildtrail run: cannot count what the trace %s holds: %s\n", r->db_path,
                err);
        return;
    }
    GString *line = g_string_new("buildtrail run: ");
    g_string_append_printf(line, "%" G_GINT64_FORMAT " process%s (%" G_GINT64_FORMAT
                                 " program%s run), %" G_GINT64_FORMAT " file%s read, %"
                                 G_GINT64_FORMAT " written, ",
                           c.processes, c.processes == 1 ? "" : "es", c.images,
                           c.images == 1 ? "" : "s", c.files_read, c.files_read == 1 ? "" : "s",
                           c.files_written);
    text_size(line, c.output_bytes);
    g_string_append(line, " of output; trace ");
    const char *shown = r->o.db_path ? r->o.db_path : DEFAULT_DB;
    text_escape(line, shown, strlen(shown));
    struct stat st;
    if (stat(r->db_path, &st) == 0) {
        g_string_append(line, " (");
        text_size(line, st.st_size);
        g_string_append_c(line, ')');
    }
    bool tree_complete = tracedb_tree_complete(r->tree_note);
    if (r->failure_text || r->watch.lost)
        g_string_append(line, ", INCOMPLETE (see above)");
    else if (r->interrupted)
        g_string_append(line, ", INCOMPLETE: the build was interrupted");
    else if (r->tree_note && g_str_has_prefix(r->tree_note, "incomplete: "))
        g_string_append_printf(line, ", INCOMPLETE: %s", r->tree_note + 12);
    else if (!tree_complete)
        g_string_append_printf(line, ", INCOMPLETE: process tree %s",
                               r->tree_note ? r->tree_note : "not recorded");
    else if (r->unseen)
        g_string_append_printf(line, ", INCOMPLETE: %s", r->unseen);
    else
        g_string_append(line, ", complete");
    killed_at_end(r, line);
    removal_blocked(r, line);
    g_autofree char *untraced = untraced_use(r);
    if (untraced)
        g_string_append_printf(line, "; not traced: %s", untraced);
    if (r->ids_mapped && r->unmapped_groups)
        g_string_append_printf(line, "; groups not mapped inside (shown as nogroup): %s "
                                     "('buildtrail doctor' says how to map them)",
                               r->unmapped_groups);
    fprintf(stderr, "%s\n", line->str);
    g_string_free(line, TRUE);
    print_replaced(r);
}

/* Undo whatever the stages did, in reverse. */
static void run_cleanup(struct run *r)
{
    if (r->syswatch) /* the build never ran: nothing to record */
        g_free(syswatch_stop(r->syswatch, NULL));
    else if (r->watch_fd >= 0)
        close(r->watch_fd);
    g_free(nsguard_stop(r->guard, NULL));
    r->guard = NULL;
    if (r->signals_blocked) {
        if (r->se)
            fuse_session_destroy(r->se);
        r->se = NULL;
        fs_free(r->fs);
        vers_free(r->vers);
        proc_table_free(r->procs);
        rec_free(r->rec);
        sigprocmask(SIG_SETMASK, &r->old_mask, NULL);
    }
    if (r->db)
        sqlite3_close(r->db);
    if (r->watch.wake_fd >= 0)
        close(r->watch.wake_fd);
    g_free(r->watch.lost);
    if (r->fuse_fd >= 0)
        close(r->fuse_fd);
    for (int i = 0; i < 2; i++) {
        if (r->sv[i] >= 0)
            close(r->sv[i]);
        if (r->rp[i] >= 0)
            close(r->rp[i]);
        if (r->map_pipe[i] >= 0)
            close(r->map_pipe[i]);
    }
    if (r->sigfd >= 0)
        close(r->sigfd);
    /* After the trace is closed: another run may replace it now.  Never published (the build's
     * command did not start): removed, the old trace left as it was. */
    tracedb_pending_discard(&r->pending);
    tracedb_replaced_clear(&r->replaced);
    g_free(r->pending_base);
    scratch_remove(&r->scratch);
    idmap_free(&r->idm);
    for (guint k = 0; k < r->trees->len; k++) {
        g_free(g_array_index(r->trees, struct run_tree, k).path);
        g_free(g_array_index(r->trees, struct run_tree, k).backing);
    }
    g_array_free(r->trees, TRUE);
    g_ptr_array_free(r->o.trace_dirs, TRUE);
    g_ptr_array_free(r->o.env_redact, TRUE);
    g_ptr_array_free(r->o.argv_redact, TRUE);
    g_free(r->o.db_path);
    g_free(r->o.options);
    g_ptr_array_free(r->not_traced, TRUE);
    g_ptr_array_free(r->watched, TRUE);
    g_ptr_array_free(r->watch_marks, TRUE);
    g_free(r->watch_why_not);
    g_free(r->watch_note);
    g_free(r->unseen);
    g_free(r->db_path);
    g_free(r->db_dir);
    g_free(r->db_base);
    g_free(r->staging);
    g_free(r->scratch_base);
    g_free(r->stats);
    g_free(r->notes);
    g_free(r->tree_note);
    g_free(r->stop_reason);
    g_free(r->failure_text);
    g_free(r->idmap_note);
    g_free(r->ids_note);
    g_free(r->unmapped_groups);
    g_free(r->own_judge);
}

int run_main(int argc, char **argv)
{
    struct run *r = g_new0(struct run, 1);
    r->o = (struct run_opts){.trace_dirs = g_ptr_array_new_with_free_func(g_free),
                             .env_redact = g_ptr_array_new_with_free_func(g_free),
                             .argv_redact = g_ptr_array_new_with_free_func(g_free),
                             .hash_limit = DEFAULT_HASH_LIMIT, .output_mode = 0600};
    g_ptr_array_add(r->o.argv_redact, NULL);
    int pr = parse_args(argc, argv, &r->o);
    if (pr != 0) {
        g_ptr_array_free(r->o.trace_dirs, TRUE);
        g_ptr_array_free(r->o.env_redact, TRUE);
        g_ptr_array_free(r->o.argv_redact, TRUE);
        g_free(r->o.db_path);
        g_free(r->o.options);
        g_free(r);
        return pr > 0 ? 0 : 2;
    }
    r->status = RUN_EXIT_SETUP_FAILED;
    r->trees = g_array_new(FALSE, TRUE, sizeof(struct run_tree));
    r->not_traced = g_ptr_array_new_with_free_func(g_free);
    r->watched = g_ptr_array_new_with_free_func(g_free);
    r->watch_marks = g_ptr_array_new_with_free_func(g_free);
    r->watch_fd = -1;
    r->sv[0] = r->sv[1] = r->rp[0] = r->rp[1] = r->map_pipe[0] = r->map_pipe[1] = -1;
    r->sigfd = r->fuse_fd = r->db_lock_fd = r->pending.lock_fd = -1;
    r->scratch = (struct scratch){NULL, -1};
    r->watch.wake_fd = -1;
    r->loop = (struct loop_ctx){.lock = PTHREAD_MUTEX_INITIALIZER,
                                .cond = PTHREAD_COND_INITIALIZER};
    if (run_plan(r) == 0 && run_prepare(r) == 0 && run_serve(r) == 0) {
        run_finish(r);
        if (!r->published && !r->said_not_replaced) {
            g_autofree char *kept = not_replaced(r);
            fprintf(stderr, "buildtrail run: %s: %s\n",
                    r->stop_reason ? "the build was stopped before its trace was in place"
                                   : "the build's command did not start", kept);
        } else if (r->published && !r->o.quiet)
            print_summary(r);
    }
    int status = r->status;
    run_cleanup(r);
    g_free(r);
    return status;
}
