/* export — the command: options, the format table, the trace and where the document goes.
 * The formats themselves are in this folder, one file per family (export.h). */
#include "export.h"

#include "ccdb.h"
#include "outfile.h"
#include "query.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void load_run(struct export_ctx *x)
{
    qdb_load_run_info(x->q, &x->run);
    if (!x->run.cwd)
        x->run.cwd = g_strdup("/");
}

static const struct format {
    const char *name;
    int (*write)(struct export_ctx *x);
    const char *what;
    bool attestation; /* a claim about the whole build: refused on an incomplete trace */
} formats[] = {
    {"compile-commands", fmt_compile_commands,
     "clang's JSON compilation database, as Bear writes it:\n                    one entry per compiled file"},
    {"dot", fmt_dot, "the provenance graph for Graphviz: processes, file\n                    versions, read/wrote"},
    {"prov", fmt_prov, "W3C PROV-JSON: file versions as entities, processes as\n                    activities"},
    {"chrome-trace", fmt_chrome_trace,
     "the build's timeline (Trace Event JSON, for Perfetto or\n                    chrome://tracing)"},
    {"spdx", fmt_spdx, "SPDX 2.3 JSON: built files GENERATED_FROM their sources,\n                    with hashes", true},
    {"spdx3", fmt_spdx3, "SPDX 3.0.1 JSON-LD, Build profile: a build_Build per\n                    writing process", true},
    {"cyclonedx", fmt_cyclonedx, "CycloneDX 1.6 JSON with the build as a formulation", true},
    {"intoto", fmt_intoto, "in-toto Statement v1, runtime-trace predicate (every\n                    file access)", true},
    {"slsa", fmt_slsa, "in-toto Statement v1, SLSA Provenance v1 predicate\n                    (unsigned)", true},
    {"sql", fmt_sql, "a PostgreSQL dump; many traces load into one database"},
};

static void list_formats(void)
{
    fputs("\nFormats:\n", stdout);
    GString *att = g_string_new(NULL);
    for (size_t i = 0; i < G_N_ELEMENTS(formats); i++) {
        printf("  %-17s %s\n", formats[i].name, formats[i].what);
        if (formats[i].attestation)
            g_string_append_printf(att, "%s%s", att->len ? ", " : "", formats[i].name);
    }
    printf("\nThe attestations (%s)\nrefuse an incomplete trace without --allow-incomplete.\n",
           att->str);
    g_string_free(att, TRUE);
}

struct export_cli {
    const char *format, *output;
    bool append;
    bool mode_given; /* --output-mode */
    mode_t mode;
    GPtrArray *collapse, *compilers;
    struct export_ctx *x;
};

static int export_option(void *ctx, int c, const char *arg)
{
    struct export_cli *o = ctx;
    switch (c) {
    case 'f': o->format = arg; return 0;
    case 'o': o->output = arg; return 0;
    case 'L': o->x->with_links = true; return 0;
    case 'A': o->append = true; return 0;
    case 'P':
        o->mode_given = true;
        return query_parse_mode("export", arg, &o->mode) ? 0 : 2;
    case 'K': g_ptr_array_add(o->compilers, g_strdup(arg)); return 0;
    case 'C': o->x->closure_of = arg; return 0;
    case 'a': o->x->admindir = arg; return 0;
    case 'D': {
        char *end;
        long n = strtol(arg, &end, 10);
        if (*end || n < 1 || n > 1000000) {
            fprintf(stderr, "buildtrail export: --depth '%s' is not a positive number\n", arg);
            return 2;
        }
        o->x->depth = (int)n;
        return 0;
    }
    case 'c':
        g_ptr_array_add(o->collapse, qdb_absolute_path(arg));
        return 0;
    }
    return 2;
}

static const struct option export_options[] = {
    {"format", required_argument, NULL, 'f'},
    {"output", required_argument, NULL, 'o'},
    {"with-links", no_argument, NULL, 'L'},
    {"append", no_argument, NULL, 'A'},
    {"output-mode", required_argument, NULL, 'P'},
    {"compiler", required_argument, NULL, 'K'},
    {"closure-of", required_argument, NULL, 'C'},
    {"depth", required_argument, NULL, 'D'},
    {"collapse", required_argument, NULL, 'c'},
    {"admindir", required_argument, NULL, 'a'},
    {0}};

static const struct query_command export_command = {
    .name = "export",
    .operands = "",
    .about = "Write the trace in a format other tools read (docs/exports.md has each\n"
             "mapping).\n",
    .more_about = list_formats,
    .options_help = "  -f, --format FORMAT   one of the above (required)\n"
                    "  -o, --output FILE     write to FILE (default: standard output); FILE is\n"
                    "                        replaced atomically, a link is followed only as\n"
                    "                        the kernel would follow it for you, and another\n"
                    "                        user's link or file in a sticky directory (/tmp)\n"
                    "                        is refused\n"
                    QUERY_OUTPUT_MODE_HELP
                    "      --with-links      compile-commands: add link steps too\n"
                    "      --compiler NAME   compile-commands: NAME (a glob on the program's\n"
                    "                        name) is a compiler too (repeatable; also one per\n"
                    "                        line in ~/.config/buildtrail/compilers)\n"
                    "      --append          compile-commands: keep the entries of the -o file\n"
                    "                        that this build did not make again\n"
                    "      --closure-of PATH dot: only PATH and what it was made from\n"
                    "      --depth N         dot: with --closure-of, at most N steps back\n"
                    "      --collapse DIR    dot: draw files under DIR as one node (repeatable),\n"
                    "                        e.g. --collapse /usr for system headers and tools\n"
                    "      --admindir DIR    spdx, spdx3, cyclonedx: dpkg's database, for the\n"
                    "                        Debian packages the build read files of (default\n"
                    "                        /var/lib/dpkg; none there: no packages)\n",
    .options = export_options,
    .shortopts = "f:o:",
    .flags = QUERY_NO_JSON | QUERY_ALLOW_INCOMPLETE,
    .option = export_option,
};

/* --append: the database already at `path` (none there: nothing to keep).  0, or an exit
 * status after one line saying why it cannot be merged into. */
static int load_append(const char *path, char **text, GArray **entries)
{
    g_autofree char *shown = text_escaped(path); /* a line break never printed raw */
    struct stat st;
    if (stat(path, &st) < 0) {
        if (errno == ENOENT)
            return 0;
        fprintf(stderr, "buildtrail export: cannot read %s: %s\n", shown, g_strerror(errno));
        return 1;
    }
    g_autoptr(GError) gerr = NULL;
    gsize len = 0;
    if (!S_ISREG(st.st_mode) || !g_file_get_contents(path, text, &len, &gerr)) {
        fprintf(stderr, "buildtrail export: --append: cannot read %s: %s; give a "
                        "compile_commands.json with -o, or drop --append\n", shown,
                gerr ? gerr->message : "not a regular file");
        return 1;
    }
    *entries = g_array_new(FALSE, TRUE, sizeof(struct ccdb_entry));
    g_array_set_clear_func(*entries, ccdb_entry_clear);
    g_autofree char *err = NULL;
    if (ccdb_parse(*text, len, *entries, &err) < 0) {
        fprintf(stderr, "buildtrail export: --append: %s is not a compilation database (%s); "
                        "it is left as it is: give another -o, or drop --append\n", shown, err);
        return 1;
    }
    return 0;
}

/* Compiler names from ~/.config/buildtrail/compilers ($XDG_CONFIG_HOME): one glob per line,
 * '#' starts a comment.  A missing file is no names. */
static void add_configured_compilers(GPtrArray *compilers)
{
    g_autofree char *path =
        g_build_filename(g_get_user_config_dir(), "buildtrail", "compilers", NULL);
    g_autofree char *text = NULL;
    if (!g_file_get_contents(path, &text, NULL, NULL))
        return;
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    for (char **l = lines; *l; l++) {
        char *hash = strchr(*l, '#');
        if (hash)
            *hash = '\0';
        char *name = g_strstrip(*l);
        if (*name)
            g_ptr_array_add(compilers, g_strdup(name));
    }
}

int query_export_main(int argc, char **argv)
{
    struct query_opts o = {0};
    struct export_ctx x = {0};
    struct export_cli cli = {.collapse = g_ptr_array_new_with_free_func(g_free),
                             .compilers = g_ptr_array_new_with_free_func(g_free), .x = &x};
    GPtrArray *collapse = cli.collapse;
    g_autoptr(GPtrArray) compilers = cli.compilers;
    int r = query_parse(&export_command, argc, argv, &o, &cli);
    if (r >= 0) {
        g_ptr_array_free(collapse, TRUE);
        return r;
    }
    const char *db_path = o.db_path, *format = cli.format, *output = cli.output;
    bool allow_incomplete = o.allow_incomplete;
    const struct format *fmt = NULL;
    for (size_t i = 0; format && i < G_N_ELEMENTS(formats); i++)
        if (!strcmp(format, formats[i].name))
            fmt = &formats[i];
    if (!fmt) { /* (operands were refused by query_parse: max_operands 0) */
        fprintf(stderr, "buildtrail export: %s%s%s; choose one with --format (see 'buildtrail "
                        "export --help' for the list)\n",
                format ? "'" : "no format given", format ? format : "",
                format ? "' is not a format" : "");
        g_ptr_array_free(collapse, TRUE);
        return 2;
    }
    g_autofree char *append_text = NULL;
    g_autoptr(GArray) append_entries = NULL;
    if (cli.append && (strcmp(fmt->name, "compile-commands") || !output || !strcmp(output, "-"))) {
        fputs("buildtrail export: --append merges into a compile_commands.json: give it with "
              "--format compile-commands -o FILE\n", stderr);
        g_ptr_array_free(collapse, TRUE);
        return 2;
    }
    if (x.admindir) { /* named: it must be a dpkg database (never a FIFO's endless read) */
        g_autofree char *status = g_build_filename(x.admindir, "status", NULL);
        struct stat st;
        if (stat(status, &st) < 0 || !S_ISREG(st.st_mode)) {
            fprintf(stderr, "buildtrail export: --admindir %s: %s is %s; give dpkg's database "
                            "directory (/var/lib/dpkg)\n", x.admindir, status,
                    errno == ENOENT ? "not there" : "not a regular file");
            g_ptr_array_free(collapse, TRUE);
            return 2;
        }
    }
    if (cli.append) {
        int e = load_append(output, &append_text, &append_entries);
        if (e) {
            g_ptr_array_free(collapse, TRUE);
            return e;
        }
        x.append_text = append_text;
        x.append_entries = append_entries;
    }
    if (!strcmp(fmt->name, "compile-commands"))
        add_configured_compilers(compilers);
    g_ptr_array_add(compilers, NULL);
    x.compilers = (char **)compilers->pdata;
    g_ptr_array_add(collapse, NULL);
    x.collapse = (char **)collapse->pdata;
    x.q = query_open_for("export", db_path, fmt->attestation && !allow_incomplete
                                                ? QUERY_COMPLETE_TRACE
                                                : QUERY_ANY_TRACE);
    if (!x.q) {
        g_ptr_array_free(collapse, TRUE);
        return 1;
    }
    x.p = query_open_prov("export", x.q);
    if (!x.p) {
        qdb_close(x.q);
        g_ptr_array_free(collapse, TRUE);
        return 1;
    }
    load_run(&x);
    /* The document streams to its destination (-o: a temporary file renamed into place at the
     * end, removed if anything fails; standard output: written as it goes). */
    struct outfile sink;
    int e = outfile_open(output ? output : "-",
                         cli.mode_given ? cli.mode : query_trace_mode(x.q), &sink);
    if (e < 0) {
        g_autofree char *shown = text_escaped(output ? output : "-");
        fprintf(stderr, "buildtrail export: cannot write %s: %s; give a writable path to -o\n",
                shown, outfile_strerror(e));
        qdb_run_info_clear(&x.run);
        prov_free(x.p);
        qdb_close(x.q);
        g_ptr_array_free(collapse, TRUE);
        return 1;
    }
    x.sink = &sink;
    x.out = g_string_new(NULL);
    int status = fmt->write(&x);
    if (query_failed(x.q) || status) {
        status = 1;
        outfile_abort(&sink);
    } else {
        outfile_append(&sink, x.out->str, x.out->len);
        e = outfile_commit(&sink);
        if (e < 0) {
            g_autofree char *shown = text_escaped(output ? output : "standard output");
            fprintf(stderr, "buildtrail export: cannot write %s: %s; give a writable path to "
                            "-o\n", shown, g_strerror(-e));
            status = 1;
        }
    }
    g_string_free(x.out, TRUE);
    qdb_run_info_clear(&x.run);
    closures_free(x.closures);
    prov_free(x.p);
    qdb_close(x.q);
    g_ptr_array_free(collapse, TRUE);
    return status;
}
