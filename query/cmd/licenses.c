/* licenses: the licenses of what a built file incorporates, from its traced closure. */
#include "driver.h"
#include "licroll.h"
#include "outfile.h"
#include "query.h"
#include "textout.h"
#include "tracedb.h"

#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* Does any license id in `expr` match one of the patterns (fnmatch)? */
static const char *denied_by(const char *expr, char **patterns)
{
    g_auto(GStrv) words = g_strsplit_set(expr, " ()", -1);
    for (char **w = words; *w; w++) {
        if (!**w || !strcmp(*w, "AND") || !strcmp(*w, "OR") || !strcmp(*w, "WITH"))
            continue;
        for (char **p = patterns; p && *p; p++)
            if (fnmatch(*p, *w, 0) == 0)
                return *p;
    }
    return NULL;
}

/* Copy the corresponding source (incorporated files and build scripts, as they were built)
 * under `dest`, relative to the build's directory.  Returns 0 or prints why not and 1. */
static int write_source(GPtrArray *files, const char *cwd, const char *dest)
{
    bool tarball = g_str_has_suffix(dest, ".tar.gz") || g_str_has_suffix(dest, ".tgz") ||
                   g_str_has_suffix(dest, ".tar");
    g_autofree char *dir = tarball ? g_dir_make_tmp("buildtrail-source-XXXXXX", NULL)
                                   : g_strdup(dest);
    if (!dir || (g_mkdir_with_parents(dir, 0755) < 0)) {
        fprintf(stderr, "buildtrail licenses: cannot create %s: %s; give a writable directory to "
                        "--corresponding-source\n", dir ? dir : dest, g_strerror(errno));
        return 1;
    }
    int status = 0;
    size_t cl = strlen(cwd);
    for (guint i = 0; i < files->len && !status; i++) {
        const struct lic_file *f = files->pdata[i];
        if ((f->cat != CAT_INCORPORATED && f->cat != CAT_SCRIPT) ||
            f->v->origin != TRACEDB_VERSION_FOUND)
            continue;
        const char *path = f->v->path;
        g_autofree char *rel = !strncmp(path, cwd, cl) && path[cl] == '/'
                                   ? g_strdup(path + cl + 1)
                                   : g_strconcat("_external", path, NULL);
        g_autofree char *out = g_build_filename(dir, rel, NULL);
        g_autofree char *parent = g_path_get_dirname(out);
        gsize len;
        int e;
        struct stat st; /* the source's permissions, kept */
        const char *problem = NULL;
        g_autofree char *data = prov_read_version(f->v, &len, &problem);
        if (!data) {
            fprintf(stderr, "buildtrail licenses: %s: %s, so it is not the source that was "
                            "built; rebuild before collecting the source\n", path, problem);
            status = 1;
        } else if (g_mkdir_with_parents(parent, 0755) < 0) {
            fprintf(stderr, "buildtrail licenses: cannot make the directory %s: %s; check the "
                            "destination\n", parent, g_strerror(errno));
            status = 1;
        } else if ((e = outfile_write(out, stat(path, &st) == 0 ? st.st_mode & 0777
                                                                : OUTFILE_MODE_UMASK,
                                      data, len)) < 0) {
            fprintf(stderr, "buildtrail licenses: cannot write %s: %s; check the destination\n",
                    out, outfile_strerror(e));
            status = 1;
        }
    }
    if (tarball && !status) {
        g_autofree char *abs = qdb_absolute_path(dest);
        const char *argv[] = {"tar", "-C", dir, g_str_has_suffix(dest, ".tar") ? "-cf" : "-czf",
                              abs, ".", NULL};
        gint wait = 0;
        g_autoptr(GError) err = NULL;
        if (!g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL,
                          &wait, &err) || !g_spawn_check_wait_status(wait, NULL)) {
            fprintf(stderr, "buildtrail licenses: tar could not write %s%s%s; check the "
                            "destination\n", dest, err ? ": " : "", err ? err->message : "");
            status = 1;
        }
    }
    if (tarball) {
        const char *rm[] = {"rm", "-rf", dir, NULL};
        g_spawn_sync(NULL, (char **)rm, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL,
                     NULL);
    }
    return status;
}

struct licenses_cli {
    const char *deny, *source_dest;
};

static int licenses_option(void *ctx, int c, const char *arg)
{
    struct licenses_cli *l = ctx;
    switch (c) {
    case 'D': l->deny = arg; return 0;
    case 'S': l->source_dest = arg; return 0;
    }
    return 2;
}

static const struct option licenses_options[] = {
    {"deny", required_argument, NULL, 'D'},
    {"corresponding-source", required_argument, NULL, 'S'},
    {0}};

static const struct query_command licenses_command = {
    .name = "licenses",
    .operands = "PATH",
    .min_operands = 1,
    .max_operands = 1,
    .about = "The licenses of what PATH was built from, from its traced closure: each file\n"
             "with the license it declares (SPDX-License-Identifier tags, else the notice of a\n"
             "common license in its header, else one it points to: \"see copyright notice in\n"
             "zlib.h\"), grouped by license, and a roll-up for PATH.  Only incorporated files\n"
             "count: compiled sources and project headers.  System headers, shared libraries\n"
             "(dynamic), executed tools and build scripts are listed apart; toolchain runtime\n"
             "objects (crt*.o, libgcc, libc_nonshared) under their license exceptions.  The\n"
             "content read is checked against the trace's hash (a file changed since the\n"
             "build is reported unknown).\n",
    .exit_help = "\nExit status: 0 answered (with --deny: nothing denied); 1 with --deny, a\n"
                 "denied license was incorporated, or without it PATH was never touched or the\n"
                 "trace cannot be read; 2 an error under --deny (among them a damaged trace\n"
                 "or, without --allow-incomplete, an incomplete one) or a usage error.\n",
    .options_help = "      --deny PATTERNS   exit 1 if an incorporated file's license matches one\n"
                    "                        of the comma-separated patterns ('GPL-*,AGPL-*')\n"
                    "      --corresponding-source DEST\n"
                    "                        write the incorporated sources and build scripts, as\n"
                    "                        built, to directory DEST (or a .tar.gz / .tar file)\n",
    .options = licenses_options,
    .flags = QUERY_ALLOW_INCOMPLETE,
    .option = licenses_option,
};

int query_licenses_main(int argc, char **argv)
{
    struct query_opts o = {0};
    struct licenses_cli l = {0};
    int r = query_parse(&licenses_command, argc, argv, &o, &l);
    if (r >= 0)
        return r;
    const char *deny = l.deny, *source_dest = l.source_dest;
    /* A --deny verdict stands only on a complete trace; its errors exit 2 (1 is "denied"). */
    struct qdb *q = query_open_for("licenses", o.db_path,
                                   deny && !o.allow_incomplete ? QUERY_COMPLETE_TRACE
                                                               : QUERY_ANY_TRACE);
    int error_status = deny ? 2 : 1;
    struct prov *p = q ? query_open_prov("licenses", q) : NULL;
    g_autofree char *path = NULL;
    int64_t file_id = p ? query_path_file_id("licenses", q, argv[optind], &path) : 0;
    int64_t vid = file_id ? prov_version_at(p, file_id) : 0;
    const struct prov_version *target = vid ? prov_version(p, vid) : NULL;
    if (!target) {
        if (file_id && !query_failed(q))
            fprintf(stderr, "buildtrail licenses: %s: the build never read or wrote its content; "
                            "see 'buildtrail files'\n", path);
        prov_free(p);
        qdb_close(q);
        return error_status;
    }
    g_autofree char *cwd = query_run_cwd(q);
    GPtrArray *files = licroll_closure(p, vid, NULL);
    g_autofree char *roll = licroll_rollup(files);
    g_auto(GStrv) patterns = deny ? g_strsplit(deny, ",", -1) : NULL;
    unsigned n_unknown = 0, n_denied = 0, n_guess = 0;
    GString *out = g_string_new(NULL), *denials = g_string_new(NULL);
    if (o.json) {
        query_json_begin(out, q, "target");
        query_json_version(out, target);
        g_string_append(out, "},\"rollup\":");
        if (roll)
            json_string(out, roll, strlen(roll));
        else
            g_string_append(out, "null");
        g_string_append(out, ",\"files\":[");
    } else {
        text_escape(out, path, strlen(path));
        g_string_append(out, ": ");
        query_text_version(out, target);
        g_string_append_c(out, '\n');
    }
    bool first = true;
    for (int cat = 0; cat < CAT_COUNT; cat++) {
        bool heading = false;
        for (guint i = 0; i < files->len; i++) {
            const struct lic_file *f = files->pdata[i];
            if ((int)f->cat != cat)
                continue;
            if (cat == CAT_INCORPORATED && !f->license)
                n_unknown++;
            const char *hit = cat == CAT_INCORPORATED && f->license && patterns
                                  ? denied_by(f->license, patterns) : NULL;
            if (hit) {
                n_denied++;
                g_string_append_printf(denials, "buildtrail licenses: denied: %s is %s (matches "
                                                "'%s')\n", f->v->path, f->license, hit);
            }
            if (o.json) {
                g_string_append(out, first ? "{\"path\":" : ",{\"path\":");
                json_string(out, f->v->path, strlen(f->v->path));
                g_string_append_printf(out, ",\"category\":\"%s\",\"role\":\"%s\",\"license\":",
                                       lic_cat_names[cat], prov_role_name(f->role));
                if (f->license)
                    json_string(out, f->license, strlen(f->license));
                else
                    g_string_append(out, "null");
                if (f->via) {
                    g_string_append(out, ",\"via\":");
                    json_string(out, f->via, strlen(f->via));
                }
                if (f->problem)
                    g_string_append_printf(out, ",\"problem\":\"%s\"", f->problem);
                if (f->guess)
                    g_string_append(out, ",\"guess\":true");
                g_string_append_printf(out, ",\"sha256\":\"%s\"}", f->v->sha256);
                first = false;
                continue;
            }
            if (!heading)
                g_string_append_printf(out, "  %s:\n", lic_cat_titles[cat]);
            heading = true;
            g_string_append_printf(out, "    %-28s ", f->license ? f->license
                                                      : cat == CAT_DYNAMIC || cat == CAT_TOOL ? "-"
                                                                                             : "unknown");
            text_escape(out, f->v->path, strlen(f->v->path));
            if (f->via) {
                g_string_append(out, "  (notice in ");
                text_escape(out, f->via, strlen(f->via));
                g_string_append_c(out, ')');
            }
            if (f->problem)
                g_string_append_printf(out, "  (%s)", f->problem);
            if (f->guess) {
                g_string_append(out, "  (over-approximated)");
                n_guess += cat == CAT_INCORPORATED;
            }
            g_string_append_c(out, '\n');
        }
    }
    if (o.json) {
        g_string_append_printf(out, "],\"unknown\":%u,\"denied\":%u}\n", n_unknown, n_denied);
    } else {
        g_string_append_printf(out, "  roll-up: %s", roll ? roll : "NOASSERTION");
        if (n_unknown)
            g_string_append_printf(out, " (and %u incorporated file%s of unknown license)",
                                   n_unknown, n_unknown == 1 ? "" : "s");
        g_string_append_c(out, '\n');
        if (n_guess)
            g_string_append_printf(out, "  %u incorporated file%s over-approximated: reached "
                                        "only through a process that wrote several files and "
                                        "read between them (counted, to be safe)\n",
                                   n_guess, n_guess == 1 ? " is" : "s are");
        if (!qdb_run(q)->complete)
            g_string_append_printf(out, "  INCOMPLETE TRACE: %s; these licenses cover only what "
                                        "was recorded\n", qdb_run(q)->incomplete);
    }
    int status = query_emit(q, out) ? error_status : 0;
    if (qdb_failed(q)) {
        /* a damaged trace: no verdict and no source bundle */
    } else if (n_denied) {
        fputs(denials->str, stderr);
        status = 1;
    }
    if (source_dest && !qdb_failed(q) && write_source(files, cwd, source_dest))
        status = 1;
    g_string_free(out, TRUE);
    g_string_free(denials, TRUE);
    g_ptr_array_free(files, TRUE);
    prov_free(p);
    qdb_close(q);
    return status;
}
