/* repro: build a tree twice, the control with a fixed baseline and the experiment with
 * reprotest's variations, each traced; compare what the build delivers and say, for each
 * artifact that differs, its own root causes (diffeng_causes_of: the process, the file, the
 * chain to the artifact) and which variations may explain each; --bisect rebuilds with
 * subsets of the variations until each cause is pinned to the one(s) that trigger it.
 *
 * The builds are launcher/reprorun's (copies, `buildtrail run` as a child, signals passed
 * on); the conclusions query/lib/reproeng's and diffeng's; the report repro-render.c's.
 * Exit: 0 reproducible, 1 not, 2 an error (bad input, a build that failed), 128+N when
 * signal N stopped it (the copies kept, and where they are said). */
#include "artcmp.h"
#include "driver.h"
#include "query.h"
#include "repro.h"
#include "textout.h"
#include "vary.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* reproeng's variation bits are vary.h's (run's): one LIST, one meaning. */
G_STATIC_ASSERT((int)RV_COUNT == (int)VARY_COUNT && (int)RV_TIME == (int)VARY_TIME &&
                (int)RV_ASLR == (int)VARY_ASLR && (int)RV_BUILD_PATH == (int)VARY_BUILD_PATH &&
                (int)RV_UMASK == (int)VARY_UMASK);

struct repro_cli {
    const char *out;
    uint32_t vary;
    GString *vary_list; /* every --vary LIST so far, joined: given again, it goes on */
    bool bisect, json, diffoscope;
    GPtrArray *globs;    /* --artifacts */
    GPtrArray *run_args; /* passed on to run */
};

static void usage(FILE *f)
{
    fputs("Usage: buildtrail repro [OPTION]... -- COMMAND [ARG]...\n"
          "Build the tree in the current directory twice, as reprotest does, each build\n"
          "traced as 'buildtrail run' traces it: a control with a fixed baseline and an\n"
          "experiment with the variations, each in its own copy of the tree under -o DIR.\n"
          "Compare what the build delivers (for dpkg-buildpackage the packages it leaves\n"
          "in '..', else every product) and, for each artifact that differs, say its own\n"
          "root causes (the process, the file, the chain to the artifact, as 'diff' does)\n"
          "and the variations that may explain each from what the process did (listed a\n"
          "directory, read $HOME, ran date or hostname, another LANG...).  With --bisect,\n"
          "rebuild with halves of the variations until each cause is pinned to the\n"
          "variation(s) that trigger it.  docs/repro.md has the details.\n"
          "\n"
          "Options:\n"
          "  -o, --output DIR      keep the copies, traces and build logs in DIR (new or\n"
          "                        empty; default: a new directory NAME.repro beside the\n"
          "                        tree, named on stderr)\n"
          "      --vary LIST       the variations (reprotest's names, comma-separated:\n"
          "                        environment, build_path, fileordering, home, kernel,\n"
          "                        locales, exec_path, time, timezone, umask, user_group,\n"
          "                        domain_host, num_cpus, aslr; all: every one but time;\n"
          "                        +NAME adds, -NAME removes; given again, it goes on\n"
          "                        from the last LIST; default: all)\n"
          "      --bisect          pin each root cause to the variation(s) that trigger it\n"
          "                        (one more build per step)\n"
          "      --artifacts GLOB  compare the products GLOB matches (relative to the tree,\n"
          "                        as out/*.tar or ../*.deb, or absolute; repeatable)\n"
          "      --diffoscope      add diffoscope's report for each artifact that differs\n"
          "                        (when diffoscope is installed)\n"
          "      --json            print the report as one JSON document (docs/json.md)\n"
          "      --system[=TREES], --no-tmp, --private-tmp, --env-redact NAME,\n"
          "      --argv-redact WORD, --hash-limit SIZE, --cache-lookups,\n"
          "      --only-inputs MANIFEST  passed on to each build's 'buildtrail run'\n"
          "  -h, --help            print this help\n"
          "\n"
          "Exit status: 0 reproducible (every artifact identical); 1 not; 2 an error (bad\n"
          "input, a build that failed: nothing is compared); 128+N when signal N stopped\n"
          "it (the copies are kept, and where they are is said).\n",
          f);
}

static const struct option options[] = {
    {"output", required_argument, NULL, 'o'},   {"vary", required_argument, NULL, 'V'},
    {"bisect", no_argument, NULL, 'B'},         {"artifacts", required_argument, NULL, 'a'},
    {"diffoscope", no_argument, NULL, 'D'},     {"json", no_argument, NULL, 'j'},
    {"system", optional_argument, NULL, 'S'},   {"no-tmp", no_argument, NULL, 'N'},
    {"private-tmp", no_argument, NULL, 'p'},    {"env-redact", required_argument, NULL, 'E'},
    {"argv-redact", required_argument, NULL, 'A'}, {"hash-limit", required_argument, NULL, 'L'},
    {"cache-lookups", no_argument, NULL, 'M'},  {"only-inputs", required_argument, NULL, 'I'},
    {"help", no_argument, NULL, 'h'},           {0}};

/* A run option passed on: its long name (and value). */
static void pass_on(struct repro_cli *c, int opt, const char *arg)
{
    for (const struct option *o = options; o->name; o++)
        if (o->val == opt) {
            if (o->has_arg == required_argument) {
                g_ptr_array_add(c->run_args, g_strdup_printf("--%s", o->name));
                g_ptr_array_add(c->run_args, g_strdup(arg));
            } else if (arg)
                g_ptr_array_add(c->run_args, g_strdup_printf("--%s=%s", o->name, arg));
            else
                g_ptr_array_add(c->run_args, g_strdup_printf("--%s", o->name));
        }
}

/* -1 to go on, else the exit status (after printing). */
static int parse(int argc, char **argv, struct repro_cli *c)
{
    c->vary = RV_DEFAULT;
    opterr = 0;
    optind = 1;
    int opt;
    while ((opt = getopt_long(argc, argv, "+o:h", options, NULL)) != -1) {
        char *err = NULL;
        switch (opt) {
        case 'o': c->out = optarg; break;
        case 'V': /* run's own parser, and run's way: `--vary all --vary -umask` */
            g_string_append_printf(c->vary_list, "%s%s", c->vary_list->len ? "," : "", optarg);
            if (vary_parse(c->vary_list->str, &c->vary, &err) < 0) {
                fprintf(stderr, "buildtrail repro: --vary %s\n", err);
                g_free(err);
                return 2;
            }
            break;
        case 'B': c->bisect = true; break;
        case 'a': g_ptr_array_add(c->globs, g_strdup(optarg)); break;
        case 'D': c->diffoscope = true; break;
        case 'j': c->json = true; break;
        case 'h': usage(stdout); return 0;
        case 'I': {
            g_autofree char *abs = g_canonicalize_filename(optarg, NULL);
            pass_on(c, opt, abs); /* the builds run elsewhere */
            break;
        }
        case '?': {
            const char *name = NULL;
            for (const struct option *o = options; o->name && optopt; o++)
                if (o->val == optopt)
                    name = o->name;
            if (name || optopt == 'o')
                fprintf(stderr, "buildtrail repro: --%s needs a value; see 'buildtrail repro "
                                "--help'\n", name ? name : "output");
            else if (optopt)
                fprintf(stderr, "buildtrail repro: -%c is not an option of repro; see "
                                "'buildtrail repro --help'\n", optopt);
            else
                fprintf(stderr, "buildtrail repro: %s: not an option of repro; see 'buildtrail "
                                "repro --help'\n", argv[optind - 1]);
            return 2;
        }
        default: pass_on(c, opt, optarg); break;
        }
    }
    if (optind >= argc) {
        fputs("buildtrail repro: no command given; e.g. 'buildtrail repro -- make'\n", stderr);
        return 2;
    }
    return -1;
}

/* The variations a run option LIST takes (build_path is repro's own: where the copy is). */
static void vary_args(GPtrArray *args, const char *option, uint32_t set)
{
    set &= ~RV_BIT(RV_BUILD_PATH);
    if (!set)
        return;
    g_ptr_array_add(args, g_strdup(option));
    g_ptr_array_add(args, reproeng_vary_list(set));
}

struct repro_run {
    const struct repro_cli *cli;
    const char *src, *out;
    const char *const *cmd;
    unsigned n_builds;
};

/* One traced build with the control's values of `control` but the experiment's of
 * `experiment` (within it, or control 0: the experiment). */
static int one_build(struct repro_run *rr, const char *slot, uint32_t control,
                     uint32_t experiment, struct reprorun_build *b)
{
    GPtrArray *args = g_ptr_array_new_with_free_func(g_free);
    for (guint i = 0; i < rr->cli->run_args->len; i++)
        g_ptr_array_add(args, g_strdup(rr->cli->run_args->pdata[i]));
    vary_args(args, "--vary-control", control);
    vary_args(args, "--vary", experiment);
    g_ptr_array_add(args, NULL);
    char *err = NULL;
    bool other = experiment & RV_BIT(RV_BUILD_PATH);
    int r = reprorun_build(rr->out, rr->src, slot, other, (const char *const *)args->pdata,
                           rr->cmd, b, &err);
    g_ptr_array_free(args, TRUE);
    rr->n_builds++;
    if (r == -EINTR) {
        fprintf(stderr, "buildtrail repro: stopped by signal %d during the %s build; the copies "
                        "and traces so far are in %s (this build's copy: %s)\n",
                reprorun_stopped(), slot, rr->out, b->copy);
        g_free(err);
        return 128 + reprorun_stopped();
    }
    if (r < 0) {
        fprintf(stderr, "buildtrail repro: the %s build: %s; the copies are in %s\n", slot, err,
                rr->out);
        g_free(err);
        return 2;
    }
    if (b->status) {
        if (!access(b->trace, F_OK)) {
            fprintf(stderr, "buildtrail repro: the %s build failed (exit %d); its output is in "
                            "%s, its trace %s\n", slot, b->status, b->log, b->trace);
            return 2;
        }
        /* run stopped before the build (a bad option, a command not found): its reason */
        g_autofree char *said = NULL;
        (void)g_file_get_contents(b->log, &said, NULL, NULL);
        g_strchomp(said ? said : (said = g_strdup("")));
        const char *last = strrchr(said, '\n');
        fprintf(stderr, "buildtrail repro: the %s build failed (exit %d): %s (no trace written; "
                        "its output is in %s)\n", slot, b->status, last ? last + 1 : said, b->log);
        return 2;
    }
    return 0;
}


/* The variables the variations set differ in every process: no cause; with locales, the
 * locales' data another LANG makes every process read is no input either. */
static void expect_env(struct diffeng *d, uint32_t set)
{
    for (int v = 0; v < RV_COUNT; v++)
        if (set & RV_BIT(v))
            for (const char *const *n = reproeng_expected_env(v); *n; n++)
                diffeng_expect_env(d, *n);
    if (!(set & RV_BIT(RV_LOCALES)))
        return;
    diffeng_expect_path(d, "/usr/lib/locale");
    const char *locpath = g_getenv("LOCPATH"); /* glibc's own search path (vary reads it) */
    g_auto(GStrv) dirs = g_strsplit(locpath ? locpath : "", ":", -1);
    for (int i = 0; dirs[i]; i++)
        if (dirs[i][0] == '/')
            diffeng_expect_path(d, dirs[i]);
}

struct repro_state {
    struct repro_run *rr;
    struct repro_report *rep;
    struct prov *p[2];
    int status; /* a bisect build's error status, or 0 */
};

/* What the experiment's trace says was varied (build_path: whether its copy was built at
 * another path); what was asked and not made goes to not_applied. */
static void variations_made(struct repro_report *r)
{
    (void)reproeng_variations_made(r->q[1], r->asked, &r->applied, r->not_applied);
    if ((r->asked & RV_BIT(RV_BUILD_PATH)) && strcmp(r->build[0]->built_at, r->build[1]->built_at))
        r->applied |= RV_BIT(RV_BUILD_PATH);
}

/* Each cause that reaches an artifact, once, in the artifacts' order, with its hints. */
static void collect_causes(struct repro_report *r)
{
    const struct diffeng_model *m = diffeng_run(r->d);
    for (guint i = 0; i < r->artifacts->len; i++) {
        const struct reproeng_artifact *a = r->artifacts->pdata[i];
        if (a->state != RA_DIFFERS)
            continue;
        GArray *ci = diffeng_causes_of(r->d, a->path);
        for (guint k = 0; k < ci->len; k++) {
            size_t c = g_array_index(ci, size_t, k);
            if (g_hash_table_contains(r->hints, GSIZE_TO_POINTER(c + 1)))
                continue;
            struct reproeng_facts f;
            reproeng_cause_facts(r->q[0], r->q[1], m, m->causes->pdata[c], r->asked, &f);
            g_hash_table_insert(r->hints, GSIZE_TO_POINTER(c + 1),
                                GUINT_TO_POINTER(reproeng_hints(&f)));
            reproeng_facts_clear(&f);
            g_array_append_val(r->causes, c);
        }
        g_array_unref(ci);
    }
}

/* An artifact that differs: its file in copy_a and in copy_b (g_free both); false for one that
 * does not differ, or that lies outside the copies (one file on disk for both builds). */
static bool differing_files(const struct diffeng_model *m, const struct reproeng_artifact *a,
                            const char *copy_a, const char *copy_b, char **fa, char **fb)
{
    if (a->state != RA_DIFFERS)
        return false;
    g_autofree char *rel = reproeng_rel(m, a->path);
    *fa = g_canonicalize_filename(rel, copy_a);
    *fb = g_canonicalize_filename(rel, copy_b);
    if (strcmp(*fa, *fb))
        return true;
    g_clear_pointer(fa, g_free);
    g_clear_pointer(fb, g_free);
    return false;
}

/* Whether two regular files hold the same bytes (false when either cannot be read). */
static bool same_bytes(const char *fa, const char *fb)
{
    int fd[2] = {archive_open_regular(fa, NULL), archive_open_regular(fb, NULL)};
    struct stat st[2];
    bool same = fd[0] >= 0 && fd[1] >= 0 && !fstat(fd[0], &st[0]) && !fstat(fd[1], &st[1]) &&
                st[0].st_size == st[1].st_size;
    char *buf[2] = {g_malloc(1 << 16), g_malloc(1 << 16)};
    while (same && !reprorun_stopped()) {
        ssize_t n = read(fd[0], buf[0], 1 << 16);
        same = n >= 0 && read(fd[1], buf[1], (size_t)n) == n && !memcmp(buf[0], buf[1], (size_t)n);
        if (n <= 0)
            break;
    }
    for (int i = 0; i < 2; i++) {
        g_free(buf[i]);
        if (fd[i] >= 0)
            close(fd[i]);
    }
    return same && !reprorun_stopped(); /* cut short: not known */
}

/* The differing artifacts whose two files on disk are the same bytes are identical, whatever
 * the traces said: a file past --hash-limit has no hash in either, which diffeng counts as
 * differing. */
static void settle_on_disk(const struct diffeng_model *m, GPtrArray *artifacts,
                           const char *copy_a, const char *copy_b)
{
    for (guint i = 0; i < artifacts->len && !reprorun_stopped(); i++) {
        struct reproeng_artifact *a = artifacts->pdata[i];
        g_autofree char *fa = NULL, *fb = NULL;
        if (differing_files(m, a, copy_a, copy_b, &fa, &fb) && same_bytes(fa, fb))
            a->state = RA_IDENTICAL;
    }
}

static gint by_name(gconstpointer a, gconstpointer b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* By default, when the build delivers files apart (beside its directory), the other products
 * are no artifacts: those that differ are said all the same (left_out), so that a verdict on
 * the files delivered never passes over the tree's own in silence. */
static void products_left_out(struct repro_report *r, const GPtrArray *globs)
{
    const struct diffeng_model *m = diffeng_run(r->d);
    r->left_out = g_ptr_array_new_with_free_func(g_free);
    if ((globs && globs->len) || !m->artifacts->len)
        return;
    const GPtrArray *lists[] = {m->differ, m->only_a, m->only_b};
    for (size_t l = 0; l < G_N_ELEMENTS(lists); l++)
        for (guint i = 0; i < lists[l]->len; i++) {
            struct reproeng_artifact p = {lists[l]->pdata[i], l ? RA_ONLY_CONTROL : RA_DIFFERS};
            g_autofree char *fa = NULL, *fb = NULL;
            if (diffeng_is_artifact(r->d, p.path) ||
                (differing_files(m, &p, r->build[0]->copy, r->build[1]->copy, &fa, &fb) &&
                 same_bytes(fa, fb)))
                continue;
            g_ptr_array_add(r->left_out, reproeng_rel(m, p.path));
        }
    g_ptr_array_sort(r->left_out, by_name);
}

/* Each differing artifact's two files on disk (in the copies) compared member by member; a
 * signal ends it at once (an artifact may inflate to gigabytes). */
static void compare_members(struct repro_report *r)
{
    const struct diffeng_model *m = diffeng_run(r->d);
    r->members = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
                                       (GDestroyNotify)g_ptr_array_unref);
    r->member_errors = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    const struct artcmp_opts opts = {.limits = {.cancel = reprorun_stop_flag()}};
    for (guint i = 0; i < r->artifacts->len && !reprorun_stopped(); i++) {
        const struct reproeng_artifact *a = r->artifacts->pdata[i];
        g_autofree char *fa = NULL, *fb = NULL;
        if (!differing_files(m, a, r->build[0]->copy, r->build[1]->copy, &fa, &fb))
            continue;
        GPtrArray *diffs = NULL;
        char *why = NULL;
        if (artcmp_compare(fa, fb, &opts, &diffs, &why) < 0)
            g_hash_table_insert(r->member_errors, g_strdup(a->path), why);
        else
            g_hash_table_insert(r->members, g_strdup(a->path), diffs);
    }
}

/* The keys of the causes that reach the artifacts of a comparison. */
static GHashTable *artifact_keys(struct diffeng *d, GPtrArray *artifacts)
{
    GHashTable *keys = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    const struct diffeng_model *m = diffeng_run(d);
    for (guint i = 0; i < artifacts->len; i++) {
        const struct reproeng_artifact *a = artifacts->pdata[i];
        if (a->state != RA_DIFFERS)
            continue;
        GArray *ci = diffeng_causes_of(d, a->path);
        for (guint k = 0; k < ci->len; k++)
            g_hash_table_add(keys, reproeng_cause_key(m, m->causes->pdata[g_array_index(ci, size_t, k)]));
        g_array_unref(ci);
    }
    return keys;
}

/* A bisect step: the control rebuilt with the experiment's values of `set` (run
 * --vary-control ASKED --vary SET), compared with the control itself; `set` 0 is the control
 * built again, which shows what differs with nothing varied. */
static GHashTable *bisect_build(uint32_t set, void *ctx)
{
    struct repro_state *s = ctx;
    g_autofree char *slot = g_strdup_printf("bisect-%u", s->rep->bisect_builds + 1);
    struct reprorun_build b = {0};
    GHashTable *keys = NULL;
    s->rep->bisect_builds++;
    s->status = one_build(s->rr, slot, s->rep->asked, set, &b);
    struct qdb *q = s->status ? NULL : query_open("repro", b.trace);
    struct prov *p = q ? query_open_prov("repro", q) : NULL;
    if (p) {
        struct diffeng *d = diffeng_new(s->rep->q[0], s->p[0], q, p);
        expect_env(d, set);
        GPtrArray *arts = reproeng_artifacts(d, s->rr->cli->globs);
        settle_on_disk(diffeng_run(d), arts, s->rep->build[0]->copy, b.copy);
        if (qdb_failed(q) ? !query_failed(q) : true)
            keys = artifact_keys(d, arts);
        g_ptr_array_unref(arts);
        diffeng_free(d);
    }
    if (!keys && !s->status)
        s->status = 2;
    if (p)
        prov_free(p);
    if (q)
        qdb_close(q);
    reprorun_build_clear(&b);
    return keys;
}

/* Each step's build is the control's but for a subset S of the variations, which take the
 * experiment's values: compared with the control, it differs from it in S alone.  The first
 * (reproeng_bisect's build(0)) is a second control build: what it shows is the build's own. */
static void bisect(struct repro_state *s)
{
    struct repro_report *r = s->rep;
    const struct diffeng_model *m = diffeng_run(r->d);
    r->bisected = true;
    GHashTable *wanted = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    for (guint i = 0; i < r->causes->len; i++)
        g_hash_table_add(wanted, reproeng_cause_key(m, m->causes->pdata[g_array_index(r->causes, size_t, i)]));
    r->bisect_failed = !reproeng_bisect(r->applied, wanted, bisect_build, s, &r->pins);
    g_hash_table_unref(wanted);
}

/* diffoscope's text report on each artifact that differs (or that it is not installed). */
static void run_diffoscope(struct repro_report *r)
{
    g_autofree char *prog = g_find_program_in_path("diffoscope");
    if (!prog) {
        r->diffoscope_missing = true;
        return;
    }
    const struct diffeng_model *m = diffeng_run(r->d);
    r->diffoscope_text = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    for (guint i = 0; i < r->artifacts->len && !reprorun_stopped(); i++) {
        const struct reproeng_artifact *a = r->artifacts->pdata[i];
        g_autofree char *fa = NULL, *fb = NULL;
        if (!differing_files(m, a, r->build[0]->copy, r->build[1]->copy, &fa, &fb))
            continue;
        const char *argv[] = {prog, "--text", "-", fa, fb, NULL};
        char *text = NULL;
        GError *e = NULL;
        if (!g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
                          &text, NULL, NULL, &e)) {
            text = g_strdup_printf("(diffoscope could not run: %s)\n", e->message);
            g_error_free(e);
        }
        g_hash_table_insert(r->diffoscope_text, g_strdup(a->path), text);
    }
}

bool repro_differs(const struct repro_report *r)
{
    for (guint i = 0; i < r->artifacts->len; i++)
        if (((const struct reproeng_artifact *)r->artifacts->pdata[i])->state != RA_IDENTICAL)
            return true;
    return false;
}

/* Compare the two builds and report; the exit status. */
static int compare(struct repro_state *s)
{
    struct repro_report *r = s->rep;
    for (int i = 0; i < 2; i++) {
        r->q[i] = query_open("repro", r->build[i]->trace);
        s->p[i] = r->q[i] ? query_open_prov("repro", r->q[i]) : NULL;
        if (!s->p[i])
            return 2;
    }
    r->d = diffeng_new(r->q[0], s->p[0], r->q[1], s->p[1]);
    expect_env(r->d, r->asked);
    diffeng_run(r->d);
    variations_made(r);
    r->artifacts = reproeng_artifacts(r->d, s->rr->cli->globs);
    const char *none = reproeng_glob_unmatched(r->d, s->rr->cli->globs, r->artifacts);
    if (none) { /* else "reproducible" on nothing compared */
        fprintf(stderr, "buildtrail repro: --artifacts %s matches no file either build made "
                        "(a path relative to the tree, like out/*.tar or ../*.deb, or "
                        "absolute); the builds are in %s\n", none, s->rr->out);
        return 2;
    }
    if (!r->artifacts->len) { /* "reproducible" on nothing: a tree built already, a no-op */
        fprintf(stderr, "buildtrail repro: neither build made a file, so there is nothing to "
                        "compare (a tree built already? clean it first, e.g. make clean, or name "
                        "what the build makes with --artifacts GLOB); the builds are in %s\n",
                s->rr->out);
        return 2;
    }
    settle_on_disk(diffeng_run(r->d), r->artifacts, r->build[0]->copy, r->build[1]->copy);
    products_left_out(r, s->rr->cli->globs);
    collect_causes(r);
    compare_members(r);
    for (int i = 0; i < 2; i++)
        if (qdb_failed(r->q[i])) {
            query_failed(r->q[i]);
            return 2;
        }
    /* A bisect build that failed (one_build said why) leaves the pins partial: the report of
     * the two builds is still given, then the exit says the error. */
    int failed = 0;
    if (s->rr->cli->bisect && !reprorun_stopped()) { /* no cause: bisected with no build */
        bisect(s);
        failed = s->status;
    }
    if (s->rr->cli->diffoscope)
        run_diffoscope(r);
    if (reprorun_stopped()) { /* while comparing: no report, as during a build */
        fprintf(stderr, "buildtrail repro: stopped by signal %d while comparing; the copies "
                        "and traces are in %s\n", reprorun_stopped(), s->rr->out);
        return 128 + reprorun_stopped();
    }
    GString *out = g_string_new(NULL);
    if (s->rr->cli->json)
        repro_render_json(out, r);
    else
        repro_render_text(out, r);
    int st = query_emit(NULL, out) ? 2 : failed ? failed : repro_differs(r) ? 1 : 0;
    g_string_free(out, TRUE);
    if (r->diffoscope_missing)
        fputs("buildtrail repro: --diffoscope: diffoscope is not installed (apt install "
              "diffoscope); its reports are left out\n", stderr);
    return st;
}

static void report_free(struct repro_state *s)
{
    struct repro_report *r = s->rep;
    if (r->d)
        diffeng_free(r->d);
    for (int i = 0; i < 2; i++) {
        if (s->p[i])
            prov_free(s->p[i]);
        if (r->q[i])
            qdb_close(r->q[i]);
    }
    if (r->artifacts)
        g_ptr_array_unref(r->artifacts);
    if (r->left_out)
        g_ptr_array_unref(r->left_out);
    g_array_unref(r->causes);
    g_hash_table_unref(r->hints);
    g_ptr_array_unref(r->not_applied);
    if (r->pins)
        g_hash_table_unref(r->pins);
    if (r->diffoscope_text)
        g_hash_table_unref(r->diffoscope_text);
    if (r->members)
        g_hash_table_unref(r->members);
    if (r->member_errors)
        g_hash_table_unref(r->member_errors);
}

static int repro_steps(struct repro_run *rr, int argc, char **cmd)
{
    struct reprorun_build b[2] = {{0}, {0}};
    g_autofree char *command = NULL;
    GString *c = g_string_new(NULL);
    for (int i = 0; i < argc; i++)
        g_string_append_printf(c, "%s%s", i ? " " : "", cmd[i]);
    command = g_string_free(c, FALSE);
    struct repro_report rep = {.out = rr->out, .command = command, .build = {&b[0], &b[1]},
                               .asked = rr->cli->vary,
                               .not_applied = g_ptr_array_new_with_free_func(g_free),
                               .causes = g_array_new(FALSE, FALSE, sizeof(size_t)),
                               .hints = g_hash_table_new(g_direct_hash, g_direct_equal),
                               .diffoscope = rr->cli->diffoscope};
    struct repro_state s = {.rr = rr, .rep = &rep};
    int st = one_build(rr, "control", rr->cli->vary, 0, &b[0]);
    if (!st)
        st = one_build(rr, "experiment", 0, rr->cli->vary, &b[1]);
    if (!st)
        st = compare(&s);
    report_free(&s);
    reprorun_build_clear(&b[0]);
    reprorun_build_clear(&b[1]);
    return st;
}

/* An --artifacts GLOB as the artifacts' paths are spelled: relative to the tree without "./"
 * or "//" (./out/a.txt is out/a.txt); absolute inside the tree (src, or the same directory as
 * $PWD names it), relative too: the builds ran in copies elsewhere, never at that path. */
static char *glob_in_tree(const char *glob, const char *src)
{
    if (g_path_is_absolute(glob)) {
        g_autofree char *canon = g_canonicalize_filename(glob, NULL);
        const char *pwd = g_getenv("PWD");
        g_autofree char *pwd_real = pwd && g_path_is_absolute(pwd) ? realpath(pwd, NULL) : NULL;
        const char *roots[] = {src, pwd_real && !strcmp(pwd_real, src) ? pwd : NULL};
        for (size_t i = 0; i < G_N_ELEMENTS(roots); i++) {
            g_autofree char *root = roots[i] ? g_canonicalize_filename(roots[i], NULL) : NULL;
            size_t l = root ? strlen(root) : 0;
            if (l > 1 && !strncmp(canon, root, l) && canon[l] == '/' && canon[l + 1])
                return g_strdup(canon + l + 1);
        }
        return g_steal_pointer(&canon);
    }
    g_auto(GStrv) parts = g_strsplit(glob, "/", -1);
    GString *out = g_string_new(NULL);
    for (int i = 0; parts[i]; i++)
        if (*parts[i] && strcmp(parts[i], "."))
            g_string_append_printf(out, "%s%s", out->len ? "/" : "", parts[i]);
    if (!out->len)
        g_string_assign(out, glob);
    return g_string_free(out, FALSE);
}

int query_repro_main(int argc, char **argv)
{
    struct repro_cli cli = {.globs = g_ptr_array_new_with_free_func(g_free),
                            .run_args = g_ptr_array_new_with_free_func(g_free),
                            .vary_list = g_string_new(NULL)};
    g_autoptr(GString) vary_list = cli.vary_list;
    g_autoptr(GPtrArray) globs = cli.globs;
    g_autoptr(GPtrArray) run_args = cli.run_args;
    int r = parse(argc, argv, &cli);
    if (r >= 0)
        return r;
    /* the real path: `cp -a` copies a symbolic link given as the source as a link */
    g_autofree char *src = realpath(".", NULL);
    if (!src) {
        fprintf(stderr, "buildtrail repro: cannot resolve the current directory: %s\n",
                g_strerror(errno));
        return 2;
    }
    if (!strcmp(src, "/")) {
        fputs("buildtrail repro: it copies the directory it runs in, here / (the whole machine); "
              "cd into the source tree first\n", stderr);
        return 2;
    }
    for (guint i = 0; i < cli.globs->len; i++) {
        char *g = glob_in_tree(cli.globs->pdata[i], src);
        g_free(cli.globs->pdata[i]);
        cli.globs->pdata[i] = g;
    }
    g_autofree char *out = NULL;
    char *err = NULL;
    if (reprorun_outdir(cli.out, src, &out, &err) < 0) {
        fprintf(stderr, "buildtrail repro: %s\n", err);
        g_free(err);
        return 2;
    }
    int e = reprorun_outdir_make(out);
    if (e < 0) {
        fprintf(stderr, "buildtrail repro: cannot make %s: %s\n", out, g_strerror(-e));
        return 2;
    }
    fprintf(stderr, "buildtrail repro: the copies, traces and build logs go to %s\n", out);
    struct repro_run rr = {&cli, src, out, (const char *const *)argv + optind, 0};
    reprorun_signals_begin();
    r = repro_steps(&rr, argc - optind, argv + optind);
    reprorun_signals_end();
    return r;
}
