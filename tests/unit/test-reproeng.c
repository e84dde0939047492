/* Unit tests of repro's conclusions (query/lib/reproeng): the variation names, the variations
 * that may explain a cause from what its processes did, and the bisection (with a made-up
 * oracle in place of builds: each cause triggered by one variation, one by two together). */
#include "reproeng.h"

#include <glib.h>
#include <string.h>

static void test_names(void)
{
    g_autofree char *l = reproeng_vary_list(RV_BIT(RV_UMASK) | RV_BIT(RV_BUILD_PATH));
    g_assert_cmpstr(l, ==, "build_path,umask"); /* reprotest's order */
    g_assert_cmpint(reproeng_variation_of("umask", 5), ==, RV_UMASK);
    g_assert_cmpint(reproeng_variation_of("umas", 4), ==, -1);
    g_assert_false(RV_DEFAULT & RV_BIT(RV_TIME));
}

/* The hints of one cause: its kind, the command lines of its scope, the variables. */
static uint32_t hints(enum diffeng_kind kind, const char *const *commands, const char *env,
                      bool unsorted, bool sorted, bool home)
{
    struct reproeng_facts f;
    reproeng_facts_init(&f, kind);
    for (; commands && *commands; commands++)
        g_ptr_array_add(f.commands, g_strdup(*commands));
    if (env)
        g_ptr_array_add(f.env_names, g_strdup(env));
    f.listed_unsorted = unsorted, f.listed_sorted = sorted, f.read_home = home;
    uint32_t h = reproeng_hints(&f);
    reproeng_facts_clear(&f);
    return h;
}

#define CMDS(...) ((const char *const[]){__VA_ARGS__, NULL})

static void test_hints(void)
{
    g_assert_cmphex(hints(DIFFENG_NONDET, CMDS("hostname"), NULL, 0, 0, 0), ==,
                    RV_BIT(RV_DOMAIN_HOST));
    g_assert_cmphex(hints(DIFFENG_NONDET, CMDS("nproc"), NULL, 0, 0, 0), ==, RV_BIT(RV_NUM_CPUS));
    g_assert_cmphex(hints(DIFFENG_NONDET, CMDS("uname -r"), NULL, 0, 0, 0), ==, RV_BIT(RV_KERNEL));
    g_assert_cmphex(hints(DIFFENG_NONDET, CMDS("uname -n"), NULL, 0, 0, 0), ==,
                    RV_BIT(RV_DOMAIN_HOST));
    g_assert_cmphex(hints(DIFFENG_NONDET, CMDS("date -d @0"), NULL, 0, 0, 0), ==,
                    RV_BIT(RV_TIME) | RV_BIT(RV_TIMEZONE) | RV_BIT(RV_LOCALES));
    /* a shell's builtins and variables, from its -c script */
    g_assert_cmphex(hints(DIFFENG_NONDET, CMDS("sh -c pwd > out/where"), NULL, 0, 0, 0), ==,
                    RV_BIT(RV_BUILD_PATH));
    g_assert_cmphex(hints(DIFFENG_NONDET, CMDS("sh -c echo $HOME > h"), NULL, 0, 0, 0), ==,
                    RV_BIT(RV_HOME));
    /* reprotest's extra variable, named by the script (its value differs, expected: no
     * env_names) */
    g_assert_cmphex(hints(DIFFENG_NONDET, CMDS("sh -c echo \"$REPROTEST_CAPTURE_ENVIRONMENT\" > e"),
                          NULL, 0, 0, 0), ==, RV_BIT(RV_ENVIRONMENT));
    g_assert_cmphex(hints(DIFFENG_NONDET, CMDS("sh -c echo $(umask) > m"), NULL, 0, 0, 0), ==,
                    RV_BIT(RV_UMASK));
    g_assert_cmphex(hints(DIFFENG_NONDET, CMDS("sh -c echo $(id -u) > u"), NULL, 0, 0, 0), ==,
                    RV_BIT(RV_USER_GROUP));
    /* listings: unsorted is file order, sorted is the locale's collation */
    g_assert_cmphex(hints(DIFFENG_ARGV, CMDS("cat d/b"), NULL, 1, 0, 0), ==,
                    RV_BIT(RV_FILEORDERING));
    g_assert_cmphex(hints(DIFFENG_ARGV, CMDS("cat d/b"), NULL, 0, 1, 0), ==, RV_BIT(RV_LOCALES));
    g_assert_cmphex(hints(DIFFENG_NONDET, CMDS("tar -cf x.tar t"), NULL, 0, 0, 0), ==,
                    RV_BIT(RV_UMASK) | RV_BIT(RV_USER_GROUP) | RV_BIT(RV_TIME));
    g_assert_cmphex(hints(DIFFENG_NONDET, CMDS("cat"), NULL, 0, 0, 1), ==, RV_BIT(RV_HOME));
    /* variables */
    g_assert_cmphex(hints(DIFFENG_ENV, CMDS("cc"), "LC_ALL", 0, 0, 0), ==, RV_BIT(RV_LOCALES));
    g_assert_cmphex(hints(DIFFENG_ENV, CMDS("cc"), "TZ", 0, 0, 0), ==, RV_BIT(RV_TIMEZONE));
    g_assert_cmphex(hints(DIFFENG_ENV, CMDS("cc"), "CFLAGS", 0, 0, 0), ==,
                    RV_BIT(RV_ENVIRONMENT));
    /* kinds; nothing known: the clock or randomness */
    g_assert_cmphex(hints(DIFFENG_BUILD_PATH, NULL, NULL, 0, 0, 0), ==, RV_BIT(RV_BUILD_PATH));
    g_assert_cmphex(hints(DIFFENG_CWD, CMDS("cc"), NULL, 0, 0, 0), ==, RV_BIT(RV_BUILD_PATH));
    g_assert_cmphex(hints(DIFFENG_NONDET, CMDS("cc -c a.c"), NULL, 0, 0, 0), ==,
                    RV_BIT(RV_TIME) | RV_BIT(RV_TIMEZONE) | RV_BIT(RV_ASLR));
    /* a word inside another is not a program: "update" is not date */
    g_assert_cmphex(hints(DIFFENG_NONDET, CMDS("sh -c echo update > x"), NULL, 0, 0, 0), ==,
                    RV_BIT(RV_TIME) | RV_BIT(RV_TIMEZONE) | RV_BIT(RV_ASLR));
}

static void test_expected_env(void)
{
    g_assert_true(reproeng_env_expected(RV_BIT(RV_TIMEZONE), "TZ"));
    g_assert_false(reproeng_env_expected(RV_BIT(RV_HOME), "TZ"));
    g_assert_true(reproeng_env_expected(RV_DEFAULT, "LANGUAGE"));
    g_assert_true(reproeng_env_expected(RV_DEFAULT, "REPROTEST_CAPTURE_ENVIRONMENT"));
    g_assert_false(reproeng_env_expected(RV_DEFAULT, "CFLAGS"));
}

/* The made-up builds: "host" shows with domain_host, "tz" with timezone, "both" only when
 * umask and home are set together; the sets tried are counted. */
struct oracle {
    unsigned builds;
    bool fail_at_third;
};

static GHashTable *oracle_build(uint32_t set, void *ctx)
{
    struct oracle *o = ctx;
    if (++o->builds == 3 && o->fail_at_third)
        return NULL;
    GHashTable *keys = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    if (set & RV_BIT(RV_DOMAIN_HOST))
        g_hash_table_add(keys, g_strdup("host"));
    if (set & RV_BIT(RV_TIMEZONE))
        g_hash_table_add(keys, g_strdup("tz"));
    if ((set & RV_BIT(RV_UMASK)) && (set & RV_BIT(RV_HOME)))
        g_hash_table_add(keys, g_strdup("both"));
    g_hash_table_add(keys, g_strdup("random")); /* differs in every build, nothing varied too */
    return keys;
}

static GHashTable *wanted(void)
{
    GHashTable *w = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    g_hash_table_add(w, g_strdup("host"));
    g_hash_table_add(w, g_strdup("tz"));
    g_hash_table_add(w, g_strdup("both"));
    g_hash_table_add(w, g_strdup("random"));
    return w;
}

static void test_bisect(void)
{
    struct oracle o = {0};
    GHashTable *w = wanted(), *pins = NULL;
    g_assert_true(reproeng_bisect(RV_DEFAULT, w, oracle_build, &o, &pins));
    g_assert_cmphex(GPOINTER_TO_UINT(g_hash_table_lookup(pins, "host")), ==,
                    RV_BIT(RV_DOMAIN_HOST));
    g_assert_cmphex(GPOINTER_TO_UINT(g_hash_table_lookup(pins, "tz")), ==, RV_BIT(RV_TIMEZONE));
    /* neither alone: the smallest set that holds both halves that split them */
    uint32_t both = GPOINTER_TO_UINT(g_hash_table_lookup(pins, "both"));
    g_assert_cmphex(both, ==, RV_BIT(RV_UMASK) | RV_BIT(RV_HOME)); /* those two, no others */
    /* the build's own nondeterminism is blamed on no variation */
    g_assert_cmphex(GPOINTER_TO_UINT(g_hash_table_lookup(pins, "random")), ==,
                    REPROENG_PIN_UNVARIED);
    g_assert_cmpuint(o.builds, <, 2 * (RV_COUNT - 1)); /* fewer than one per variation, twice */
    g_hash_table_unref(pins);
    /* a build that fails: false, the bisection stops */
    struct oracle bad = {.fail_at_third = true};
    g_assert_false(reproeng_bisect(RV_DEFAULT, w, oracle_build, &bad, &pins));
    g_assert_cmpuint(bad.builds, ==, 3);
    g_hash_table_unref(pins);
    g_hash_table_unref(w);
}

/* Twenty causes k00..k19 that show only with umask and home together; the builds fail at
 * the `fail_at`th (0: never), counted in `builds`. */
struct twenty {
    unsigned builds, fail_at;
};

static GHashTable *twenty_build(uint32_t set, void *ctx)
{
    struct twenty *t = ctx;
    if (++t->builds == t->fail_at)
        return NULL;
    GHashTable *keys = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    for (int k = 0; k < 20 && (set & RV_BIT(RV_UMASK)) && (set & RV_BIT(RV_HOME)); k++)
        g_hash_table_add(keys, g_strdup_printf("k%02d", k));
    return keys;
}

/* The causes that show in neither half are narrowed one by one, in name order: when a build
 * fails midway, the causes pinned are the first by name (and the builds' numbers, the order
 * they ran in, the same every time), never those a hash table gave first. */
static void test_bisect_in_name_order(void)
{
    GHashTable *w = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL), *pins = NULL;
    for (int k = 0; k < 20; k++)
        g_hash_table_add(w, g_strdup_printf("k%02d", k));
    struct twenty all = {0};
    g_assert_true(reproeng_bisect(RV_DEFAULT, w, twenty_build, &all, &pins));
    g_assert_cmpuint(g_hash_table_size(pins), ==, 20);
    g_hash_table_unref(pins);
    struct twenty half = {.fail_at = all.builds / 2};
    g_assert_false(reproeng_bisect(RV_DEFAULT, w, twenty_build, &half, &pins));
    guint n = g_hash_table_size(pins);
    g_assert_cmpuint(n, >, 0);
    g_assert_cmpuint(n, <, 20);
    for (guint k = 0; k < n; k++) {
        g_autofree char *key = g_strdup_printf("k%02u", k);
        g_assert_true(g_hash_table_contains(pins, key));
    }
    g_hash_table_unref(pins);
    g_hash_table_unref(w);
}

/* A build whose one cause has a new name every time (a temporary file's random name): the
 * experiment's "fresh-0" shows in no other build, and "tz" with timezone. */
static GHashTable *fresh_build(uint32_t set, void *ctx)
{
    unsigned *builds = ctx;
    GHashTable *keys = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    g_hash_table_add(keys, g_strdup_printf("fresh-%u", ++*builds));
    if (set & RV_BIT(RV_TIMEZONE))
        g_hash_table_add(keys, g_strdup("tz"));
    return keys;
}

/* A cause no bisect build reproduces is pinned to nothing (it was said to be "home, umask
 * (each, or together)" of two variations, every one of the varied set, untried together),
 * whether the varied set is split or is one variation; the others are pinned as ever. */
static void test_bisect_unreproduced(void)
{
    const uint32_t sets[] = {RV_DEFAULT, RV_BIT(RV_UMASK) | RV_BIT(RV_HOME), RV_BIT(RV_UMASK)};
    for (size_t i = 0; i < G_N_ELEMENTS(sets); i++) {
        GHashTable *w = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL), *pins;
        g_hash_table_add(w, g_strdup("fresh-0"));
        if (sets[i] & RV_BIT(RV_TIMEZONE))
            g_hash_table_add(w, g_strdup("tz"));
        unsigned builds = 0;
        g_assert_true(reproeng_bisect(sets[i], w, fresh_build, &builds, &pins));
        g_assert_cmphex(GPOINTER_TO_UINT(g_hash_table_lookup(pins, "fresh-0")), ==, 0);
        if (sets[i] & RV_BIT(RV_TIMEZONE))
            g_assert_cmphex(GPOINTER_TO_UINT(g_hash_table_lookup(pins, "tz")), ==,
                            RV_BIT(RV_TIMEZONE));
        g_hash_table_unref(pins);
        g_hash_table_unref(w);
    }
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/reproeng/names", test_names);
    g_test_add_func("/reproeng/hints", test_hints);
    g_test_add_func("/reproeng/expected-env", test_expected_env);
    g_test_add_func("/reproeng/bisect", test_bisect);
    g_test_add_func("/reproeng/bisect-in-name-order", test_bisect_in_name_order);
    g_test_add_func("/reproeng/bisect-unreproduced", test_bisect_unreproduced);
    return g_test_run();
}
