/* diff: why two builds of the same source differ — which products differ, and the root
 * causes behind them, followed down the provenance graph of each trace.
 *
 * Products are matched by path, the first build's paths mapped onto the second's (each
 * --map OLD=NEW, then the layout: where the two directories part), and compared by SHA-256.  For a
 * product that differs, the process that made it in each build is the one that wrote it
 * (matched by what it wrote, never by pid or order); its direct inputs are paired by path
 * (temporaries, whose names are random, by directory and extension in reading order), and
 * every pair that differs is explained the same way, down to the first points where the
 * builds diverge: the root causes.
 *   input      a file found outside the build (or before it) whose content differs;
 *   origin     made by the build in one and found in the other;
 *   inputs     a process read a file in one build only;
 *   argv       a process read the same inputs but was run with other arguments;
 *   environment  ... or with another environment;
 *   executable, cwd  ... or as another program (not traced: found on another PATH), or in
 *              another directory (after mapping; PWD and OLDPWD follow it and are not an
 *              environment cause then);
 *   nondeterminism  ... the same in every way it can be told apart, yet its output differs
 *              (the clock, randomness, the order of a directory listing, the build path; or,
 *              when the program was not traced, the program's content — said so).
 *   build path  the files differ by the build's layout paths alone (still on disk), or a
 *              compile with debug information recorded its directory: one cause for all.
 * Each root cause lists the products it reaches; a product is listed under every cause that
 * reaches it.  When the build delivers artifacts (the packages beside its directory, the files
 * installed into debian/PKG/), they lead: their counts and the packages by name, then the
 * causes that reach them (the artifacts alone, intermediate files as their chains), then the
 * causes that reach intermediate files only.
 * Exit: 0 identical, 1 the products differ, 2 an error or a usage error.
 *
 * The engine is query/lib/diffeng (the model); this file parses the command line, runs it
 * and renders the model as text or JSON. */
#include "diffeng.h"
#include "driver.h"
#include "jsonw.h"
#include "query.h"
#include "textout.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

struct diff_cli {
    GPtrArray *maps;     /* "OLD=NEW" */
    GPtrArray *excludes; /* globs */
};

static int diff_option(void *ctx, int c, const char *arg)
{
    struct diff_cli *o = ctx;
    if (c == 'x') {
        g_ptr_array_add(o->excludes, g_strdup(arg));
        return 0;
    }
    if (c != 'm')
        return 2;
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || arg[0] != '/' || eq[1] != '/') {
        fprintf(stderr, "buildtrail diff: --map %s: give OLD=NEW, two absolute paths (the first "
                        "build's and the second's)\n", arg);
        return 2;
    }
    g_ptr_array_add(o->maps, g_strdup(arg));
    return 0;
}

static const struct option diff_options[] = {{"map", required_argument, NULL, 'm'},
                                             {"exclude", required_argument, NULL, 'x'},
                                             {0}};

static const struct query_command diff_command = {
    .name = "diff",
    .operands = "A.db B.db",
    .min_operands = 0, /* fewer than two: said below, naming what was given */
    .max_operands = 2,
    .about = "Why two builds of the same source differ.  Products (the files each build left)\n"
             "are matched by path, A's build directory mapped onto B's, and compared by\n"
             "SHA-256.  For each that differs, the process that wrote it in each build is\n"
             "compared: its inputs, paired by path, and those that differ followed down the\n"
             "provenance graph to the root causes, the first points where the builds\n"
             "diverge: an input found with other content (a system header, a tool), a file\n"
             "read in one build only, another argv or environment, or non-determinism (the\n"
             "same inputs, arguments and environment, another output: the clock,\n"
             "randomness, directory order, the build path).  Each root cause lists the\n"
             "products it reaches (another argument reads \"-O2 \u2192 -O1\", or \"removed W,\n"
             "added W\").  Traces recorded with and without --system compare, and what\n"
             "could not be compared is said; two builds with no product in common (two\n"
             "different projects) get a warning on stderr.\n",
    .options_help = "      --map OLD=NEW     A's path OLD is B's NEW (repeatable; A's build\n"
                    "                        directory maps onto B's without it)\n"
                    "      --exclude GLOB    leave out the products GLOB matches (relative to\n"
                    "                        B's build directory, or absolute; repeatable):\n"
                    "                        logs such as configure.log\n",
    .exit_help = "\nExit status: 0 the products are identical; 1 they differ; 2 an error (a\n"
                 "trace that cannot be read) or a usage error.\n",
    .options = diff_options,
    .option = diff_option,
};

static void text_process(GString *out, const char *name, struct qdb *q, int64_t id)
{
    const struct qdb_process *p = id ? qdb_process(q, id) : NULL;
    g_string_append_printf(out, "    in %s: ", name);
    if (p)
        query_text_process(out, p);
    else
        g_string_append(out, "(no process)");
    g_string_append_c(out, '\n');
}

/* A path for people: relative to B's build directory when under it. */
static void text_path(GString *out, const struct diffeng_model *m, const char *path)
{
    size_t l = strlen(m->root[1]);
    if (l > 1 && !strncmp(path, m->root[1], l) && path[l] == '/')
        path += l + 1;
    text_escape(out, path, strlen(path));
}

/* Root cause number `n`, index i: what, where, the processes, and the products it reaches
 * (when the build delivers artifacts and it reaches some, those alone: the intermediate
 * files are the chains to them). */
static void text_cause(GString *out, struct diffeng *d, struct qdb *const q[2], size_t i,
                       size_t n)
{
    const struct diffeng_model *m = diffeng_run(d);
    const struct diffeng_cause *c = m->causes->pdata[i];
    g_string_append_printf(out, "\nroot cause %zu: %s: ", n, diffeng_kind_name(c->kind));
    if (c->kind == DIFFENG_BUILD_PATH) { /* the paths are the headline, the file an example */
        text_escape(out, c->detail, strlen(c->detail));
        g_string_append(out, "\n    first in ");
        text_path(out, m, c->path);
    } else {
        text_path(out, m, c->path);
        g_string_append(out, "\n    ");
        text_escape(out, c->detail, strlen(c->detail));
    }
    g_string_append_c(out, '\n');
    if (c->proc[0] || c->proc[1]) {
        text_process(out, "A", q[0], c->proc[0]);
        text_process(out, "B", q[1], c->proc[1]);
        if (c->more_processes)
            g_string_append_printf(out, "    (and %u other process%s the same way)\n",
                                   c->more_processes, c->more_processes == 1 ? "" : "es");
    }
    bool only_artifacts = c->artifacts > 0;
    if (c->kind == DIFFENG_DENIED && !c->products->len)
        g_string_append(out, "    reaches the products through what the build decided from its "
                             "absence (a configure test's exit status), which the trace does not "
                             "follow: the causes after it may be its consequences\n");
    else if (only_artifacts)
        g_string_append_printf(out, "    reaches %u artifact%s (and %u intermediate file%s):\n",
                               c->artifacts, c->artifacts == 1 ? "" : "s",
                               c->products->len - c->artifacts,
                               c->products->len - c->artifacts == 1 ? "" : "s");
    else
        g_string_append_printf(out, "    reaches %u product%s:\n", c->products->len,
                               c->products->len == 1 ? "" : "s");
    for (guint k = 0; k < c->products->len; k++) {
        if (only_artifacts && !diffeng_is_artifact(d, c->products->pdata[k]))
            continue;
        g_string_append(out, "      ");
        text_path(out, m, c->products->pdata[k]);
        GPtrArray *hops = diffeng_chain(d, c->products->pdata[k], i);
        for (guint h = 0; h < hops->len; h++) {
            g_string_append(out, h ? " <- " : "  <- ");
            text_path(out, m, hops->pdata[h]);
        }
        g_ptr_array_free(hops, TRUE);
        g_string_append_c(out, '\n');
    }
}

/* The artifacts first: how many of each kind, and each one the build left beside its
 * directory (the packages) or that differs, by name. */
static void text_artifacts(GString *out, struct diffeng *d)
{
    const struct diffeng_model *m = diffeng_run(d);
    const GPtrArray *lists[] = {m->identical, m->differ, m->only_a, m->only_b};
    const char *const says[] = {"identical", "differs", "only in A", "only in B"};
    unsigned count[4] = {0};
    GString *named = g_string_new(NULL);
    size_t lr = strlen(m->root[1]);
    for (size_t l = 0; l < G_N_ELEMENTS(lists); l++)
        for (guint i = 0; i < lists[l]->len; i++) {
            const char *p = lists[l]->pdata[i];
            if (!diffeng_is_artifact(d, p))
                continue;
            count[l]++;
            bool beside = strncmp(p, m->root[1], lr) || p[lr] != '/';
            if (!beside && l == 0)
                continue; /* (an identical installed file: counted) */
            g_string_append_printf(named, "  %s: ", says[l]);
            text_path(named, m, p);
            g_string_append_c(named, '\n');
        }
    g_string_append_printf(out, "artifacts: %u identical, %u differ, %u only in A, %u only in "
                                "B\n%s", count[0], count[1], count[2], count[3], named->str);
    g_string_free(named, TRUE);
}

static void render_text(GString *out, struct diffeng *d, struct qdb *const q[2])
{
    const struct diffeng_model *m = diffeng_run(d);
    g_string_append(out, "A: ");
    text_escape(out, m->root[0], strlen(m->root[0]));
    g_string_append(out, "\nB: ");
    text_escape(out, m->root[1], strlen(m->root[1]));
    g_string_append_c(out, '\n');
    if (m->artifacts->len)
        text_artifacts(out, d);
    g_string_append_printf(out, "products: %u identical, %u differ, %u only in A, %u only "
                                "in B\n", m->identical->len, m->differ->len, m->only_a->len,
                           m->only_b->len);
    /* the causes that reach artifacts first (none delivered apart: one list, as found) */
    size_t n = 0;
    bool heading = false;
    for (int pass = 0; pass < 2; pass++)
        for (guint i = 0; i < m->causes->len; i++) {
            const struct diffeng_cause *c = m->causes->pdata[i];
            /* (a denial first, whatever it reaches: the likeliest cause) */
            bool first = c->kind == DIFFENG_DENIED || (m->artifacts->len && c->artifacts > 0);
            if (first != (pass == 0))
                continue;
            if (pass && m->artifacts->len && !heading) {
                g_string_append(out, "\nintermediate files only (reaching no artifact):\n");
                heading = true;
            }
            text_cause(out, d, q, i, ++n);
        }
    const char *titles[] = {"only in A", "only in B"};
    GPtrArray *lists[] = {m->only_a, m->only_b};
    for (int l = 0; l < 2; l++) {
        if (!lists[l]->len)
            continue;
        g_string_append_printf(out, "\n%s:\n", titles[l]);
        for (guint i = 0; i < lists[l]->len; i++) {
            g_string_append(out, "  ");
            text_path(out, m, lists[l]->pdata[i]);
            g_string_append_c(out, '\n');
        }
    }
    for (guint i = 0; i < m->not_compared->len; i++)
        g_string_append_printf(out, "\nnot compared: %s\n",
                               (const char *)m->not_compared->pdata[i]);
}

static void json_strings(struct jsonw *w, const char *key, const GPtrArray *list)
{
    jsonw_key(w, key);
    jsonw_array_begin(w);
    for (guint i = 0; i < list->len; i++)
        jsonw_string(w, list->pdata[i]);
    jsonw_array_end(w);
}

static void json_cause(struct jsonw *w, struct diffeng *d, struct qdb *const q[2], size_t i)
{
    const struct diffeng_cause *c = diffeng_run(d)->causes->pdata[i];
    jsonw_object_begin(w);
    jsonw_kv_string(w, "kind", diffeng_kind_name(c->kind));
    jsonw_kv_string(w, "path", c->path);
    for (int s = 0; s < 2; s++) {
        jsonw_key(w, s ? "process_b" : "process_a");
        const struct qdb_process *p = c->proc[s] ? qdb_process(q[s], c->proc[s]) : NULL;
        query_json_clock(q[s]); /* A's times on A's clock (B was opened last) */
        if (p)
            query_json_process(jsonw_raw_value(w), p);
        else
            jsonw_null(w);
    }
    jsonw_kv_string(w, "detail", c->detail);
    jsonw_key(w, "more_processes");
    jsonw_uint(w, c->more_processes);
    json_strings(w, "products", c->products);
    if (diffeng_run(d)->artifacts->len) {
        jsonw_key(w, "artifacts");
        jsonw_uint(w, c->artifacts);
    }
    jsonw_key(w, "chains");
    jsonw_array_begin(w);
    for (guint k = 0; k < c->products->len; k++) {
        GPtrArray *hops = diffeng_chain(d, c->products->pdata[k], i);
        jsonw_array_begin(w);
        for (guint h = 0; h < hops->len; h++)
            jsonw_string(w, hops->pdata[h]);
        jsonw_array_end(w);
        g_ptr_array_free(hops, TRUE);
    }
    jsonw_array_end(w);
    jsonw_object_end(w);
}

static void render_json(GString *out, struct diffeng *d, struct qdb *const q[2])
{
    const struct diffeng_model *m = diffeng_run(d);
    struct jsonw w;
    jsonw_init(&w, out);
    jsonw_object_begin(&w);
    jsonw_kv_int(&w, "json_version", QUERY_JSON_VERSION);
    jsonw_kv_bool(&w, "unrelated", m->unrelated);
    for (int s = 0; s < 2; s++) {
        jsonw_key(&w, s ? "b" : "a");
        jsonw_object_begin(&w);
        query_json_trace(jsonw_raw_members(&w), q[s]);
        jsonw_object_end(&w);
    }
    jsonw_key(&w, "identical");
    jsonw_uint(&w, m->identical->len);
    json_strings(&w, "differ", m->differ);
    json_strings(&w, "only_a", m->only_a);
    json_strings(&w, "only_b", m->only_b);
    json_strings(&w, "not_compared", m->not_compared);
    if (m->artifacts->len)
        json_strings(&w, "artifacts", m->artifacts);
    jsonw_key(&w, "root_causes");
    jsonw_array_begin(&w);
    for (guint i = 0; i < m->causes->len; i++)
        json_cause(&w, d, q, i);
    jsonw_array_end(&w);
    jsonw_object_end(&w);
    g_string_append_c(out, '\n');
}

/* One stderr line: A and B share no product; what each ran, where. */
static void warn_unrelated(struct qdb *const q[2], const struct diffeng_model *m)
{
    GString *e = g_string_new("buildtrail diff: A and B have no product in common (");
    for (int i = 0; i < 2; i++) {
        const struct qdb_process *root = qdb_process(q[i], qdb_run(q[i])->root_id);
        g_string_append(e, i ? "B: " : "A: ");
        if (root && root->argv && root->argv_len)
            text_argv(e, root->argv, root->argv_len);
        else
            g_string_append(e, "(command not recorded)");
        g_string_append(e, " in ");
        text_escape(e, m->root[i], strlen(m->root[i]));
        g_string_append(e, i ? "" : "; ");
    }
    g_string_append(e, "): they look like builds of two different projects; compare two builds "
                       "of one project, or map where B's files are with --map OLD=NEW\n");
    fputs(e->str, stderr);
    g_string_free(e, TRUE);
}

/* Compare the traces open in q/p; the exit status. */
static int diff_traces(struct qdb *const q[2], struct prov *const p[2], const struct diff_cli *cli,
                       bool json)
{
    struct diffeng *d = diffeng_new(q[0], p[0], q[1], p[1]);
    for (guint i = 0; i < cli->maps->len; i++) {
        char *m = cli->maps->pdata[i], *eq = strchr(m, '=');
        *eq = '\0';
        diffeng_add_map(d, m, eq + 1);
    }
    for (guint i = 0; i < cli->excludes->len; i++)
        diffeng_exclude(d, cli->excludes->pdata[i]);
    const struct diffeng_model *m = diffeng_run(d);
    GString *out = g_string_new(NULL);
    if (json)
        render_json(out, d, q);
    else
        render_text(out, d, q);
    int status = 2;
    bool failed = qdb_failed(q[0]) ? query_failed(q[0]) : query_failed(q[1]);
    if (!failed) {
        if (m->unrelated)
            warn_unrelated(q, m);
        status = query_emit(NULL, out) ? 2
                 : (m->differ->len || m->only_a->len || m->only_b->len) ? 1
                                                                        : 0;
    }
    g_string_free(out, TRUE);
    diffeng_free(d);
    return status;
}

int query_diff_main(int argc, char **argv)
{
    struct query_opts o = {0};
    struct diff_cli cli = {g_ptr_array_new_with_free_func(g_free),
                           g_ptr_array_new_with_free_func(g_free)};
    g_autoptr(GPtrArray) user_maps = cli.maps;
    g_autoptr(GPtrArray) excludes = cli.excludes;
    int r = query_parse(&diff_command, argc, argv, &o, &cli);
    if (r >= 0)
        return r == 1 ? 2 : r;
    if (argc - optind < 2) {
        if (argc - optind == 1)
            fprintf(stderr, "buildtrail diff: diff needs two traces, only %s given; compare it "
                            "with another: buildtrail diff A.db B.db\n", argv[optind]);
        else
            fputs("buildtrail diff: diff needs two traces, the builds to compare: buildtrail "
                  "diff A.db B.db\n", stderr);
        return 2;
    }
    struct qdb *q[2] = {NULL, NULL};
    struct prov *p[2] = {NULL, NULL};
    int status = 2;
    for (int i = 0; i < 2; i++) {
        q[i] = query_open("diff", argv[optind + i]);
        p[i] = q[i] ? query_open_prov("diff", q[i]) : NULL;
        if (!p[i])
            goto out;
    }
    status = diff_traces(q, p, &cli, o.json);
out:
    for (int i = 0; i < 2; i++) {
        if (p[i])
            prov_free(p[i]);
        if (q[i])
            qdb_close(q[i]);
    }
    return status;
}
