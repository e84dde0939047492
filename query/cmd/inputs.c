/* inputs / outputs: the provenance closure of a file, backwards and forwards (prov.h). */
#include "driver.h"
#include "jsonw.h"
#include "prov.h"
#include "query.h"
#include "textout.h"
#include "tracedb.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

struct walk_cli {
    struct query_opts common;
    bool leaves, roles, hashes;
    struct prov_walk_opts walk;
    GPtrArray *prune;
};

static void print_nodes_text(struct prov *p, GString *out, GArray *nodes, const struct walk_cli *o,
                             bool with_roles)
{
    for (int role = 0; role < (o->roles ? PROV_ROLE_COUNT : 1); role++) {
        guint shown = 0;
        for (guint pass = 0; pass < 2; pass++) {
            for (guint i = 0; i < nodes->len; i++) {
                const struct prov_node *n = &g_array_index(nodes, struct prov_node, i);
                if (o->leaves && n->v->origin != TRACEDB_VERSION_FOUND)
                    continue;
                if (o->roles && (int)n->role != role)
                    continue;
                if (pass == 0) {
                    shown++;
                    continue;
                }
                g_string_append(out, "  ");
                if (!o->roles && with_roles)
                    g_string_append_printf(out, "%-6s %-7s", prov_version_label(p, n->v),
                                           prov_role_name(n->role));
                else if (!o->roles)
                    g_string_append_printf(out, "%-6s ", prov_version_label(p, n->v));
                else
                    g_string_append_printf(out, "  %-6s", prov_version_label(p, n->v));
                if (o->hashes)
                    g_string_append_printf(out, "%-64s ", n->v->sha256[0] ? n->v->sha256 : "-");
                text_escape(out, n->v->path, strlen(n->v->path));
                /* The same path twice: tell its versions apart. */
                const struct prov_node *prev = i ? n - 1 : NULL;
                const struct prov_node *next = i + 1 < nodes->len ? n + 1 : NULL;
                if ((prev && !strcmp(prev->v->path, n->v->path)) ||
                    (next && !strcmp(next->v->path, n->v->path)))
                    g_string_append_printf(out, "  (version %" G_GINT64_FORMAT ")", n->v->id);
                if (n->guess)
                    g_string_append(out, "  (over-approximated)");
                if (!with_roles && n->role == PROV_ROLE_SCRIPT)
                    g_string_append(out, "  (made after reading it; does not carry it)");
                g_string_append_c(out, '\n');
            }
            if (pass == 0 && o->roles && shown)
                g_string_append_printf(out, "  %s (%u):\n", prov_role_title(role), shown);
            if (pass == 0 && !shown)
                break;
        }
    }
}

static void print_nodes_json(struct prov *p, struct jsonw *w, GArray *nodes,
                             const struct walk_cli *o, bool with_roles)
{
    for (guint i = 0; i < nodes->len; i++) {
        const struct prov_node *n = &g_array_index(nodes, struct prov_node, i);
        if (o->leaves && n->v->origin != TRACEDB_VERSION_FOUND)
            continue;
        query_json_version(jsonw_raw_object_begin(w), n->v);
        if (prov_is_temporary(p, n->v))
            jsonw_kv_bool(w, "temporary", true);
        if (with_roles)
            jsonw_kv_string(w, "role", prov_role_name(n->role));
        else
            jsonw_kv_bool(w, "carries", n->role != PROV_ROLE_SCRIPT);
        if (n->guess)
            jsonw_kv_bool(w, "guess", true);
        jsonw_kv_int(w, "depth", n->depth);
        jsonw_object_end(w);
    }
}

/* The JSON document of inputs (`v` the version asked about) or, v NULL, of outputs (`starts`
 * the versions of the file). */
static void json_walk(GString *out, struct qdb *q, struct prov *p, const struct query_path *qp,
                      const struct prov_version *v, GArray *starts, GArray *nodes,
                      const struct walk_cli *o)
{
    struct jsonw w;
    jsonw_init(&w, out);
    query_json_begin(jsonw_raw_object_begin(&w), q, NULL);
    jsonw_kv_string(&w, "path", qp->path);
    query_json_path_state(jsonw_raw_led_members(&w), qp);
    if (v) { /* "path", as outputs has it; "target" (its version) as before */
        jsonw_key(&w, "target");
        query_json_version(jsonw_raw_object_begin(&w), v);
        jsonw_object_end(&w);
    } else {
        jsonw_key(&w, "versions");
        jsonw_array_begin(&w);
        for (guint i = 0; i < starts->len; i++)
            jsonw_int(&w, g_array_index(starts, int64_t, i));
        jsonw_array_end(&w);
    }
    jsonw_key(&w, v ? "inputs" : "outputs");
    jsonw_array_begin(&w);
    print_nodes_json(p, &w, nodes, o, v != NULL);
    jsonw_array_end(&w);
    jsonw_object_end(&w);
    g_string_append_c(out, '\n');
}

static int walk_option(void *ctx, int c, const char *arg)
{
    struct walk_cli *o = ctx;
    switch (c) {
    case 'l':
        o->leaves = true;
        return 0;
    case 'r':
        o->roles = true;
        return 0;
    case 'H':
        o->hashes = true;
        return 0;
    case 'p':
        g_ptr_array_add(o->prune, qdb_absolute_path(arg));
        return 0;
    case 'S':
        o->walk.scripts = false;
        return 0;
    case 'T':
        o->walk.stop_at_shlibs = false;
        return 0;
    }
    return 2;
}

static const struct option inputs_options[] = {
    {"leaves", no_argument, NULL, 'l'},
    {"roles", no_argument, NULL, 'r'},
    {"hashes", no_argument, NULL, 'H'},
    {"prune", required_argument, NULL, 'p'},
    {"no-scripts", no_argument, NULL, 'S'},
    {"through-shlibs", no_argument, NULL, 'T'},
    {0}};

static const struct option outputs_options[] = {
    {"hashes", no_argument, NULL, 'H'},
    {"prune", required_argument, NULL, 'p'},
    {"no-scripts", no_argument, NULL, 'S'},
    {0}};

static const struct query_command inputs_command = {
    .name = "inputs",
    .flags = QUERY_CUT_ARGV,
    .operands = "PATH",
    .min_operands = 1,
    .max_operands = 1,
    .about = "Everything PATH was made from: the version of PATH last seen in the build,\n"
             "the processes that wrote it, the files they read before writing it, and so\n"
             "on back to files the build did not make (the sources).  Each line shows\n"
             "whether the file was found, built, or temp (built and removed by the build, as\n"
             "cc's /tmp/cc*.s), and its role.  Code, what PATH carries:\n"
             "  source (compiled), header (included), object (linked object/archive),\n"
             "  copy (copied, stripped, compressed, a filled template), generated-from (a\n"
             "  generator's input), shlib (shared library: linked dynamically, listed and\n"
             "  not followed).  Influence, what decided how it was made but is not in it:\n"
             "  tool (executed), script (read by the build tool or the processes that\n"
             "  started the writers: Makefiles, build.ninja, .d files), probe (read by a\n"
             "  configure step), other.  An input reached only through a process that wrote\n"
             "  several files and read between them is marked over-approximated.\n",
    .options_help = "  -l, --leaves          only the files the build did not make\n"
                    "  -r, --roles           group by role\n"
                    "      --hashes          show each file's SHA-256\n"
                    "  -p, --prune DIR       leave out (and do not follow) files under DIR;\n"
                    "                        repeatable\n"
                    "      --no-scripts      only what the writers themselves read, not their\n"
                    "                        ancestors (make, shells)\n"
                    "      --through-shlibs  follow shared libraries back to what they were\n"
                    "                        made from\n",
    .options = inputs_options,
    .shortopts = "lrp:",
    .option = walk_option,
};

static const struct query_command outputs_command = {
    .name = "outputs",
    .flags = QUERY_CUT_ARGV,
    .operands = "PATH",
    .min_operands = 1,
    .max_operands = 1,
    .about = "Everything the build made from PATH (any version of it): first the files\n"
             "that carry its content (compiled, linked, copied, generated from it: what\n"
             "'inputs' of each would list as code), then the files written by the processes\n"
             "that read it, after they read it, marked as not carrying it; and so on.\n",
    .options_help = "      --hashes          show each file's SHA-256\n"
                    "  -p, --prune DIR       leave out (and do not follow) files under DIR;\n"
                    "                        repeatable\n"
                    "      --no-scripts      only what the readers themselves wrote, not what\n"
                    "                        the processes they started wrote\n",
    .options = outputs_options,
    .shortopts = "p:",
    .option = walk_option,
};

static int walk_main(int argc, char **argv, bool inputs)
{
    const char *cmd = inputs ? "inputs" : "outputs";
    struct walk_cli o = {.walk.scripts = true, .walk.stop_at_shlibs = inputs,
                         .prune = g_ptr_array_new_with_free_func(g_free)};
    int status = 0;
    int r = query_parse(inputs ? &inputs_command : &outputs_command, argc, argv, &o.common, &o);
    if (r >= 0) {
        g_ptr_array_free(o.prune, TRUE);
        return r;
    }
    g_ptr_array_add(o.prune, NULL);
    o.walk.prune = (char **)o.prune->pdata;

    struct qdb *q = query_open(cmd, o.common.db_path);
    struct prov *p = q ? query_open_prov(cmd, q) : NULL;
    struct query_path qp = {0};
    int64_t file_id = p && query_path_lookup(cmd, q, argv[optind], &qp) ? qp.file_id : 0;
    const char *path = qp.path;
    if (!file_id) {
        query_path_clear(&qp);
        prov_free(p);
        qdb_close(q);
        g_ptr_array_free(o.prune, TRUE);
        return 1;
    }
    GString *out = g_string_new(NULL);
    GArray *nodes;
    if (inputs) {
        int64_t vid = prov_version_at(p, file_id);
        const struct prov_version *v = vid ? prov_version(p, vid) : NULL;
        if (!v) {
            GString *e = g_string_new(NULL);
            text_escape(e, path, strlen(path));
            if (!query_failed(q))
                fprintf(stderr, "buildtrail inputs: %s: the build never read or wrote its content "
                            "(only looked it up or listed it); see 'buildtrail files'\n", e->str);
            g_string_free(e, TRUE);
            g_string_free(out, TRUE);
            query_path_clear(&qp);
            prov_free(p);
            qdb_close(q);
            g_ptr_array_free(o.prune, TRUE);
            return 1;
        }
        nodes = prov_inputs(p, vid, &o.walk);
        if (o.common.json) {
            json_walk(out, q, p, &qp, v, NULL, nodes, &o);
        } else {
            query_text_path(out, &qp);
            g_string_append(out, ": ");
            query_text_version(out, v);
            g_string_append_printf(out, "\n");
            if (!nodes->len)
                g_string_append(out, o.prune->len > 1 ? "  (no inputs outside the pruned "
                                                        "directories)\n"
                                                      : "  (made from nothing the build read)\n");
            print_nodes_text(p, out, nodes, &o, true);
            guint guesses = 0;
            for (guint i = 0; i < nodes->len; i++)
                guesses += g_array_index(nodes, struct prov_node, i).guess &&
                           (!o.leaves || g_array_index(nodes, struct prov_node, i).v->origin ==
                                             TRACEDB_VERSION_FOUND);
            if (guesses)
                g_string_append_printf(out, "  (%u over-approximated: reached only through a "
                                            "process that wrote several files and read between "
                                            "them; which read went into which is not known)\n",
                                       guesses);
        }
    } else {
        GArray *starts = prov_versions_at(p, file_id);
        nodes = prov_outputs(p, starts, &o.walk);
        if (o.common.json) {
            json_walk(out, q, p, &qp, NULL, starts, nodes, &o);
        } else {
            query_text_path(out, &qp);
            g_string_append_printf(out, ": %u version%s\n", starts->len,
                                   starts->len == 1 ? "" : "s");
            if (!nodes->len)
                g_string_append(out, "  (the build made nothing from it)\n");
            print_nodes_text(p, out, nodes, &o, false);
        }
        g_array_unref(starts);
    }
    if (query_emit(q, out))
        status = 1;
    g_string_free(out, TRUE);
    g_array_unref(nodes);
    query_path_clear(&qp);
    prov_free(p);
    qdb_close(q);
    g_ptr_array_free(o.prune, TRUE);
    return status;
}

int query_inputs_main(int argc, char **argv)
{
    return walk_main(argc, argv, true);
}

int query_outputs_main(int argc, char **argv)
{
    return walk_main(argc, argv, false);
}
