/* reproeng — what `repro` concludes from two builds (reproeng.h has the contract). */
#include "reproeng.h"

#include "tracedb.h"
#include "stmt.h"

#include <string.h>

static const char *const names[RV_COUNT] = {
    "environment", "build_path", "fileordering", "home",     "kernel",
    "locales",     "exec_path",  "time",         "timezone", "umask",
    "user_group",  "domain_host", "num_cpus",    "aslr",
};

const char *reproeng_variation_name(enum reproeng_variation v)
{
    return (unsigned)v < RV_COUNT ? names[v] : NULL;
}

int reproeng_variation_of(const char *name, size_t len)
{
    for (int v = 0; v < RV_COUNT; v++)
        if (strlen(names[v]) == len && !memcmp(names[v], name, len))
            return v;
    return -1;
}

char *reproeng_vary_list(uint32_t set)
{
    GString *s = g_string_new(NULL);
    for (int v = 0; v < RV_COUNT; v++)
        if (set & RV_BIT(v))
            g_string_append_printf(s, "%s%s", s->len ? "," : "", names[v]);
    return g_string_free(s, FALSE);
}

const char *const *reproeng_expected_env(enum reproeng_variation v)
{
    static const char *const env[] = {"REPROTEST_CAPTURE_ENVIRONMENT", NULL};
    static const char *const home[] = {"HOME", NULL};
    static const char *const path[] = {"PATH", NULL};
    static const char *const tz[] = {"TZ", NULL};
    static const char *const loc[] = {"LANG", "LC_ALL", "LANGUAGE", NULL};
    static const char *const user[] = {"USER", "LOGNAME", NULL};
    static const char *const none[] = {NULL};
    switch (v) {
    case RV_ENVIRONMENT: return env;
    case RV_HOME: return home;
    case RV_EXEC_PATH: return path;
    case RV_TIMEZONE: return tz;
    case RV_LOCALES: return loc;
    case RV_USER_GROUP: return user;
    default: return none;
    }
}

bool reproeng_env_expected(uint32_t set, const char *name)
{
    for (int v = 0; v < RV_COUNT; v++)
        if (set & RV_BIT(v))
            for (const char *const *n = reproeng_expected_env(v); *n; n++)
                if (!strcmp(*n, name))
                    return true;
    return false;
}

void reproeng_facts_init(struct reproeng_facts *f, enum diffeng_kind kind)
{
    *f = (struct reproeng_facts){.kind = kind,
                                 .commands = g_ptr_array_new_with_free_func(g_free),
                                 .env_names = g_ptr_array_new_with_free_func(g_free)};
}

void reproeng_facts_clear(struct reproeng_facts *f)
{
    g_ptr_array_unref(f->commands);
    g_ptr_array_unref(f->env_names);
    *f = (struct reproeng_facts){0};
}

/* Whether command line `cmd` ("prog arg ...") has the short option letter `c` in one of its
 * option words (-f, -lf). */
static bool has_short(const char *cmd, char c)
{
    g_auto(GStrv) w = g_strsplit(cmd, " ", -1);
    for (int i = 1; w[i]; i++)
        if (w[i][0] == '-' && w[i][1] != '-' && strchr(w[i] + 1, c))
            return true;
    return false;
}

static bool word_is(const char *cmd, const char *const *progs)
{
    size_t len = strcspn(cmd, " ");
    for (; *progs; progs++)
        if (strlen(*progs) == len && !memcmp(cmd, *progs, len))
            return true;
    return false;
}

/* What one program run in the scope may be sensitive to. */
static uint32_t command_hints(const char *cmd)
{
    static const char *const host[] = {"hostname", "domainname", "dnsdomainname",
                                       "nisdomainname", "ypdomainname", NULL};
    static const char *const cpus[] = {"nproc", "getconf", NULL};
    static const char *const ids[] = {"id", "whoami", "logname", "groups", "users", NULL};
    static const char *const sorts[] = {"sort", "comm", "join", "uniq", NULL};
    static const char *const archivers[] = {"tar", "cpio", "ar", "zip", "pax", "mksquashfs",
                                            "genisoimage", "xorriso", "stat", NULL};
    uint32_t h = 0;
    if (word_is(cmd, host))
        h |= RV_BIT(RV_DOMAIN_HOST);
    if (word_is(cmd, (const char *const[]){"uname", NULL})) {
        bool n = has_short(cmd, 'n') || strstr(cmd, "--nodename") || has_short(cmd, 'a');
        bool r = has_short(cmd, 'r') || has_short(cmd, 'v') || has_short(cmd, 'a') ||
                 !strchr(cmd, ' ');
        h |= (n ? RV_BIT(RV_DOMAIN_HOST) : 0) | (r || !n ? RV_BIT(RV_KERNEL) : 0);
    }
    if (word_is(cmd, cpus))
        h |= RV_BIT(RV_NUM_CPUS);
    if (word_is(cmd, ids))
        h |= RV_BIT(RV_USER_GROUP);
    if (word_is(cmd, sorts))
        h |= RV_BIT(RV_LOCALES);
    if (word_is(cmd, (const char *const[]){"date", NULL}))
        h |= RV_BIT(RV_TIME) | RV_BIT(RV_TIMEZONE) | RV_BIT(RV_LOCALES);
    if (word_is(cmd, (const char *const[]){"pwd", NULL}))
        h |= RV_BIT(RV_BUILD_PATH);
    if (word_is(cmd, (const char *const[]){"umask", NULL})) /* a shell's builtin */
        h |= RV_BIT(RV_UMASK);
    if (word_is(cmd, archivers) ||
        (word_is(cmd, (const char *const[]){"ls", NULL}) && has_short(cmd, 'l')))
        h |= RV_BIT(RV_UMASK) | RV_BIT(RV_USER_GROUP) | RV_BIT(RV_TIME);
    return h;
}

static uint32_t env_hints(const char *name)
{
    if (!strcmp(name, "LANG") || !strcmp(name, "LANGUAGE") || !strncmp(name, "LC_", 3))
        return RV_BIT(RV_LOCALES);
    if (!strcmp(name, "TZ"))
        return RV_BIT(RV_TIMEZONE);
    if (!strcmp(name, "HOME"))
        return RV_BIT(RV_HOME);
    if (!strcmp(name, "PATH"))
        return RV_BIT(RV_EXEC_PATH);
    if (!strcmp(name, "USER") || !strcmp(name, "LOGNAME"))
        return RV_BIT(RV_USER_GROUP);
    if (!strcmp(name, "PWD") || !strcmp(name, "OLDPWD"))
        return RV_BIT(RV_BUILD_PATH);
    return RV_BIT(RV_ENVIRONMENT);
}

static bool is_shell_word(const char *cmd)
{
    static const char *const shells[] = {"sh", "dash", "bash", "zsh", "ksh", "mksh", NULL};
    return word_is(cmd, shells);
}

/* A shell's -c script: each program it names (its builtins too: pwd) and $VARIABLE it reads,
 * as if each were run: `sh -c 'echo $(hostname) > h'`. */
static uint32_t script_hints(const char *cmd)
{
    const char *c = strstr(cmd, " -c ");
    if (!is_shell_word(cmd) || !c)
        return 0;
    uint32_t h = 0;
    g_auto(GStrv) words = g_regex_split_simple("[^A-Za-z0-9_$-]+", c + 4, 0, 0);
    for (int i = 0; words[i]; i++) {
        const char *w = words[i];
        if (w[0] == '$') { /* $PWD, or one a variation sets: $HOME, $REPROTEST_CAPTURE_... */
            if (!strcmp(w + 1, "PWD") || reproeng_env_expected(RV_ALL, w + 1))
                h |= env_hints(w + 1);
        } else if (w[0] && w[0] != '-') {
            h |= command_hints(w); /* each word alone: its options are not told apart */
        }
    }
    return h;
}

uint32_t reproeng_hints(const struct reproeng_facts *f)
{
    uint32_t h = 0;
    if (f->kind == DIFFENG_BUILD_PATH || f->kind == DIFFENG_CWD)
        h |= RV_BIT(RV_BUILD_PATH);
    if (f->kind == DIFFENG_EXE)
        h |= RV_BIT(RV_EXEC_PATH);
    for (guint i = 0; i < f->commands->len; i++)
        h |= command_hints(f->commands->pdata[i]) | script_hints(f->commands->pdata[i]);
    for (guint i = 0; i < f->env_names->len; i++)
        h |= env_hints(f->env_names->pdata[i]);
    if (f->listed_unsorted)
        h |= RV_BIT(RV_FILEORDERING);
    if (f->listed_sorted)
        h |= RV_BIT(RV_LOCALES);
    if (f->read_home)
        h |= RV_BIT(RV_HOME);
    if (!h && f->kind == DIFFENG_NONDET) /* the clock (read in local time), randomness */
        h = RV_BIT(RV_TIME) | RV_BIT(RV_TIMEZONE) | RV_BIT(RV_ASLR);
    return h;
}

char *reproeng_rel(const struct diffeng_model *m, const char *path)
{
    const char *root = m->root[1];
    size_t l = strlen(root);
    if (l > 1 && !strncmp(path, root, l) && path[l] == '/')
        return g_strdup(path + l + 1);
    const char *slash = strrchr(root, '/');
    size_t pl = slash ? (size_t)(slash - root) : 0;
    if (pl > 0 && !strncmp(path, root, pl) && path[pl] == '/' && !strchr(path + pl + 1, '/'))
        return g_strdup_printf("..%s", path + pl);
    return g_strdup(path);
}

char *reproeng_cause_key(const struct diffeng_model *m, const struct diffeng_cause *c)
{
    return reproeng_rel(m, c->path);
}

static bool matches(const GPtrArray *globs, const struct diffeng_model *m, const char *path)
{
    g_autofree char *rel = reproeng_rel(m, path);
    for (guint i = 0; i < globs->len; i++)
        if (g_pattern_match_simple(globs->pdata[i], rel) ||
            g_pattern_match_simple(globs->pdata[i], path))
            return true;
    return false;
}

const char *reproeng_glob_unmatched(struct diffeng *d, const GPtrArray *globs,
                                    const GPtrArray *artifacts)
{
    const struct diffeng_model *m = diffeng_run(d);
    for (guint g = 0; globs && g < globs->len; g++) {
        GPtrArray one = {.pdata = &globs->pdata[g], .len = 1};
        bool any = false;
        for (guint i = 0; i < artifacts->len && !any; i++)
            any = matches(&one, m, ((const struct reproeng_artifact *)artifacts->pdata[i])->path);
        if (!any)
            return globs->pdata[g];
    }
    return NULL;
}

static gint by_path(gconstpointer a, gconstpointer b)
{
    const struct reproeng_artifact *x = *(void *const *)a, *y = *(void *const *)b;
    return strcmp(x->path, y->path);
}

static void artifact_free(gpointer p)
{
    struct reproeng_artifact *a = p;
    g_free(a->path);
    g_free(a);
}

GPtrArray *reproeng_artifacts(struct diffeng *d, const GPtrArray *globs)
{
    const struct diffeng_model *m = diffeng_run(d);
    const GPtrArray *lists[] = {m->identical, m->differ, m->only_a, m->only_b};
    GPtrArray *out = g_ptr_array_new_with_free_func(artifact_free);
    bool delivered = m->artifacts->len > 0;
    for (size_t l = 0; l < G_N_ELEMENTS(lists); l++)
        for (guint i = 0; i < lists[l]->len; i++) {
            const char *p = lists[l]->pdata[i];
            if (globs && globs->len ? !matches(globs, m, p)
                                    : delivered && !diffeng_is_artifact(d, p))
                continue;
            struct reproeng_artifact *a = g_new0(struct reproeng_artifact, 1);
            a->path = g_strdup(p);
            a->state = (enum reproeng_state)l;
            g_ptr_array_add(out, a);
        }
    g_ptr_array_sort(out, by_path);
    return out;
}

/* The keys of `wanted` that are in `got` too. */
static GHashTable *both(GHashTable *wanted, GHashTable *got)
{
    GHashTable *t = g_hash_table_new(g_str_hash, g_str_equal);
    GHashTableIter it;
    gpointer k;
    g_hash_table_iter_init(&it, wanted);
    while (g_hash_table_iter_next(&it, &k, NULL))
        if (got && g_hash_table_contains(got, k))
            g_hash_table_add(t, k);
    return t;
}

static void pin(GHashTable *pins, gpointer key, uint32_t set)
{
    uint32_t had = GPOINTER_TO_UINT(g_hash_table_lookup(pins, key));
    g_hash_table_insert(pins, g_strdup(key), GUINT_TO_POINTER(had | set));
}

/* The lower half of set's bits (by count). */
static uint32_t lower_half(uint32_t set)
{
    unsigned n = (unsigned)__builtin_popcount(set) / 2, seen = 0;
    uint32_t low = 0;
    for (int v = 0; v < RV_COUNT && seen < n; v++)
        if (set & RV_BIT(v)) {
            low |= RV_BIT(v);
            seen++;
        }
    return low;
}

/* Whether a build with `set` shows `key`: 1, 0, or -1 when the build failed. */
static int shows(uint32_t set, const char *key, reproeng_build_fn build, void *ctx)
{
    GHashTable *got = build(set, ctx);
    if (!got)
        return -1;
    int r = g_hash_table_contains(got, key);
    g_hash_table_unref(got);
    return r;
}

/* The smallest part of `set` found that shows `key` together with `fixed` (fixed | set
 * shows it); 0 with *failed when a build failed. */
static uint32_t narrow(uint32_t fixed, uint32_t set, const char *key, reproeng_build_fn build,
                       void *ctx, bool *failed)
{
    if (*failed || __builtin_popcount(set) <= 1)
        return set;
    uint32_t a = lower_half(set), b = set & ~a;
    int r = shows(fixed | a, key, build, ctx);
    if (r > 0)
        return narrow(fixed, a, key, build, ctx, failed);
    if (r == 0)
        r = shows(fixed | b, key, build, ctx);
    if (r > 0)
        return narrow(fixed, b, key, build, ctx, failed);
    if (r < 0) {
        *failed = true;
        return 0;
    }
    uint32_t na = narrow(fixed | b, a, key, build, ctx, failed);
    return na | narrow(fixed | na, b, key, build, ctx, failed);
}

static gint by_key(gconstpointer a, gconstpointer b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The keys of `wanted` a build with `set` shows; those it does not are pinned to nothing (no
 * build reproduced them: a temporary file's random name, a race).  NULL when it failed. */
static GHashTable *reproduced(uint32_t set, GHashTable *wanted, reproeng_build_fn build,
                              void *ctx, GHashTable *pins)
{
    GHashTable *got = build(set, ctx);
    if (!got)
        return NULL;
    GHashTable *w = both(wanted, got);
    g_hash_table_unref(got);
    GHashTableIter it;
    gpointer k;
    g_hash_table_iter_init(&it, wanted);
    while (g_hash_table_iter_next(&it, &k, NULL))
        if (!g_hash_table_contains(w, k))
            pin(pins, k, 0);
    return w;
}

/* `verified`: a bisect build with `set` showed every key of `wanted` (a half that showed
 * them); else (the whole set, which only the experiment showed) it is rebuilt first where a
 * conclusion rests on it: one variation left, or keys neither half shows alone. */
static bool bisect(uint32_t set, GHashTable *wanted, reproeng_build_fn build, void *ctx,
                   GHashTable *pins, bool verified)
{
    if (!g_hash_table_size(wanted))
        return true;
    GHashTableIter it;
    gpointer k;
    if (__builtin_popcount(set) <= 1) {
        GHashTable *w = verified ? g_hash_table_ref(wanted)
                                 : reproduced(set, wanted, build, ctx, pins);
        if (!w)
            return false;
        g_hash_table_iter_init(&it, w);
        while (g_hash_table_iter_next(&it, &k, NULL))
            pin(pins, k, set);
        g_hash_table_unref(w);
        return true;
    }
    uint32_t half[2] = {lower_half(set), set & ~lower_half(set)};
    GHashTable *got[2] = {NULL, NULL}, *full = NULL;
    bool ok = true;
    for (int h = 0; h < 2 && ok; h++) {
        got[h] = build(half[h], ctx);
        if (!got[h])
            ok = false;
    }
    for (int h = 0; h < 2 && ok; h++) {
        GHashTable *w = both(wanted, got[h]);
        ok = bisect(half[h], w, build, ctx, pins, true);
        g_hash_table_unref(w);
    }
    if (ok) { /* neither half alone: the parts of each half that show it together, key by
               * key in name order (each runs builds: which ran first, and which were pinned
               * when one fails, never the hash table's choice) */
        g_autoptr(GPtrArray) keys = g_ptr_array_sized_new(g_hash_table_size(wanted));
        g_hash_table_iter_init(&it, wanted);
        while (g_hash_table_iter_next(&it, &k, NULL))
            if (!g_hash_table_contains(got[0], k) && !g_hash_table_contains(got[1], k))
                g_ptr_array_add(keys, k);
        g_ptr_array_sort(keys, by_key);
        if (keys->len && !verified) {
            GHashTable *left = g_hash_table_new(g_str_hash, g_str_equal);
            for (guint i = 0; i < keys->len; i++)
                g_hash_table_add(left, keys->pdata[i]);
            full = reproduced(set, left, build, ctx, pins);
            g_hash_table_unref(left);
            ok = full != NULL;
        }
        for (guint i = 0; ok && i < keys->len; i++) {
            k = keys->pdata[i];
            if (full && !g_hash_table_contains(full, k))
                continue;
            bool failed = false;
            uint32_t a = narrow(half[1], half[0], k, build, ctx, &failed);
            uint32_t b = narrow(a, half[1], k, build, ctx, &failed);
            ok = !failed;
            pin(pins, k, ok ? a | b : set);
        }
    }
    for (int h = 0; h < 2; h++)
        if (got[h])
            g_hash_table_unref(got[h]);
    if (full)
        g_hash_table_unref(full);
    return ok;
}

bool reproeng_bisect(uint32_t set, GHashTable *wanted, reproeng_build_fn build, void *ctx,
                     GHashTable **pins)
{
    *pins = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    if (!g_hash_table_size(wanted))
        return true;
    /* First nothing varied: a cause that shows then is the build's own nondeterminism, which
     * every half would show too and which no variation may be blamed for. */
    GHashTable *alone = build(0, ctx);
    if (!alone)
        return false;
    GHashTable *rest = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    GHashTableIter it;
    gpointer k;
    g_hash_table_iter_init(&it, wanted);
    while (g_hash_table_iter_next(&it, &k, NULL))
        if (g_hash_table_contains(alone, k))
            pin(*pins, k, REPROENG_PIN_UNVARIED);
        else
            g_hash_table_add(rest, g_strdup(k));
    g_hash_table_unref(alone);
    bool ok = bisect(set, rest, build, ctx, *pins, false);
    g_hash_table_unref(rest);
    return ok;
}
