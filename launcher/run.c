/* run — see run.h.  The command line and the order of things: plan (plan.h: what to trace;
 * engine.h: whether the system trees are watched), prepare (spawn.h: the private directory and
 * the namespace plan; trace.h: the trace; engine.h: the capture engine and the filesystem),
 * serve (spawn.h: setup spawned, ids mapped; serve.h: FUSE served, the build waited for),
 * finish (how it ended, the run's end, the summary), and cleanup, whichever stage stopped. */
#include "run.h"

#include "engine.h"
#include "fs.h"
#include "ns.h"
#include "nsguard.h"
#include "gate.h"
#include "onlyin.h"
#include "onlypkg.h"
#include "pkggate.h"
#include "plan.h"
#include "proc.h"
#include "recorder.h"
#include "redact.h"
#include "serve.h"
#include "spawn.h"
#include "textout.h"
#include "trace.h"
#include "vary.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <glib.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define DEFAULT_DB TRACE_DEFAULT_NAME

struct run_opts {
    char *db_path;
    GPtrArray *trace_dirs; /* char* */
    GPtrArray *env_redact; /* char*: --env-redact patterns */
    GPtrArray *argv_redact; /* char*: --argv-redact options, NULL-terminated */
    GPtrArray *only_inputs; /* char*: --only-inputs manifests */
    char *only_packages;    /* --only-packages LIST|@FILE, or NULL */
    bool private_tmp;
    bool system;
    enum engine_system system_how; /* --system=HOW */
    bool quiet;            /* -q: no summary line */
    char *options;         /* the options as given, quoted (runs.options) */
    bool cache_lookups;
    int64_t hash_limit;
    mode_t output_mode;
    bool vary_given[2];       /* --vary-control, --vary (index: enum vary_side) */
    uint32_t vary_set[2];     /* their LISTs (vary.h) */
    char *vary_list[2];       /* the LISTs given to each, joined with ',' (parsed as one) */
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
          "      --only-inputs MANIFEST  hide from the build every file that existed\n"
          "                        before it in a traced tree and that MANIFEST does\n"
          "                        not name (a path, a glob or DIR/ a line, relative to\n"
          "                        the current directory; repeatable): it looks absent\n"
          "                        (lookups fail, listings leave it out); what the build\n"
          "                        makes stays visible; the system trees only where a\n"
          "                        manifest names paths in them\n"
          "      --vary LIST       make the experiment's value of each variation in LIST\n"
          "                        (reprotest's names, comma-separated: environment,\n"
          "                        build_path, fileordering, home, kernel, locales,\n"
          "                        exec_path, time, timezone, umask, user_group,\n"
          "                        domain_host, num_cpus, aslr; all: every one but time;\n"
          "                        -NAME leaves one out: all,-fileordering; given again,\n"
          "                        it goes on from the last LIST).  Each is made\n"
          "                        in the build's namespaces (docs/repro.md, Variations);\n"
          "                        one that cannot take effect here is said and recorded\n"
          "                        as not varied (info shows them)\n"
          "      --vary-control LIST  make the control's (the fixed baseline's) value of\n"
          "                        each variation in LIST instead; given with --vary\n"
          "                        (a bisection step), the control's values of LIST but\n"
          "                        the experiment's of --vary's, which must lie within\n"
          "                        LIST\n"
          "      --only-packages LIST|@FILE  with --system: hide from the build the\n"
          "                        files of every installed Debian package outside the\n"
          "                        allowed set, as sbuild's minimal chroot would lack\n"
          "                        them: the packages LIST names (a,b or 'a b'), or\n"
          "                        the Build-Depends (-Arch, -Indep) of a debian/control\n"
          "                        or .dsc FILE for this architecture and the profiles\n"
          "                        of $DEB_BUILD_PROFILES; with the Essential and\n"
          "                        Priority required packages, build-essential,\n"
          "                        fakeroot, apt and what they depend on.  Files no\n"
          "                        package owns (local configuration,\n"
          "                        /etc/alternatives, /usr/local) and the workspace\n"
          "                        stay visible.  As root the system trees are then\n"
          "                        served through FUSE (as --system=full)\n"
          "  -q, --quiet           print no summary line at the end\n"
          "  -h, --help            print this help\n"
          "\n"
          "Exit status: the build's own; 128+N if signal N killed it; 125 if buildtrail\n"
          "could not set the build up or could not record it (the build is then\n"
          "stopped); 126/127 if COMMAND could not be executed/found; 2 for a usage error.\n"
          "'buildtrail doctor' checks what tracing needs on this machine.\n",
          f);
}

/* --vary, --vary-control (c 'V', 'C'): 0, or -1 after saying why. */
static int opt_vary(struct run_opts *o, int c, const char *arg)
{
    int side = c == 'V' ? VARY_EXPERIMENT : VARY_CONTROL;
    const char *name = c == 'V' ? "--vary" : "--vary-control";
    g_autofree char *err = NULL;
    /* Given again, its LIST goes on from the last: `--vary all --vary -time,-aslr` */
    g_autofree char *list = o->vary_list[side] ? g_strjoin(",", o->vary_list[side], arg, NULL)
                                               : g_strdup(arg);
    if (vary_parse(list, &o->vary_set[side], &err) < 0) {
        fprintf(stderr, "buildtrail run: %s: %s\n", name, err);
        return -1;
    }
    g_free(o->vary_list[side]);
    o->vary_list[side] = g_steal_pointer(&list);
    o->vary_given[side] = true;
    return 0;
}

/* Both --vary-control and --vary: --vary's LIST within --vary-control's; 0, or -1 after
 * saying why. */
static int opt_vary_check(const struct run_opts *o)
{
    g_autofree char *err = NULL;
    if (!o->vary_given[VARY_CONTROL] || !o->vary_given[VARY_EXPERIMENT] ||
        vary_sides_check(o->vary_set[VARY_CONTROL], o->vary_set[VARY_EXPERIMENT], &err) == 0)
        return 0;
    fprintf(stderr, "buildtrail run: %s\n", err);
    return -1;
}

/* How the variations were asked for, for the summary line. */
static const char *vary_options(const struct run_opts *o)
{
    if (o->vary_given[VARY_CONTROL] && o->vary_given[VARY_EXPERIMENT])
        return "--vary-control with --vary";
    return o->vary_given[VARY_EXPERIMENT] ? "--vary" : "--vary-control";
}

/* --output-mode: 0, or -1 after saying why. */
static int opt_output_mode(struct run_opts *o, const char *arg)
{
    char *end;
    long m = strtol(arg, &end, 8);
    if (end == arg || *end || m < 0 || m > 0777) {
        fprintf(stderr, "buildtrail run: --output-mode '%s' is not a file mode; give "
                        "octal permissions such as 0600 or 0644\n", arg);
        return -1;
    }
    o->output_mode = (mode_t)m;
    return 0;
}

/* --hash-limit: 0, or -1 after saying why. */
static int opt_hash_limit(struct run_opts *o, const char *arg)
{
    char *end;
    long long n = strtoll(arg, &end, 10);
    long long mult = !*end ? 1 : !strcmp(end, "K") ? 1LL << 10 : !strcmp(end, "M") ? 1LL << 20
                   : !strcmp(end, "G") ? 1LL << 30 : -1;
    if (end == arg || n < 0 || mult < 0 || n > INT64_MAX / mult) {
        fprintf(stderr, "buildtrail run: --hash-limit '%s' is not a size; give bytes, "
                        "optionally with K, M or G (e.g. 512M)\n", arg);
        return -1;
    }
    o->hash_limit = n * mult;
    return 0;
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
        {"only-inputs", required_argument, NULL, 'I'},
        {"only-packages", required_argument, NULL, 'K'},
        {"output-mode", required_argument, NULL, 'P'},
        {"vary", required_argument, NULL, 'V'},
        {"vary-control", required_argument, NULL, 'C'},
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
                o->system_how = ENGINE_SYSTEM_AUTO;
            else if (!strcmp(optarg, "opens"))
                o->system_how = ENGINE_SYSTEM_OPENS;
            else if (!strcmp(optarg, "full"))
                o->system_how = ENGINE_SYSTEM_FULL;
            else {
                fprintf(stderr, "buildtrail run: --system=%s: not a way to trace the system "
                                "trees; give --system=opens or --system=full\n", optarg);
                return -1;
            }
            break;
        case 'M':
            o->cache_lookups = true;
            break;
        case 'I':
            g_ptr_array_add(o->only_inputs, g_strdup(optarg));
            break;
        case 'V':
        case 'C':
            if (opt_vary(o, c, optarg) < 0)
                return -1;
            break;
        case 'K':
            if (o->only_packages) {
                fputs("buildtrail run: --only-packages given twice; give it once, with every "
                      "package in one list (a,b,c)\n", stderr);
                return -1;
            }
            o->only_packages = g_strdup(optarg);
            break;
        case 'q':
            o->quiet = true;
            break;
        case 'P':
            if (opt_output_mode(o, optarg) < 0)
                return -1;
            break;
        case 'L':
            if (opt_hash_limit(o, optarg) < 0)
                return -1;
            break;
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
    if (opt_vary_check(o) < 0)
        return -1;
    if (o->only_packages && !o->system) {
        fputs("buildtrail run: --only-packages restricts the system trees; add --system\n",
              stderr);
        return -1;
    }
    if (o->only_packages && o->system_how == ENGINE_SYSTEM_OPENS) {
        fputs("buildtrail run: --only-packages hides files at lookup, which --system=opens "
              "(fanotify) cannot; use --system or --system=full\n", stderr);
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

static void opts_free(struct run_opts *o)
{
    g_ptr_array_free(o->trace_dirs, TRUE);
    g_ptr_array_free(o->env_redact, TRUE);
    g_ptr_array_free(o->argv_redact, TRUE);
    g_ptr_array_free(o->only_inputs, TRUE);
    g_free(o->vary_list[0]);
    g_free(o->vary_list[1]);
    g_free(o->only_packages);
    g_free(o->db_path);
    g_free(o->options);
}

static char *read_mountinfo(void)
{
    char *info = NULL;
    if (!g_file_get_contents("/proc/self/mountinfo", &info, NULL, NULL))
        return NULL;
    return info;
}

/* One run, through its stages (plan, prepare, serve, finish); run_cleanup undoes what was
 * done, whichever stage stopped.  Main thread only; the recorder's hooks touch `s.watch`. */
struct run {
    struct run_opts o;
    char cwd[PATH_MAX];
    struct plan *plan;             /* what is traced, and how */
    struct spawn sp;               /* the build's namespaces */
    struct trace t;
    struct serve s;
    struct engine e;               /* the capture engine and the filesystem */
    char *own_judge;               /* reached filesystems that judge permissions themselves */
    struct gate *gate;             /* --only-inputs, or NULL; outlives the filesystem */
    struct vary_plan *vary;        /* --vary, --vary-control, or NULL */
    struct pkggate *pkggate;       /* --only-packages, or NULL; outlives the filesystem */
    /* how it ended */
    char *unseen;                  /* what the guard saw hide accesses (runs.notes "unseen=") */
    char *tree_note;               /* runs.process_tree */
    char *failure_text;            /* why the run failed (runs.failure) */
    bool said_not_replaced;        /* the setup failure's line said so */
    int exit_status, term_signal;
    int status;                    /* run_main's exit status */
};

/* --- plan -------------------------------------------------------------------------------- */

/* The top of the filesystem and the mount table, planned (plan.h).  0, or -1 (said). */
static int plan_trees(struct run *r)
{
    DIR *root = opendir("/");
    if (!root) {
        fprintf(stderr, "buildtrail run: cannot list /: %s\n", g_strerror(errno));
        return -1;
    }
    g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
    struct dirent *e;
    while ((e = readdir(root)))
        g_ptr_array_add(names, g_strdup(e->d_name));
    closedir(root);
    g_autofree char *info = read_mountinfo();
    struct plan_input in = {
        .top_names = (const char *const *)names->pdata, .n_top = (int)names->len,
        .mountinfo = info, .system = r->o.system, .watch = r->e.watch_fd >= 0,
        .private_tmp = r->o.private_tmp, .max_trees = NS_MAX_TREES - 2};
    r->plan = plan_new(&in, plan_probe_real());
    return 0;
}

/* --trace DIR, each checked.  0, or -1 (said). */
static int plan_trace_dirs(struct run *r)
{
    for (guint i = 0; i < r->o.trace_dirs->len; i++) {
        const char *d = r->o.trace_dirs->pdata[i], *why_not;
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
        if ((why_not = plan_untraceable(real, plan_probe_real()))) {
            fprintf(stderr, "buildtrail run: --trace %s: cannot trace it: %s; name the directories "
                            "the build reads and writes\n", d, why_not);
            return -1;
        }
        if (plan_add_trace_dir(r->plan, real) < 0) {
            fprintf(stderr, "buildtrail run: too many directories to trace (at most %d)\n",
                    NS_MAX_TREES - 2);
            return -1;
        }
    }
    return 0;
}

/* Plan: the trees (plan.h) and whether /dev/fuse and user namespaces can be used.  0, or -1
 * after one line on stderr. */
static int run_plan(struct run *r)
{
    if (!getcwd(r->cwd, sizeof r->cwd)) {
        fprintf(stderr, "buildtrail run: cannot get the current directory: %s\n", g_strerror(errno));
        return -1;
    }
    if (!strcmp(r->cwd, "/")) {
        fputs("buildtrail run: cannot trace / as the workspace; run from the project's directory\n",
              stderr);
        return -1;
    }
    /* The build inherits it, and a directory opened before the mounts is the real one beneath
     * them: through /proc/self/fd/0 the build would read there, untraced and unhidden. */
    struct stat in;
    if (fstat(STDIN_FILENO, &in) == 0 && S_ISDIR(in.st_mode)) {
        fputs("buildtrail run: the standard input is a directory, which the build could read "
              "beneath the traced mounts; give it another (< /dev/null)\n", stderr);
        return -1;
    }
    if ((r->o.only_inputs->len && onlyin_load(r->o.only_inputs, r->cwd, &r->gate) < 0) ||
        (r->o.only_packages &&
         onlypkg_load(r->o.only_packages, NULL, r->cwd, &r->pkggate) < 0)) {
        r->status = 2;
        return -1;
    }
    /* Absence can be faked only at lookup: the system trees through FUSE (docs/enforce.md). */
    enum engine_system how = r->pkggate ? ENGINE_SYSTEM_FULL : r->o.system_how;
    const char *why_not = plan_untraceable(r->cwd, plan_probe_real());
    if (why_not) {
        fprintf(stderr, "buildtrail run: cannot trace the current directory %s: %s; run from the "
                        "project's directory\n", r->cwd, why_not);
        return -1;
    }
    if (engine_open_watch(&r->e, r->o.system, how) < 0 || plan_trees(r) < 0)
        return -1;
    if (r->plan->watch_marks->len > NS_MAX_WATCH_MARKS) {
        fprintf(stderr, "buildtrail run: --system: %u mounts inside the system trees, more than "
                        "the %d buildtrail can watch; use --system=full\n",
                r->plan->watch_marks->len, NS_MAX_WATCH_MARKS);
        return -1;
    }
    if (plan_trace_dirs(r) < 0)
        return -1;
    plan_set_workspace(r->plan, r->cwd);
    if (r->o.vary_given[VARY_CONTROL] || r->o.vary_given[VARY_EXPERIMENT]) {
        struct vary_facts facts;
        spawn_vary_facts(&r->sp, r->cwd, r->plan->watched->len > 0,
                         r->o.vary_set[VARY_EXPERIMENT] & (1u << VARY_USER_GROUP), &facts);
        r->vary = vary_plan_make_sides(r->o.vary_set[VARY_CONTROL],
                                       r->o.vary_set[VARY_EXPERIMENT], &facts);
        if (!r->o.vary_given[VARY_CONTROL])
            r->vary->side = VARY_EXPERIMENT; /* `--vary -all`: the experiment's, of nothing */
    }
    if (r->gate) {
        onlyin_add_trees(r->gate, r->plan);
        if (!gate_n_entries(r->gate))
            fprintf(stderr, "buildtrail run: warning: --only-inputs declares no file: every file "
                            "that existed before the build is hidden from it in %s and the other "
                            "traced trees\n", r->cwd);
    }

    return spawn_preflight(&r->sp);
}

/* --- prepare ----------------------------------------------------------------------------- */

/* A watched tree is the build's to see and change: the trace and the private directory, which
 * a served tree hides, cannot lie in one (outside a tree served inside it).  0, or -1 after
 * one line on stderr naming `path` and `fix`. */
static int refuse_if_watched(const struct run *r, const char *path, const char *fix)
{
    if (!plan_watched(r->plan, path) || plan_tree_of(r->plan, path))
        return 0;
    fprintf(stderr, "buildtrail run: %s lies in a system tree that --system watches, where the "
                    "build could change it; %s, or use --system=full\n", path, fix);
    return -1;
}

/* The trace, at its temporary name, with its run row (trace.h). */
static int prepare_trace(struct run *r)
{
    trace_resolve_path(&r->t, r->o.db_path, r->cwd);
    if (refuse_if_watched(r, r->t.path, "write the trace elsewhere with -o FILE") < 0)
        return -1;
    struct trace_start start = {
        .argv = r->o.argv, .argv_redact = (char *const *)r->o.argv_redact->pdata,
        .cwd = r->cwd, .options = r->o.options, .mode = r->o.output_mode, .plan = r->plan,
        .vary = r->vary};
    return trace_create(&r->t, &start);
}

/* The capture engine (engine.h) on the planned trees, hiding the trace and the private
 * directory, which lie in traced trees. */
static int start_engine(struct run *r)
{
    struct rec_hooks hooks = serve_watch_hooks(&r->s);
    struct engine_config c = {
        .fs = {
            .trees = r->sp.fs_trees,
            .n_trees = plan_n_trees(r->plan),
            .out_fd = STDOUT_FILENO,
            .err_fd = STDERR_FILENO,
            /* The trace (with its SQLite side files) and buildtrail's private directory. */
            .hide = {{r->t.dir_st.st_dev, r->t.dir_st.st_ino, r->t.base, true},
                     {r->sp.scratch_dir_st.st_dev, r->sp.scratch_dir_st.st_ino,
                      r->sp.scratch_base, false},
                     {r->t.dir_st.st_dev, r->t.dir_st.st_ino, r->t.pending_base, true}},
            /* Every change to a traced tree during the build comes through this mount, so the
             * kernel's entry and attribute caches can be trusted for long
             * (docs/performance.md). */
            .timeout = 60.0,
            .present_ids_as_own = r->sp.user_ns,
            .kernel_checks = !r->sp.user_ns, /* user namespace: decided once the ids are mapped */
            .cache_lookups = r->o.cache_lookups,
            .reverse_listings = r->vary && r->vary->fileorder_reversed,
            .gate = r->gate,
            .pkggate = r->pkggate,
            .debug = g_strcmp0(g_getenv("BUILDTRAIL_DEBUG"), "fs") == 0,
            /* For benchmarks: BUILDTRAIL_NO_KILLPRIV_V2=1 keeps the kernel's getxattr per write. */
            .no_killpriv_v2 = g_strcmp0(g_getenv("BUILDTRAIL_NO_KILLPRIV_V2"), "1") == 0,
        },
        .hash_limit = r->o.hash_limit, .hooks = &hooks, .db_path = r->t.path, .env_redact = r->o.env_redact,
        .argv_redact = (char *const *)r->o.argv_redact->pdata, .watched = r->plan->watched};
    return engine_start(&r->e, &c);
}

/* Prepare: the private directory (and private /tmp), the trace with its run row, the
 * namespace plan and the trees' fds, the signal mask, the capture engine and the filesystem.
 * 0, or -1 after one line on stderr. */
static int run_prepare(struct run *r)
{
    if (spawn_private_dirs(&r->sp, r->plan) < 0 ||
        refuse_if_watched(r, r->sp.scratch.path, "set TMPDIR to a directory outside /usr, /etc "
                                                 "and /opt") < 0 ||
        prepare_trace(r) < 0 ||
        spawn_prepare(&r->sp, r->plan, r->e.watch_fd, r->cwd, r->o.argv) < 0)
        return -1;
    r->sp.ns.drop_mount_caps = r->gate != NULL;
    if (r->vary)
        spawn_vary(&r->sp, r->vary);
    serve_block_signals(&r->s, &r->sp.ns);
    if (serve_watch_start(&r->s, r->t.path) < 0) {
        spawn_close_trees(&r->sp);
        return -1;
    }
    return start_engine(r);
}

/* --- serve ------------------------------------------------------------------------------- */

/* Serve: spawn the build's namespaces, map ids, serve FUSE, and wait for the build (serve.h).
 * 0, or -1 when the namespaces could not be made (said; nothing to finish). */
static int run_serve(struct run *r)
{
    serve_take_clock(&r->s);
    spawn_start(&r->sp);
    spawn_map_ids(&r->sp, r->e.fs);
    bool user_ns = r->sp.user_ns, mapped = r->sp.ids_mapped;
    fs_set_present_ids_as_own(r->e.fs, user_ns && !mapped);
    /* The kernel judges by the ids it sees: only where every file shows its real owner and
     * every group of the caller is mapped (fusefs/fs.h), on filesystems that do not judge
     * permissions themselves. */
    g_autofree char *info = read_mountinfo();
    r->own_judge = plan_own_judge(r->plan, info);
    fs_set_kernel_checks(r->e.fs, (!user_ns || (mapped && !r->sp.unmapped_groups)) &&
                                    !r->own_judge &&
                                    /* for benchmarks and tests: the old behaviour */
                                    g_strcmp0(g_getenv("BUILDTRAIL_NO_KERNEL_CHECKS"), "1") != 0);
    pid_t setup = r->sp.setup;
    if (setup < 0) {
        fprintf(stderr, "buildtrail run: cannot create the build's namespaces: %s; %s" DOCTOR_HINT "\n",
                g_strerror(-setup),
                user_ns ? "enable unprivileged user namespaces or run as root"
                        : "is this a container without CAP_SYS_ADMIN?");
        return -1;
    }
    proc_table_set_launcher(r->e.procs, setup, 0);
    serve_session_start(&r->s, r->sp.sv[0], setup, r->sp.ns.guard_len != 0, r->e.fs, r->e.procs);
    serve_wait(&r->s, r->sp.rp[0], setup, &r->t, r->e.rec, r->e.procs);
    return 0;
}

/* --- finish ------------------------------------------------------------------------------ */

/* Stop serving and capturing: the loop, the process events, the watcher and the guard. */
static void stop_capture(struct run *r)
{
    serve_session_stop(&r->s, r->e.fs);
    engine_stop(&r->e, &r->tree_note);
    g_autofree char *refused = NULL;
    r->unseen = nsguard_stop(r->s.guard, &refused); /* no build process is left */
    r->s.guard = NULL;
    if (refused)
        fprintf(stderr, "buildtrail run: warning: %s\n", refused);
}

/* The exit status, and why the run failed if it did: the first of what buildtrail did, what
 * its helpers reported, and how they ended. */
static void settle_status(struct run *r)
{
    const struct serve *s = &r->s;
    r->exit_status = -1;
    r->term_signal = 0;
    if (s->have_status) {
        if (WIFEXITED(s->wait_status))
            r->exit_status = WEXITSTATUS(s->wait_status);
        else if (WIFSIGNALED(s->wait_status)) {
            r->term_signal = WTERMSIG(s->wait_status);
            r->exit_status = 128 + r->term_signal;
        }
    }
    if (s->stop_reason) {
        r->failure_text = g_strdup_printf("buildtrail stopped the build: %s", s->stop_reason);
        r->exit_status = RUN_EXIT_SETUP_FAILED;
    } else if (s->failure.step == NS_STEP_INIT_DIED) {
        r->failure_text = g_strdup_printf("the build's pid-namespace init was killed by signal %d "
                                          "(from outside the build), which ended the build",
                                          s->failure.value);
        fprintf(stderr, "buildtrail run: %s\n", r->failure_text);
        r->exit_status = RUN_EXIT_SETUP_FAILED;
    } else if (s->failure.step >= 0) {
        g_autofree char *kept = r->t.published ? NULL : trace_not_replaced(&r->t);
        g_autofree char *hint = r->gate && s->failure.step == NS_STEP_EXEC &&
                                        (s->failure.value == ENOENT || s->failure.value == EACCES)
                                    ? onlyin_exec_hint(r->gate, r->plan)
                                    : NULL;
        g_autofree char *tail = g_strdup_printf("%s%s%s", hint ? hint : "", kept ? "; " : "",
                                                kept ? kept : "");
        spawn_report_failure(&r->sp, r->plan, &s->failure, r->o.argv, tail);
        r->said_not_replaced = !r->t.published;
        if (s->failure.step != NS_STEP_EXEC) {
            r->exit_status = RUN_EXIT_SETUP_FAILED;
            r->failure_text = g_strdup_printf("cannot %s: %s", ns_step_describe(s->failure.step),
                                              g_strerror(s->failure.value));
        }
    } else if (!s->have_status) {
        r->failure_text = s->setup_done && WIFSIGNALED(s->setup_wait)
                              ? g_strdup_printf("the build's setup process was killed by signal "
                                                "%d, which ended the build", WTERMSIG(s->setup_wait))
                              : g_strdup("the build's launcher ended without reporting the "
                                         "build's status");
        fprintf(stderr, "buildtrail run: %s\n", r->failure_text);
        r->exit_status = RUN_EXIT_SETUP_FAILED;
    }
}

/* runs.notes: what the trace misses, the daemon's numbers, how the ids and the system trees
 * were handled, and the request statistics.  g_free it. */
static char *run_notes(struct run *r, uint64_t events)
{
    g_autofree char *stats = fs_stats_summary(r->e.fs);
    struct rusage self_usage;
    getrusage(RUSAGE_SELF, &self_usage);
    g_autofree char *ids_note =
        !r->sp.user_ns ? g_strdup("")
        : r->sp.ids_mapped
            ? g_strdup_printf("ids=mapped (others' files show their owners; chown/chgrp as "
                              "natively)%s%s; ", r->sp.unmapped_groups ? ", supplementary groups "
                              "shown as nogroup inside (no subgid line maps them): " : "",
                              r->sp.unmapped_groups ? r->sp.unmapped_groups : "")
            : g_strdup_printf("ids=own only (others' files show as yours, chown/chgrp to other ids "
                              "fail with EINVAL): %s; ", r->sp.idmap_note ? r->sp.idmap_note : "?");
    g_autofree char *system_note =
        r->e.watch_note ? g_strdup_printf("%s; ", r->e.watch_note)
        : r->pkggate && geteuid() == 0
            ? g_strdup("system_trees=served (--only-packages: absence is made at lookup); ")
        : r->o.system && r->e.watch_why_not
            ? g_strdup_printf("system_trees=served (%s); ", r->e.watch_why_not)
            : g_strdup("");
    g_autofree char *unseen_note = r->unseen ? g_strdup_printf("unseen=%s; ", r->unseen)
                                             : g_strdup("");
    return g_strdup_printf("%sevents=%llu; daemon_maxrss_kb=%ld; daemon_peak_images=%u; "
                           "killpriv_v2=%d; kernel_checks=%d%s%s%s; %s%s%srequests: %s",
                           unseen_note,
                           (unsigned long long)events, self_usage.ru_maxrss,
                           r->e.procs ? proc_table_peak_images(r->e.procs) : 0,
                           r->e.fs ? fs_killpriv_v2(r->e.fs) : 0, fs_kernel_checks(r->e.fs),
                           r->own_judge ? " (permissions judged by the filesystem: " : "",
                           r->own_judge ? r->own_judge : "", r->own_judge ? ")" : "",
                           system_note, ids_note,
                           r->o.cache_lookups
                               ? "cache_lookups=1 (missing names, symlinks: first process only); "
                               : "",
                           stats);
}

/* Finish: stop serving, settle the exit status and why the run failed, and write the run's
 * end; sets r->status. */
static void run_finish(struct run *r)
{
    stop_capture(r);
    settle_status(r);
    uint64_t events = rec_event_count(r->e.rec);
    int rec_err = trace_take_back(&r->t, r->e.rec, r->s.kill_left_ns);
    if (rec_err && !r->failure_text)
        r->failure_text = g_strdup_printf("writing the trace failed: %s; events after the "
                                          "failure are missing", g_strerror(-rec_err));
    g_autofree char *notes = run_notes(r, events);
    struct trace_end end = {
        .end_ns = rec_now_ns(), .exit_status = r->exit_status, .term_signal = r->term_signal,
        .interrupted = r->s.interrupted, .root_process_id = proc_table_root_id(r->e.procs),
        .notes = notes, .process_tree = r->tree_note, .failure = r->failure_text};
    int end_err = trace_write_end(&r->t, &end);
    if (end_err && !rec_err)
        rec_err = end_err;
    if (rec_err) {
        fprintf(stderr, "buildtrail run: the trace %s is incomplete: writing it failed: %s%s\n",
                r->t.path, g_strerror(-rec_err),
                rec_err == -ENOSPC || rec_err == -EDQUOT
                    ? "; free space or choose another place with -o" : "");
        if (r->exit_status == 0)
            r->exit_status = 1;
    }
    if (!r->s.watch.lost)
        r->s.watch.lost = trace_problem(&r->t);
    if (r->s.watch.lost) {
        fprintf(stderr, "buildtrail run: the trace %s %s during the run: this run's record is "
                        "lost\n", r->t.path, r->s.watch.lost);
        if (r->exit_status == 0)
            r->exit_status = 1;
    }
    r->status = r->exit_status < 0 ? RUN_EXIT_SETUP_FAILED : r->exit_status;

    if (r->s.loop_running) { /* still in use by the loop threads: left to process exit */
        engine_leave(&r->e);
        r->gate = NULL;
        r->pkggate = NULL;
    }
}

/* Undo whatever the stages did, in reverse. */
static void run_cleanup(struct run *r)
{
    serve_cleanup(&r->s);
    engine_free(&r->e); /* after the session that serves its filesystem */
    trace_close(&r->t);
    spawn_cleanup(&r->sp); /* the private directory, after everything that held it */
    plan_free(r->plan);
    opts_free(&r->o);
    g_free(r->unseen);
    g_free(r->tree_note);
    g_free(r->failure_text);
    g_free(r->own_judge);
    gate_free(r->gate); /* after the filesystem, which uses it */
    vary_plan_free(r->vary);
    pkggate_free(r->pkggate);
}

/* The variations made (and not), one line: unless -q, or always when one was not made. */
static void say_variations(const struct run *r)
{
    bool any_not = false;
    for (int i = 0; r->vary && i < r->vary->n_rows; i++)
        any_not |= !r->vary->rows[i].applied || r->vary->rows[i].why_not;
    if (!r->vary || (r->o.quiet && !any_not))
        return;
    g_autofree char *line = vary_summary(r->vary);
    fprintf(stderr, "buildtrail run: variations (%s): %s\n", vary_options(&r->o), line);
}

int run_main(int argc, char **argv)
{
    struct run *r = g_new0(struct run, 1);
    r->o = (struct run_opts){.trace_dirs = g_ptr_array_new_with_free_func(g_free),
                             .env_redact = g_ptr_array_new_with_free_func(g_free),
                             .argv_redact = g_ptr_array_new_with_free_func(g_free),
                             .only_inputs = g_ptr_array_new_with_free_func(g_free),
                             .hash_limit = DEFAULT_HASH_LIMIT, .output_mode = 0600};
    g_ptr_array_add(r->o.argv_redact, NULL);
    int pr = parse_args(argc, argv, &r->o);
    if (pr != 0) {
        opts_free(&r->o);
        g_free(r);
        return pr > 0 ? 0 : 2;
    }
    r->status = RUN_EXIT_SETUP_FAILED;
    engine_init(&r->e);
    spawn_init(&r->sp);
    trace_init(&r->t);
    serve_init(&r->s);
    if (run_plan(r) == 0 && run_prepare(r) == 0 && run_serve(r) == 0) {
        run_finish(r);
        if (!r->t.published && !r->said_not_replaced) {
            g_autofree char *kept = trace_not_replaced(&r->t);
            fprintf(stderr, "buildtrail run: %s: %s\n",
                    r->s.stop_reason ? "the build was stopped before its trace was in place"
                                     : "the build's command did not start", kept);
        } else if (r->t.published && !r->o.quiet) {
            struct trace_summary sum = {
                .plan = r->plan, .cwd = r->cwd, .failed = r->failure_text != NULL,
                .lost = r->s.watch.lost != NULL, .interrupted = r->s.interrupted,
                .tree_note = r->tree_note, .unseen = r->unseen,
                .unmapped_groups = r->sp.ids_mapped ? r->sp.unmapped_groups : NULL};
            trace_print_summary(&r->t, &sum);
        }
        if (r->t.published)
            say_variations(r);
    }
    int status = r->status;
    run_cleanup(r);
    g_free(r);
    return status;
}
