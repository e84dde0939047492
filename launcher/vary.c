/* vary — see vary.h. */
#include "vary.h"

#include "textout.h"

#include <glib.h>
#include <stdio.h>
#include <string.h>

static const char *const names[VARY_COUNT] = {
    [VARY_ENVIRONMENT] = "environment", [VARY_BUILD_PATH] = "build_path",
    [VARY_FILEORDERING] = "fileordering", [VARY_HOME] = "home",
    [VARY_KERNEL] = "kernel", [VARY_LOCALES] = "locales",
    [VARY_EXEC_PATH] = "exec_path", [VARY_TIME] = "time",
    [VARY_TIMEZONE] = "timezone", [VARY_UMASK] = "umask",
    [VARY_USER_GROUP] = "user_group", [VARY_DOMAIN_HOST] = "domain_host",
    [VARY_NUM_CPUS] = "num_cpus", [VARY_ASLR] = "aslr",
};

#define ALL_BUT_TIME (((1u << VARY_COUNT) - 1) & ~(1u << VARY_TIME))

const char *vary_name_str(enum vary_name v)
{
    return v >= 0 && v < VARY_COUNT ? names[v] : "?";
}

const char *vary_side_str(enum vary_side s)
{
    return s == VARY_CONTROL ? "control" : "experiment";
}

const char *vary_all_names(void)
{
    return "all, environment, build_path, fileordering, home, kernel, locales, exec_path, time, "
           "timezone, umask, user_group, domain_host, num_cpus, aslr";
}

static int name_index(const char *w, size_t len)
{
    for (int i = 0; i < VARY_COUNT; i++)
        if (strlen(names[i]) == len && !memcmp(names[i], w, len))
            return i;
    return -1;
}

static int parse_fail(char **err, const char *what, const char *w, size_t len)
{
    g_autofree char *shown = g_strndup(w, len);
    g_autofree char *esc = text_escaped(shown);
    *err = g_strdup_printf("%s '%s'; give a comma-separated list of %s (-NAME removes one, "
                           "+NAME adds one)", what, esc, vary_all_names());
    return -1;
}

int vary_parse(const char *list, uint32_t *set, char **err)
{
    uint32_t s = 0;
    const char *at = list;
    for (;;) {
        const char *end = strchr(at, ',');
        size_t len = end ? (size_t)(end - at) : strlen(at);
        const char *w = at;
        bool remove = len && w[0] == '-', add = len && w[0] == '+';
        if (remove || add) {
            w++;
            len--;
        }
        if (!len)
            return parse_fail(err, "an empty variation name in", list, strlen(list));
        uint32_t bits;
        int i = name_index(w, len);
        if (len == 3 && !memcmp(w, "all", 3))
            bits = ALL_BUT_TIME;
        else if (i >= 0)
            bits = 1u << i;
        else
            return parse_fail(err, "unknown variation", w, len);
        s = remove ? s & ~bits : s | bits;
        if (!end)
            break;
        at = end + 1;
    }
    *set = s;
    return 0;
}

/* --- the plan ---------------------------------------------------------------------------- */

static void set_env(struct vary_plan *p, const char *name, const char *value)
{
    if (p->n_env < VARY_MAX_ENV)
        p->env[p->n_env++] = (struct vary_env){name, value ? g_strdup(value) : NULL};
}

static struct vary_row *row(struct vary_plan *p, enum vary_name n, bool applied, char *value,
                            char *why_not)
{
    struct vary_row *r = &p->rows[p->n_rows++];
    *r = (struct vary_row){.name = n, .applied = applied, .value = value, .why_not = why_not};
    return r;
}

static bool is_c_locale(const char *l)
{
    return !strcmp(l, "C") || !strcmp(l, "POSIX") || !g_ascii_strncasecmp(l, "C.", 2);
}

/* Another installed locale than C's: fr_CH's UTF-8 one if there, else the first UTF-8 one by
 * name, else the first by name; NULL when there is none.  By name, not as listed: $LOCPATH's
 * directories come in readdir order, and the same machine must vary to the same locale. */
static bool is_utf8_locale(const char *l)
{
    return strstr(l, "utf8") || strstr(l, "UTF-8");
}

static const char *other_locale(const char *const *locales)
{
    const char *first = NULL, *utf8 = NULL, *fr = NULL;
    for (int i = 0; locales && locales[i]; i++) {
        const char *l = locales[i];
        if (is_c_locale(l) || !*l)
            continue;
        if (g_str_has_prefix(l, "fr_CH.") && is_utf8_locale(l) && (!fr || strcmp(l, fr) < 0))
            fr = l;
        if (is_utf8_locale(l) && (!utf8 || strcmp(l, utf8) < 0))
            utf8 = l;
        if (!first || strcmp(l, first) < 0)
            first = l;
    }
    return fr ? fr : utf8 ? utf8 : first;
}

static void plan_locales(struct vary_plan *p, bool exp, const struct vary_facts *f)
{
    const char *other = exp ? other_locale(f->locales) : NULL;
    const char *loc = other ? other : "C.UTF-8";
    g_autofree char *language = other ? g_strdup_printf("%s:fr", other) : g_strdup("en_US:en");
    set_env(p, "LANG", loc);
    set_env(p, "LC_ALL", loc);
    set_env(p, "LANGUAGE", language);
    char *value = g_strdup_printf("LANG=%s LC_ALL=%s LANGUAGE=%s", loc, loc, language);
    if (exp && !other)
        row(p, VARY_LOCALES, false, value,
            g_strdup("no locale but C and POSIX is installed (locale -a, $LOCPATH); install "
                     "another one (e.g. fr_CH.UTF-8: locale-gen) to vary it; the control's "
                     "value was used"));
    else
        row(p, VARY_LOCALES, true, value, NULL);
}

static void plan_user(struct vary_plan *p, bool exp, const struct vary_facts *f)
{
    /* Root's build as uid 2000 is root without capabilities: in a directory of another
     * user's it could not write, and the experiment would fail for that alone (the build's
     * directory, or one in its tree: a tarball unpacked as root keeps its owners). */
    bool foreign = f->uid == 0 && (f->cwd_uid > 0 || (f->foreign_uid > 0 && f->foreign_dir));
    if (exp && f->nested_userns && !foreign) {
        unsigned u = f->uid == 2000 ? 2001 : 2000, g = f->gid == 2000 ? 2001 : 2000;
        p->nest_user = true;
        p->nest_wide = f->nest_wide;
        p->inner_uid = u;
        p->inner_gid = g;
        char *value;
        if (!f->nest_wide)
            value = g_strdup_printf("uid %u gid %u, in a user namespace of the build's own mapping "
                                    "them to the caller's %u:%u, and no other id (the caller's "
                                    "files show as %u:%u, others' as 65534; on disk they are the "
                                    "caller's)", u, g, f->uid, f->gid, u, g);
        else if (f->uid == 0)
            value = g_strdup_printf("uid %u gid %u, in a user namespace of the build's own mapping "
                                    "them to the caller's 0:0, 0:0 to an id no file has and "
                                    "1-65535 to themselves (root's files show as %u:%u; chown "
                                    "to 0 or to another user fails with EPERM; on disk they are "
                                    "root's)", u, g, u, g);
        else
            value = g_strdup_printf("uid %u gid %u, in a user namespace of the build's own mapping "
                                    "them to the caller's %u:%u, %u:%u to the run's %u:%u and "
                                    "every other id of the run's to itself (the caller's files "
                                    "show as %u:%u; chown to 0 or %u fails with EPERM; on disk "
                                    "they are the caller's)", u, g, f->uid, f->gid, f->uid,
                                    f->gid, u, g, u, g, f->uid);
        row(p, VARY_USER_GROUP, true, value,
            f->nest_wide ? NULL
                         : g_strdup_printf("only the build's own ids are mapped (%s): chown or "
                                           "chgrp to any other id, 0 included, fails with EINVAL "
                                           "where another user gets EPERM, and fakeroot builds "
                                           "(dpkg-buildpackage) fail", f->nest_narrow_why
                                           ? f->nest_narrow_why : "no subordinate ids"));
        return;
    }
    char *value = g_strdup_printf("uid %u gid %u (the caller's)", f->uid, f->gid);
    if (exp && foreign)
        row(p, VARY_USER_GROUP, false, value,
            g_strdup_printf("the %s %s belongs to uid %lld: as uid 2000 (root without its "
                            "capabilities) the build could not write there; the control's "
                            "value was used (build in a tree root owns, or run buildtrail as "
                            "its owner)", f->cwd_uid > 0 ? "build's directory"
                                                         : "directory in the build's tree",
                            f->cwd_uid > 0 ? (f->cwd ? f->cwd : "?") : f->foreign_dir,
                            f->cwd_uid > 0 ? f->cwd_uid : f->foreign_uid));
    else if (exp)
        row(p, VARY_USER_GROUP, false, value,
            g_strdup("the build cannot make a user namespace of its own here "
                     "(user.max_user_namespaces); the control's value was used"));
    else
        row(p, VARY_USER_GROUP, true, value, NULL);
}

static void plan_cpus(struct vary_plan *p, bool exp, const struct vary_facts *f)
{
    if (exp && f->n_cpus > 1) {
        p->keep_cpus = f->n_cpus / 2;
        row(p, VARY_NUM_CPUS, true,
            g_strdup_printf("%d of the caller's %d CPUs (affinity)", p->keep_cpus, f->n_cpus), NULL);
        return;
    }
    char *value = g_strdup_printf("all %d CPUs of the caller's affinity", f->n_cpus);
    if (exp)
        row(p, VARY_NUM_CPUS, false, value,
            g_strdup_printf("only %d CPU is available (the caller's affinity): there is no fewer "
                            "to give", f->n_cpus));
    else
        row(p, VARY_NUM_CPUS, true, value, NULL);
}

static void plan_aslr(struct vary_plan *p, bool exp, const struct vary_facts *f)
{
    p->personality = true;
    if (exp && f->randomize_va_space != 0) {
        p->personality_clear |= VARY_PER_ADDR_NO_RANDOMIZE;
        row(p, VARY_ASLR, true, g_strdup("randomized (as the machine: kernel.randomize_va_space)"),
            NULL);
        return;
    }
    p->personality_set |= VARY_PER_ADDR_NO_RANDOMIZE;
    char *value = g_strdup("not randomized (personality ADDR_NO_RANDOMIZE)");
    if (exp)
        row(p, VARY_ASLR, false, value,
            g_strdup("address-space randomization is off on this machine "
                     "(kernel.randomize_va_space=0)"));
    else
        row(p, VARY_ASLR, true, value, NULL);
}

static void plan_fileordering(struct vary_plan *p, bool exp, const struct vary_facts *f)
{
    if (!exp) {
        row(p, VARY_FILEORDERING, true, g_strdup("the filesystems' own order"), NULL);
        return;
    }
    p->fileorder_reversed = true;
    row(p, VARY_FILEORDERING, true,
        g_strdup("reversed, in every tree buildtrail serves (FUSE)"),
        f->watched_trees ? g_strdup("not in the system trees watched by fanotify (--system as "
                                    "root), which the real filesystem lists; --system=full "
                                    "serves them too")
                         : NULL);
}

static void plan_uts(struct vary_plan *p, bool exp, const struct vary_facts *f)
{
    if (!exp) {
        row(p, VARY_DOMAIN_HOST, true,
            g_strdup_printf("the machine's: hostname %s, domainname %s",
                            f->hostname ? f->hostname : "?", f->domainname ? f->domainname : "?"),
            NULL);
        return;
    }
    p->uts = true;
    g_strlcpy(p->hostname, "reprotest-capture-hostname", sizeof p->hostname);
    g_strlcpy(p->domainname, "reprotest-capture-domainname", sizeof p->domainname);
    row(p, VARY_DOMAIN_HOST, true,
        g_strdup_printf("hostname %s, domainname %s (a UTS namespace)", p->hostname,
                        p->domainname), NULL);
}

static void plan_one(struct vary_plan *p, enum vary_name n, bool exp, const struct vary_facts *f)
{
    switch (n) {
    case VARY_ENVIRONMENT:
        set_env(p, VARY_ENV_NAME, exp ? VARY_ENV_VALUE : NULL);
        row(p, n, true, g_strdup(exp ? VARY_ENV_NAME "=" VARY_ENV_VALUE : VARY_ENV_NAME " unset"),
            NULL);
        break;
    case VARY_BUILD_PATH:
        row(p, n, true, g_strdup_printf("%s (made by the caller's choice of directory)",
                                        f->cwd ? f->cwd : "?"), NULL);
        break;
    case VARY_FILEORDERING:
        plan_fileordering(p, exp, f);
        break;
    case VARY_HOME: {
        const char *home = exp ? "/nonexistent/second-build" : "/nonexistent/first-build";
        set_env(p, "HOME", home);
        row(p, n, true, g_strdup_printf("HOME=%s", home), NULL);
        break;
    }
    case VARY_KERNEL:
        p->personality = true;
        if (exp)
            p->personality_set |= VARY_PER_UNAME26;
        else
            p->personality_clear |= VARY_PER_UNAME26;
        row(p, n, true,
            exp ? g_strdup("a 2.6 release (personality UNAME26, as setarch --uname-2.6)")
                : g_strdup_printf("the machine's release %s", f->release ? f->release : "?"),
            NULL);
        break;
    case VARY_LOCALES:
        plan_locales(p, exp, f);
        break;
    case VARY_EXEC_PATH:
        /* vary_environ appends the entry to PATH */
        row(p, n, true, g_strdup(exp ? "PATH with " VARY_EXTRA_PATH " appended" : "PATH as given"),
            NULL);
        break;
    case VARY_TIME:
        row(p, n, false, g_strdup("the real clock"),
            g_strdup("varying the time needs an LD_PRELOAD library (faketime), which the build "
                     "would see and which changes the time stamps make relies on: not varied"));
        break;
    case VARY_TIMEZONE:
        set_env(p, "TZ", exp ? "GMT-14" : "GMT+12");
        row(p, n, true, g_strdup(exp ? "TZ=GMT-14" : "TZ=GMT+12"), NULL);
        break;
    case VARY_UMASK:
        p->umask = exp ? 0002 : 0022;
        row(p, n, true, g_strdup(exp ? "0002" : "0022"), NULL);
        break;
    case VARY_USER_GROUP:
        plan_user(p, exp, f);
        break;
    case VARY_DOMAIN_HOST:
        plan_uts(p, exp, f);
        break;
    case VARY_NUM_CPUS:
        plan_cpus(p, exp, f);
        break;
    case VARY_ASLR:
        plan_aslr(p, exp, f);
        break;
    default:
        break;
    }
}

struct vary_plan *vary_plan_make_sides(uint32_t control, uint32_t experiment,
                                       const struct vary_facts *f)
{
    struct vary_plan *p = g_new0(struct vary_plan, 1);
    p->side = experiment ? VARY_EXPERIMENT : VARY_CONTROL;
    p->umask = -1;
    for (int n = 0; n < VARY_COUNT; n++) {
        bool exp = experiment & (1u << n);
        if (!exp && !(control & (1u << n)))
            continue;
        int at = p->n_rows;
        plan_one(p, (enum vary_name)n, exp, f);
        for (int i = at; i < p->n_rows; i++)
            p->rows[i].side = exp ? VARY_EXPERIMENT : VARY_CONTROL;
    }
    return p;
}

struct vary_plan *vary_plan_make(uint32_t set, enum vary_side side, const struct vary_facts *f)
{
    struct vary_plan *p = side == VARY_EXPERIMENT ? vary_plan_make_sides(0, set, f)
                                                  : vary_plan_make_sides(set, 0, f);
    p->side = side;
    return p;
}

int vary_sides_check(uint32_t control, uint32_t experiment, char **err)
{
    uint32_t outside = experiment & ~control;
    if (!outside)
        return 0;
    GString *listed = g_string_new(NULL);
    for (int n = 0; n < VARY_COUNT; n++)
        if (outside & (1u << n))
            g_string_append_printf(listed, "%s%s", listed->len ? "," : "", vary_name_str(n));
    *err = g_strdup_printf("--vary names %s, which --vary-control's LIST leaves out: given "
                           "together, --vary-control fixes the control's values and --vary "
                           "picks among them the variations to vary; add %s to --vary-control's "
                           "LIST or take %s out of --vary's", listed->str, listed->str,
                           outside & (outside - 1) ? "them" : "it");
    g_string_free(listed, TRUE);
    return -1;
}

void vary_plan_free(struct vary_plan *p)
{
    if (!p)
        return;
    for (int i = 0; i < p->n_rows; i++) {
        g_free(p->rows[i].value);
        g_free(p->rows[i].why_not);
    }
    for (int i = 0; i < p->n_env; i++)
        g_free(p->env[i].value);
    g_free(p);
}

static bool has_row(const struct vary_plan *p, enum vary_name n, enum vary_side side)
{
    for (int i = 0; i < p->n_rows; i++)
        if (p->rows[i].name == n && p->rows[i].side == side)
            return true;
    return false;
}

/* Is `entry` (NAME=VALUE) the variable `name`? */
static bool entry_is(const char *entry, const char *name)
{
    size_t len = strlen(name);
    return !strncmp(entry, name, len) && entry[len] == '=';
}

char **vary_environ(const struct vary_plan *p, char *const *env)
{
    GPtrArray *out = g_ptr_array_new();
    bool path_seen = false;
    bool add_path = has_row(p, VARY_EXEC_PATH, VARY_EXPERIMENT);
    for (int i = 0; env && env[i]; i++) {
        bool replaced = false;
        for (int k = 0; k < p->n_env && !replaced; k++)
            replaced = entry_is(env[i], p->env[k].name);
        if (replaced)
            continue;
        if (add_path && entry_is(env[i], "PATH")) {
            path_seen = true;
            g_ptr_array_add(out, g_strdup_printf("%s:" VARY_EXTRA_PATH, env[i]));
        } else {
            g_ptr_array_add(out, g_strdup(env[i]));
        }
    }
    if (add_path && !path_seen) /* execvp's own default (glibc), then the entry */
        g_ptr_array_add(out, g_strdup("PATH=/bin:/usr/bin:" VARY_EXTRA_PATH));
    for (int k = 0; k < p->n_env; k++)
        if (p->env[k].value)
            g_ptr_array_add(out, g_strdup_printf("%s=%s", p->env[k].name, p->env[k].value));
    g_ptr_array_add(out, NULL);
    return (char **)g_ptr_array_free(out, FALSE);
}

char *vary_summary(const struct vary_plan *p)
{
    GString *made[2] = {g_string_new(NULL), g_string_new(NULL)}, *not = g_string_new(NULL);
    for (int i = 0; i < p->n_rows; i++) {
        const struct vary_row *r = &p->rows[i];
        GString *to = r->applied ? made[r->side] : not;
        g_string_append_printf(to, "%s%s", to->len ? ", " : "", vary_name_str(r->name));
        if (r->why_not)
            g_string_append_printf(to, " (%s%s)", r->applied ? "partly: " : "", r->why_not);
    }
    GString *s = g_string_new(NULL);
    for (int side = VARY_CONTROL; side <= VARY_EXPERIMENT; side++)
        if (made[side]->len)
            g_string_append_printf(s, "%s%s values: %s", s->len ? "; " : "",
                                   vary_side_str((enum vary_side)side), made[side]->str);
    if (!s->len)
        g_string_append_printf(s, "%s values: none",
                               vary_side_str(p->side));
    if (not->len)
        g_string_append_printf(s, "; not varied: %s", not->str);
    for (int side = 0; side < 2; side++)
        g_string_free(made[side], TRUE);
    g_string_free(not, TRUE);
    return g_string_free(s, FALSE);
}
