/* unit/vary: launcher/vary.[ch] — the LIST parser, and what each side sets from the machine's
 * facts (one CPU, no second locale, ASLR off, watched trees), and the build's environment. */
#include "vary.h"

#include <glib.h>
#include <string.h>

#define BIT(n) (1u << (n))

static uint32_t parse_ok(const char *list)
{
    uint32_t set = 0xdead;
    g_autofree char *err = NULL;
    g_assert_cmpint(vary_parse(list, &set, &err), ==, 0);
    g_assert_null(err);
    return set;
}

static void parse_bad(const char *list, const char *word)
{
    uint32_t set = 7;
    g_autofree char *err = NULL;
    g_assert_cmpint(vary_parse(list, &set, &err), ==, -1);
    if (!strstr(err, word))
        g_error("%s: %s", list, err);
    g_assert_nonnull(strstr(err, "num_cpus")); /* lists the valid names */
    g_assert_cmpuint(set, ==, 7);
}

static void test_parse(void)
{
    uint32_t all = parse_ok("all");
    g_assert_false(all & BIT(VARY_TIME));
    for (int n = 0; n < VARY_COUNT; n++)
        if (n != VARY_TIME)
            g_assert_true(all & BIT(n));
    g_assert_cmpuint(parse_ok("all,-fileordering"), ==, all & ~BIT(VARY_FILEORDERING));
    g_assert_cmpuint(parse_ok("all,+time"), ==, all | BIT(VARY_TIME));
    g_assert_cmpuint(parse_ok("umask,timezone"), ==, BIT(VARY_UMASK) | BIT(VARY_TIMEZONE));
    g_assert_cmpuint(parse_ok("umask,-umask"), ==, 0);
    g_assert_cmpuint(parse_ok("-all,+aslr"), ==, BIT(VARY_ASLR));
    parse_bad("foo", "'foo'");
    parse_bad("all,-nosuch", "'nosuch'");
    parse_bad("umask,", "empty");
    parse_bad("", "empty");
    parse_bad("+", "empty");
    parse_bad("all,umask\x01x", "'umask\\x01x'"); /* escaped */
    parse_bad("Umask", "'Umask'");                 /* names are exact */
}

static const char *const no_locales[] = {"C", "C.utf8", "POSIX", NULL};
static const char *const fr_locales[] = {"C", "C.utf8", "de_DE.utf8", "fr_CH.utf8", "POSIX", NULL};

static struct vary_facts machine(void)
{
    return (struct vary_facts){.cwd = "/src/p", .n_cpus = 4, .locales = fr_locales,
                               .randomize_va_space = 2, .nested_userns = true, .nest_wide = true,
                               .uid = 1000,
                               .gid = 1000, .hostname = "h", .domainname = "(none)",
                               .release = "6.1.0"};
}

static const struct vary_row *find(const struct vary_plan *p, enum vary_name n)
{
    for (int i = 0; i < p->n_rows; i++)
        if (p->rows[i].name == n)
            return &p->rows[i];
    g_error("no row for %s", vary_name_str(n));
}

static const char *env_of(const struct vary_plan *p, const char *name)
{
    for (int i = 0; i < p->n_env; i++)
        if (!strcmp(p->env[i].name, name))
            return p->env[i].value ? p->env[i].value : "(unset)";
    return NULL;
}

static void test_sides(void)
{
    struct vary_facts f = machine();
    uint32_t all = parse_ok("all");
    struct vary_plan *c = vary_plan_make(all, VARY_CONTROL, &f);
    struct vary_plan *e = vary_plan_make(all, VARY_EXPERIMENT, &f);
    g_assert_cmpint(c->n_rows, ==, VARY_COUNT - 1);
    for (int i = 0; i < e->n_rows; i++) {
        g_assert_true(e->rows[i].applied);
        g_assert_null(e->rows[i].why_not);
        g_assert_true(c->rows[i].applied);
    }
    g_assert_cmpint(c->umask, ==, 0022);
    g_assert_cmpint(e->umask, ==, 0002);
    g_assert_cmpstr(env_of(c, "TZ"), ==, "GMT+12");
    g_assert_cmpstr(env_of(e, "TZ"), ==, "GMT-14");
    g_assert_cmpstr(env_of(c, "LC_ALL"), ==, "C.UTF-8");
    g_assert_cmpstr(env_of(e, "LC_ALL"), ==, "fr_CH.utf8");
    g_assert_cmpstr(env_of(c, "HOME"), ==, "/nonexistent/first-build");
    g_assert_cmpstr(env_of(e, "HOME"), ==, "/nonexistent/second-build");
    g_assert_cmpstr(env_of(c, VARY_ENV_NAME), ==, "(unset)");
    g_assert_cmpstr(env_of(e, VARY_ENV_NAME), ==, VARY_ENV_VALUE);
    g_assert_false(c->uts);
    g_assert_true(e->uts);
    g_assert_cmpint(c->keep_cpus, ==, 0);
    g_assert_cmpint(e->keep_cpus, ==, 2);
    g_assert_true(c->personality_set & VARY_PER_ADDR_NO_RANDOMIZE);
    g_assert_true(c->personality_clear & VARY_PER_UNAME26);
    g_assert_true(e->personality_set & VARY_PER_UNAME26);
    g_assert_true(e->personality_clear & VARY_PER_ADDR_NO_RANDOMIZE);
    g_assert_false(c->fileorder_reversed);
    g_assert_true(e->fileorder_reversed);
    g_assert_false(c->nest_user);
    g_assert_true(e->nest_user);
    g_assert_cmpuint(e->inner_uid, !=, 1000);
    g_assert_nonnull(strstr(find(c, VARY_BUILD_PATH)->value, "/src/p"));
    vary_plan_free(c);
    vary_plan_free(e);
    /* time: only when asked, and never made */
    e = vary_plan_make(BIT(VARY_TIME), VARY_EXPERIMENT, &f);
    g_assert_cmpint(e->n_rows, ==, 1);
    g_assert_false(e->rows[0].applied);
    g_assert_nonnull(strstr(e->rows[0].why_not, "faketime"));
    vary_plan_free(e);
}

/* What this machine cannot vary is said, and the experiment keeps the control's value. */
static void test_cannot(void)
{
    struct vary_facts f = machine();
    f.n_cpus = 1;
    f.locales = no_locales;
    f.randomize_va_space = 0;
    f.nested_userns = false;
    f.watched_trees = true;
    struct vary_plan *e = vary_plan_make(parse_ok("all"), VARY_EXPERIMENT, &f);
    enum vary_name not[] = {VARY_NUM_CPUS, VARY_LOCALES, VARY_ASLR, VARY_USER_GROUP};
    for (guint i = 0; i < G_N_ELEMENTS(not); i++) {
        const struct vary_row *r = find(e, not[i]);
        g_assert_false(r->applied);
        g_assert_nonnull(r->why_not);
    }
    g_assert_cmpint(e->keep_cpus, ==, 0);
    g_assert_cmpstr(env_of(e, "LANG"), ==, "C.UTF-8");
    g_assert_true(e->personality_set & VARY_PER_ADDR_NO_RANDOMIZE);
    g_assert_false(e->nest_user);
    const struct vary_row *fo = find(e, VARY_FILEORDERING); /* partly */
    g_assert_true(fo->applied);
    g_assert_nonnull(strstr(fo->why_not, "fanotify"));
    g_autofree char *line = vary_summary(e);
    g_assert_nonnull(strstr(line, "not varied: "));
    g_assert_nonnull(strstr(line, "num_cpus (only 1 CPU"));
    vary_plan_free(e);
}

/* Root in a directory another user owns: user_group is not varied (uid 2000 could not write
 * there); in one root owns, or for another caller, it is. */
static void test_root_foreign_tree(void)
{
    struct vary_facts f = machine();
    f.uid = f.gid = 0;
    f.cwd_uid = 1000;
    struct vary_plan *e = vary_plan_make(parse_ok("user_group"), VARY_EXPERIMENT, &f);
    g_assert_false(e->nest_user);
    g_assert_false(find(e, VARY_USER_GROUP)->applied);
    g_assert_nonnull(strstr(find(e, VARY_USER_GROUP)->why_not, "/src/p belongs to uid 1000"));
    vary_plan_free(e);
    f.cwd_uid = 0;
    e = vary_plan_make(parse_ok("user_group"), VARY_EXPERIMENT, &f);
    g_assert_true(e->nest_user);
    vary_plan_free(e);
    /* root's tree, a directory in it another user's (a tarball unpacked as root) */
    f.foreign_uid = 1000;
    f.foreign_dir = "/src/p/sub";
    e = vary_plan_make(parse_ok("user_group"), VARY_EXPERIMENT, &f);
    g_assert_false(e->nest_user);
    g_assert_nonnull(strstr(find(e, VARY_USER_GROUP)->why_not, "/src/p/sub belongs to uid 1000"));
    vary_plan_free(e);
    f.foreign_uid = -1;
    f.foreign_dir = NULL;
    f.uid = 1000;
    f.cwd_uid = 0;
    e = vary_plan_make(parse_ok("user_group"), VARY_EXPERIMENT, &f);
    g_assert_true(e->nest_user);
    vary_plan_free(e);
}

/* user_group maps 0 and the caller's ids too where the parent namespace holds them (chown to
 * them: EPERM, as for another user); where it does not, it is made partly, and said. */
static void test_user_group_wide(void)
{
    struct vary_facts f = machine();
    f.nest_wide = true;
    struct vary_plan *e = vary_plan_make(parse_ok("user_group"), VARY_EXPERIMENT, &f);
    g_assert_true(e->nest_user && e->nest_wide);
    const struct vary_row *r = find(e, VARY_USER_GROUP);
    g_assert_true(r->applied);
    g_assert_null(r->why_not);
    g_assert_nonnull(strstr(r->value, "chown to 0 or 1000 fails with EPERM"));
    vary_plan_free(e);
    f.nest_wide = false;
    f.nest_narrow_why = "newuidmap/newgidmap missing (apt-get install uidmap)";
    e = vary_plan_make(parse_ok("user_group"), VARY_EXPERIMENT, &f);
    g_assert_true(e->nest_user);
    g_assert_false(e->nest_wide);
    r = find(e, VARY_USER_GROUP);
    g_assert_true(r->applied);
    g_assert_nonnull(strstr(r->why_not, "fails with EINVAL"));
    g_assert_nonnull(strstr(r->why_not, "apt-get install uidmap"));
    g_autofree char *line = vary_summary(e);
    g_assert_nonnull(strstr(line, "user_group (partly: only the build's own ids are mapped"));
    vary_plan_free(e);
}

static void test_environ(void)
{
    struct vary_facts f = machine();
    char *env[] = {(char *)"HOME=/root", (char *)"PATH=/usr/bin", (char *)"LC_ALL=de_DE",
                   (char *)"REPROTEST_CAPTURE_ENVIRONMENT=x", (char *)"HOMEX=1", NULL};
    struct vary_plan *c = vary_plan_make(parse_ok("all"), VARY_CONTROL, &f);
    g_auto(GStrv) ce = vary_environ(c, env);
    g_autofree char *cj = g_strjoinv(" ", ce);
    g_assert_cmpstr(cj, ==, "PATH=/usr/bin HOMEX=1 HOME=/nonexistent/first-build LANG=C.UTF-8 "
                            "LC_ALL=C.UTF-8 LANGUAGE=en_US:en TZ=GMT+12");
    struct vary_plan *e = vary_plan_make(parse_ok("exec_path,environment"), VARY_EXPERIMENT, &f);
    g_auto(GStrv) ee = vary_environ(e, env);
    g_autofree char *ej = g_strjoinv(" ", ee);
    g_assert_cmpstr(ej, ==, "HOME=/root PATH=/usr/bin:/i_capture_the_path LC_ALL=de_DE HOMEX=1 "
                            "REPROTEST_CAPTURE_ENVIRONMENT=i_capture_the_environment");
    char *bare[] = {(char *)"A=1", NULL};
    g_auto(GStrv) be = vary_environ(e, bare);
    g_assert_cmpstr(be[1], ==, "PATH=/bin:/usr/bin:/i_capture_the_path");
    vary_plan_free(c);
    vary_plan_free(e);
}

/* --vary-control C --vary E: E's names take the experiment's values, C's others the
 * control's, each row saying its side; E outside C is refused, naming what is outside. */
static void test_both_sides(void)
{
    struct vary_facts f = machine();
    uint32_t c = parse_ok("umask,home,exec_path,timezone,aslr");
    uint32_t e = parse_ok("home,exec_path");
    g_autofree char *err = NULL;
    g_assert_cmpint(vary_sides_check(c, e, &err), ==, 0);
    g_assert_null(err);
    struct vary_plan *p = vary_plan_make_sides(c, e, &f);
    g_assert_cmpint(p->n_rows, ==, 5);
    g_assert_cmpint(p->side, ==, VARY_EXPERIMENT);
    g_assert_cmpint(find(p, VARY_HOME)->side, ==, VARY_EXPERIMENT);
    g_assert_cmpint(find(p, VARY_EXEC_PATH)->side, ==, VARY_EXPERIMENT);
    g_assert_cmpint(find(p, VARY_UMASK)->side, ==, VARY_CONTROL);
    g_assert_cmpint(find(p, VARY_TIMEZONE)->side, ==, VARY_CONTROL);
    g_assert_cmpint(p->umask, ==, 0022);
    g_assert_cmpstr(env_of(p, "HOME"), ==, "/nonexistent/second-build");
    g_assert_cmpstr(env_of(p, "TZ"), ==, "GMT+12");
    g_assert_true(p->personality_set & VARY_PER_ADDR_NO_RANDOMIZE);
    char *env[] = {(char *)"PATH=/usr/bin", NULL};
    g_auto(GStrv) pe = vary_environ(p, env);
    g_assert_cmpstr(pe[0], ==, "PATH=/usr/bin:/i_capture_the_path");
    g_autofree char *line = vary_summary(p);
    g_assert_cmpstr(line, ==, "control values: timezone, umask, aslr; experiment values: home, "
                              "exec_path");
    vary_plan_free(p);
    /* the control's exec_path: PATH as given */
    p = vary_plan_make_sides(c, 0, &f);
    g_auto(GStrv) ce = vary_environ(p, env);
    g_assert_cmpstr(ce[0], ==, "PATH=/usr/bin");
    vary_plan_free(p);
    g_assert_cmpint(vary_sides_check(parse_ok("umask"), parse_ok("umask,kernel,aslr"), &err), ==, -1);
    g_assert_nonnull(strstr(err, "--vary names kernel,aslr, which --vary-control's LIST leaves out"));
    g_assert_nonnull(strstr(err, "add kernel,aslr to --vary-control's LIST or take them out"));
}

/* The other locale is the same whatever order the machine lists its locales in: $LOCPATH's
 * directories are read in their own (readdir) order after `locale -a`'s sorted list, and the
 * first UTF-8 one listed was taken, so two machines with the same locales varied to two. */
static void test_locale_any_order(void)
{
    static const char *const ab[] = {"C", "POSIX", "zu_ZA.utf8", "de_DE.UTF-8", "en_GB", NULL};
    static const char *const ba[] = {"en_GB", "de_DE.UTF-8", "POSIX", "zu_ZA.utf8", "C", NULL};
    static const char *const plain[] = {"xh_ZA", "C", "af_ZA", NULL};
    static const char *const plain2[] = {"af_ZA", "xh_ZA", NULL};
    static const char *const fr[] = {"fr_CH.utf8", "de_DE.utf8", "fr_CH.UTF-8", NULL};
    static const char *const fr2[] = {"fr_CH.UTF-8", "fr_CH.utf8", NULL};
    struct vary_facts f = machine();
    const char *const *sets[][2] = {{ab, ba}, {plain, plain2}, {fr, fr2}};
    const char *want[] = {"de_DE.UTF-8", "af_ZA", "fr_CH.UTF-8"};
    for (guint k = 0; k < G_N_ELEMENTS(sets); k++)
        for (int i = 0; i < 2; i++) {
            f.locales = sets[k][i];
            struct vary_plan *e = vary_plan_make(parse_ok("locales"), VARY_EXPERIMENT, &f);
            g_assert_cmpstr(env_of(e, "LANG"), ==, want[k]);
            vary_plan_free(e);
        }
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/vary/parse", test_parse);
    g_test_add_func("/vary/sides", test_sides);
    g_test_add_func("/vary/cannot", test_cannot);
    g_test_add_func("/vary/locale-any-order", test_locale_any_order);
    g_test_add_func("/vary/root-foreign-tree", test_root_foreign_tree);
    g_test_add_func("/vary/user-group-wide", test_user_group_wide);
    g_test_add_func("/vary/environ", test_environ);
    g_test_add_func("/vary/both-sides", test_both_sides);
    return g_test_run();
}
