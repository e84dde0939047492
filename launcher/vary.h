/* vary — reprotest's variations, as `buildtrail run --vary LIST` (the experiment) and
 * `--vary-control LIST` (the control, the fixed baseline) make them: the names, the LIST parser,
 * and what each side sets on this machine, from facts the caller gathers (vary_facts).  Pure:
 * no system call, no output; the launcher applies the result (launcher/spawn.c before the
 * clone, launcher/ns.c between fork and exec, fusefs for the listing order) and records it
 * (table `variations`, schema 9).  docs/repro.md, "Variations", is the user's description.
 *
 * Contract
 *   - vary_parse: LIST is comma-separated; NAME or +NAME adds, -NAME removes, `all` is every
 *     name but `time` (which needs an LD_PRELOAD library: never varied by default), in order
 *     from the left.  0 with *set, or -1 with *err (g_free it): one sentence naming the bad
 *     word, escaped, and listing the valid names.
 *   - vary_plan_make: one row per name in the set (in vary_name order) with what was set, for
 *     people, or why it could not be (applied false; why_not).  A variation that cannot take
 *     effect on the experiment side leaves the experiment at the control's value (so that the
 *     two builds still differ only in what was varied) and says so; each row has its side.
 *     user_group for root in a
 *     directory another user owns is such a one: uid 2000 holds none of root's capabilities
 *     and could not write there.  user_group where the build's namespace can map only its own ids
 *     (unprivileged, no subordinate ids: nest_wide false) is made partly: chown to 0 or to the
 *     caller's ids fails with EINVAL there, not EPERM (fakeroot builds fail), and why_not says
 *     so.  Partly made (fileordering
 *     with trees watched by fanotify): applied, with why_not naming what was not.
 *   - vary_plan_make_sides: both options of one run (`--vary-control C --vary E`, a
 *     bisection step): each name in E takes the experiment's value, each other name in C the
 *     control's; one row per name in C|E.  vary_sides_check says whether the pair is one:
 *     E must lie within C (every variation under test is one the control fixes); -1 with *err
 *     (g_free it), one sentence naming those outside, else 0.
 *   - vary_environ: the build's environment from `env` (NULL-terminated NAME=VALUE) with the
 *     plan's variables set or removed; g_strfreev it.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

enum vary_name {
    VARY_ENVIRONMENT,
    VARY_BUILD_PATH,
    VARY_FILEORDERING,
    VARY_HOME,
    VARY_KERNEL,
    VARY_LOCALES,
    VARY_EXEC_PATH,
    VARY_TIME,
    VARY_TIMEZONE,
    VARY_UMASK,
    VARY_USER_GROUP,
    VARY_DOMAIN_HOST,
    VARY_NUM_CPUS,
    VARY_ASLR,
    VARY_COUNT
};

enum vary_side { VARY_CONTROL, VARY_EXPERIMENT };

/* Linux's personality flags the plan sets or clears (linux/personality.h). */
#define VARY_PER_UNAME26 0x0020000u
#define VARY_PER_ADDR_NO_RANDOMIZE 0x0040000u

/* The extra variable (environment) and PATH entry (exec_path), as reprotest's. */
#define VARY_ENV_NAME "REPROTEST_CAPTURE_ENVIRONMENT"
#define VARY_ENV_VALUE "i_capture_the_environment"
#define VARY_EXTRA_PATH "/i_capture_the_path"

/* "environment", "build_path", ... */
const char *vary_name_str(enum vary_name v);
/* "control", "experiment" */
const char *vary_side_str(enum vary_side s);
/* Every name, ", "-separated (for messages and --help). */
const char *vary_all_names(void);

int vary_parse(const char *list, uint32_t *set, char **err);

/* What the machine and the run are, as the launcher found them. */
struct vary_facts {
    const char *cwd;                 /* the build's directory */
    int n_cpus;                      /* CPUs in the caller's affinity mask */
    const char *const *locales;      /* the installed locales (`locale -a`, and those in
                                      * $LOCPATH's directories), NULL-terminated */
    int randomize_va_space;          /* /proc/sys/kernel/randomize_va_space; -1 unknown */
    bool watched_trees;              /* system trees watched by fanotify (--system as root) */
    bool nested_userns;              /* the build may make a user namespace of its own */
    bool nest_wide;                  /* ...mapping 0 and the caller's ids too (root; or the
                                      * run's namespace holds subordinate ids: idmap.h) */
    const char *nest_narrow_why;     /* if not, why (idmap_plan's sentence), or NULL */
    unsigned uid, gid;               /* the caller's */
    long long cwd_uid;               /* the owner of `cwd`; -1 unknown */
    long long foreign_uid;           /* root's run: the owner of foreign_dir, the first
                                      * directory under `cwd` another user owns; 0 or -1:
                                      * none (or not looked for) */
    const char *foreign_dir;
    const char *hostname, *domainname, *release; /* the machine's (uname) */
};

struct vary_row {
    enum vary_name name;
    enum vary_side side; /* which side's value this row is */
    bool applied;
    char *value;   /* what was set, for people */
    char *why_not; /* NULL, or why it was not (or only partly) made */
};

/* One environment change: `value` NULL removes `name`. */
struct vary_env {
    const char *name;
    char *value;
};

#define VARY_MAX_ENV 8

struct vary_plan {
    enum vary_side side;        /* experiment when any row is (the option: --vary) */
    int n_rows;
    struct vary_row rows[VARY_COUNT];
    /* What to set; each "leave as it is" unless said */
    int n_env;
    struct vary_env env[VARY_MAX_ENV];
    int umask;                  /* -1: leave */
    bool uts;                   /* a new UTS namespace with these names */
    char hostname[65], domainname[65];
    bool personality;           /* set these flags, clear those */
    unsigned personality_set, personality_clear;
    int keep_cpus;              /* 0: leave; else the first N CPUs of the caller's mask */
    bool fileorder_reversed;    /* traced trees' listings served in reverse */
    bool nest_user;             /* a user namespace of the build's own, with these ids */
    unsigned inner_uid, inner_gid;
    bool nest_wide;             /* ...mapping 0 and the caller's ids too (idmap_nested) */
};

/* The plan for `side` of the names in `set` (vary_parse); vary_plan_free it. */
struct vary_plan *vary_plan_make(uint32_t set, enum vary_side side, const struct vary_facts *f);
/* The control's values of `control` but the experiment's of `experiment` (within it). */
struct vary_plan *vary_plan_make_sides(uint32_t control, uint32_t experiment,
                                       const struct vary_facts *f);
int vary_sides_check(uint32_t control, uint32_t experiment, char **err);
void vary_plan_free(struct vary_plan *p);

char **vary_environ(const struct vary_plan *p, char *const *env);

/* One line for the run's summary: "experiment values: a, b; not varied: c (why)"; with both
 * sides "control values: a; experiment values: b; ...". */
char *vary_summary(const struct vary_plan *p);
