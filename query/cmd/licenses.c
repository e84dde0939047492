/* licenses: the licenses of what a built file incorporates, from its traced closure. */
#include "dep5.h"
#include "driver.h"
#include "jsonw.h"
#include "licdetect.h"
#include "licroll.h"
#include "outfile.h"
#include "query.h"
#include "textout.h"
#include "tracedb.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* --deny's patterns: split at commas, the spaces around each dropped ("GPL-*, AGPL-*"), the
 * empty ones left out; NULL when none is left. */
static char **deny_patterns(const char *deny)
{
    g_auto(GStrv) all = g_strsplit(deny, ",", -1);
    GPtrArray *out = g_ptr_array_new();
    for (char **p = all; *p; p++)
        if (*g_strstrip(*p))
            g_ptr_array_add(out, g_strdup(*p));
    if (!out->len) {
        g_ptr_array_free(out, TRUE);
        return NULL;
    }
    g_ptr_array_add(out, NULL);
    return (char **)g_ptr_array_free(out, FALSE);
}

/* Does any license id in `expr` match one of the patterns (fnmatch; SPDX ids compare without
 * regard to case, so 'gpl-*' matches GPL-3.0-only)? */
static const char *denied_by(const char *expr, char **patterns)
{
    g_auto(GStrv) words = g_strsplit_set(expr, " ()", -1);
    for (char **w = words; *w; w++) {
        if (!**w || !strcmp(*w, "AND") || !strcmp(*w, "OR") || !strcmp(*w, "WITH"))
            continue;
        for (char **p = patterns; p && *p; p++)
            if (fnmatch(*p, *w, FNM_CASEFOLD) == 0)
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

/* A debian/copyright given with --copyright, read. */
struct copyright {
    const char *path;
    char *root; /* the source tree its patterns are relative to */
    char *real_root;
    struct dep5 *dep5;
};

#define COPYRIGHT_MAX (16 << 20)

/* Reads and parses --copyright's file: 0, or prints why not and returns 2 (a usage error).
 * A FIFO or a device is refused before it is read (it could block or never end). */
static int copyright_load(struct copyright *c, const char *path, const char *cwd)
{
    c->path = path;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    struct stat st;
    const char *why = NULL;
    if (fd < 0)
        why = g_strerror(errno);
    else if (fstat(fd, &st) < 0)
        why = g_strerror(errno);
    else if (!S_ISREG(st.st_mode))
        why = "not a regular file";
    else if (st.st_size > COPYRIGHT_MAX)
        why = "larger than 16 MiB";
    GString *text = g_string_new(NULL);
    while (!why) {
        char buf[65536];
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            why = g_strerror(errno);
        else if (n == 0)
            break;
        else if (text->len + (size_t)n > COPYRIGHT_MAX)
            why = "larger than 16 MiB";
        else
            g_string_append_len(text, buf, n);
    }
    if (fd >= 0)
        close(fd);
    g_autofree char *err = NULL;
    if (!why && !(c->dep5 = dep5_parse(text->str, text->len, &err)))
        why = err;
    if (why) {
        fprintf(stderr, "buildtrail licenses: %s: %s; give a machine-readable debian/copyright "
                        "(copyright-format 1.0) to --copyright\n", path, why);
        g_string_free(text, TRUE);
        return 2;
    }
    g_string_free(text, TRUE);
    /* debian/copyright describes the tree debian/ is in; a copy elsewhere, the build's. */
    g_autofree char *abs = qdb_absolute_path(path);
    g_autofree char *dir = g_path_get_dirname(abs);
    g_autofree char *base = g_path_get_basename(dir);
    c->root = !strcmp(base, "debian") ? g_path_get_dirname(dir) : g_strdup(cwd);
    char real[PATH_MAX];
    c->real_root = realpath(c->root, real) ? g_strdup(real) : g_strdup(c->root);
    return 0;
}

/* `path` relative to `root`, or NULL if it is not under it. */
static const char *under(const char *path, const char *root)
{
    size_t n = strlen(root);
    while (n > 1 && root[n - 1] == '/')
        n--;
    return !strncmp(path, root, n) && path[n] == '/' ? path + n + 1 : NULL;
}

/* What debian/copyright declares for each incorporated file of its tree; the number that
 * disagree with the file's own notices. */
static unsigned copyright_compare(const struct copyright *c, GPtrArray *files)
{
    unsigned n = 0;
    for (guint i = 0; i < files->len; i++) {
        struct lic_file *f = files->pdata[i];
        f->agrees = -1;
        if (f->cat != CAT_INCORPORATED)
            continue;
        const char *rel = under(f->v->path, c->root);
        if (!rel)
            rel = under(f->v->path, c->real_root);
        if (!rel)
            continue;
        f->in_tree = true;
        const char *declared = dep5_license(c->dep5, rel);
        f->declared = declared ? dep5_spdx(declared) : NULL;
        if (f->declared && f->license) {
            f->agrees = lic_same(f->license, f->declared);
            n += !f->agrees;
        }
    }
    return n;
}

struct licenses_cli {
    const char *deny, *source_dest, *copyright;
    bool deny_unknown;
};

static int licenses_option(void *ctx, int c, const char *arg)
{
    struct licenses_cli *l = ctx;
    switch (c) {
    case 'D': {
        g_auto(GStrv) pats = deny_patterns(arg);
        if (!pats) {
            fprintf(stderr, "buildtrail licenses: --deny '%s' names no license pattern; give "
                            "comma-separated patterns, as --deny 'GPL-*,AGPL-*'\n", arg);
            return 2;
        }
        l->deny = arg;
        return 0;
    }
    case 'U': l->deny_unknown = true; return 0;
    case 'S': l->source_dest = arg; return 0;
    case 'C': l->copyright = arg; return 0;
    }
    return 2;
}

static const struct option licenses_options[] = {
    {"deny", required_argument, NULL, 'D'},
    {"deny-unknown", no_argument, NULL, 'U'},
    {"corresponding-source", required_argument, NULL, 'S'},
    {"copyright", required_argument, NULL, 'C'},
    {0}};

static const struct query_command licenses_command = {
    .name = "licenses",
    .operands = "PATH",
    .min_operands = 1,
    .max_operands = 1,
    .about = "The licenses of what PATH was built from, from its traced closure: each file\n"
             "with the licenses it declares (SPDX-License-Identifier tags, else every notice\n"
             "of a known license in its first 16 KiB, joined with AND: GPL, LGPL, AGPL\n"
             "(-only or -or-later as worded), BSD-2/3/4-Clause (the advertising clause makes\n"
             "4), MIT, ISC, Zlib, Apache-2.0, MPL-2.0, OLDAP (2.8 unless the text names a\n"
             "version), BSL-1.0, PSF-2.0, Perl's terms, the Unlicense, public-domain\n"
             "statements, Bison's exception; else the notice it points to: \"see copyright\n"
             "notice in zlib.h\"), grouped by license, and a roll-up for PATH.  Only\n"
             "incorporated files count: compiled sources and project headers.  System\n"
             "headers, shared libraries (dynamic), executed tools and build scripts are\n"
             "listed apart; toolchain runtime objects (crt*.o, libgcc, libc_nonshared) under\n"
             "their license exceptions.  The content read is checked against the trace's\n"
             "hash (a file changed since the build is reported unknown).  A notice is\n"
             "recognised by its usual wording: a license written in other words, or only\n"
             "named in a LICENSE file the source does not point to, is unknown.\n",
    .exit_help = "\nExit status: 0 answered (with --deny: nothing denied); 1 with --deny, a\n"
                 "denied license was incorporated (with --deny-unknown, also a file of unknown\n"
                 "license), or without it PATH was never touched or the\n"
                 "trace cannot be read; 2 an error under --deny (among them a damaged trace\n"
                 "or, without --allow-incomplete, an incomplete one) or a usage error.\n",
    .options_help = "      --deny PATTERNS   exit 1 if an incorporated file's license matches one\n"
                    "                        of the comma-separated patterns ('GPL-*,AGPL-*';\n"
                    "                        any case, as SPDX ids compare); incorporated files\n"
                    "                        of unknown license are said on stderr, not denied\n"
                    "      --deny-unknown    deny them too (exit 1): a gate that must prove\n"
                    "                        every incorporated file's license\n"
                    "      --corresponding-source DEST\n"
                    "                        write the incorporated sources and build scripts, as\n"
                    "                        built, to directory DEST (or a .tar.gz / .tar file)\n"
                    "      --copyright FILE  a machine-readable debian/copyright: beside each\n"
                    "                        incorporated file of the source tree (the directory\n"
                    "                        that holds debian/, else the build's), the license\n"
                    "                        of the last Files paragraph matching it, as SPDX, and\n"
                    "                        whether it and the file's notices disagree (either\n"
                    "                        may be wrong: debian/copyright goes stale)\n",
    .options = licenses_options,
    .flags = QUERY_ALLOW_INCOMPLETE,
    .option = licenses_option,
};

/* The answer, as both renderers see it. */
struct licenses_answer {
    const char *path;                 /* the operand as the trace knows it */
    const struct prov_version *target;
    const char *roll;                 /* the roll-up, or NULL */
    GPtrArray *files;                 /* struct lic_file *, licroll_closure() */
    const struct copyright *cr;       /* with --copyright, else cr->dep5 is NULL */
    unsigned disagree;                /* incorporated files debian/copyright disagrees on */
    unsigned unknown, denied, guess;  /* incorporated files of unknown license, denied,
                                       * over-approximated */
    const char *first_unknown;        /* the first of unknown license, or NULL */
    GString *denials;                 /* one line each, for stderr */
};

/* Counts the incorporated files of unknown license, over-approximated and denied by
 * `patterns` or, with `deny_unknown`, for an unknown license (each denial a line in
 * a->denials), in the order the answer lists them. */
static void count_files(struct licenses_answer *a, char **patterns, bool deny_unknown)
{
    for (int cat = 0; cat < CAT_COUNT; cat++)
        for (guint i = 0; i < a->files->len; i++) {
            const struct lic_file *f = a->files->pdata[i];
            if ((int)f->cat != cat || cat != CAT_INCORPORATED)
                continue;
            if (!f->license && deny_unknown) {
                a->denied++;
                g_string_append_printf(a->denials, "buildtrail licenses: denied: %s is of "
                                                   "unknown license (--deny-unknown)\n",
                                       f->v->path);
            }
            if (!f->license && !a->unknown++)
                a->first_unknown = f->v->path;
            a->guess += f->guess;
            const char *hit = f->license && patterns ? denied_by(f->license, patterns) : NULL;
            if (hit) {
                a->denied++;
                g_string_append_printf(a->denials, "buildtrail licenses: denied: %s is %s "
                                                   "(matches '%s')\n", f->v->path, f->license,
                                       hit);
            }
        }
}

static void json_file(struct jsonw *w, const struct lic_file *f)
{
    jsonw_object_begin(w);
    jsonw_kv_string(w, "path", f->v->path);
    jsonw_kv_string(w, "category", lic_cat_names[f->cat]);
    jsonw_kv_string(w, "role", prov_role_name(f->role));
    jsonw_kv_string(w, "license", f->license);
    if (f->via)
        jsonw_kv_string(w, "via", f->via);
    if (f->problem)
        jsonw_kv_string(w, "problem", f->problem);
    if (f->guess)
        jsonw_kv_bool(w, "guess", true);
    if (f->in_tree) {
        jsonw_kv_string(w, "declared", f->declared);
        jsonw_key(w, "agrees");
        if (f->agrees < 0)
            jsonw_null(w);
        else
            jsonw_bool(w, f->agrees);
    }
    jsonw_kv_string(w, "sha256", f->v->sha256);
    jsonw_object_end(w);
}

static void render_json(GString *out, struct qdb *q, const struct licenses_answer *a)
{
    struct jsonw w;
    query_jsonw_begin(&w, out, q);
    g_autoptr(GString) target = g_string_new(NULL);
    query_json_version(target, a->target);
    g_string_append_c(target, '}');
    jsonw_key(&w, "target");
    jsonw_raw(&w, target->str);
    jsonw_kv_string(&w, "rollup", a->roll);
    jsonw_key(&w, "files");
    jsonw_array_begin(&w);
    for (int cat = 0; cat < CAT_COUNT; cat++)
        for (guint i = 0; i < a->files->len; i++) {
            const struct lic_file *f = a->files->pdata[i];
            if ((int)f->cat == cat)
                json_file(&w, f);
        }
    jsonw_array_end(&w);
    jsonw_kv_int(&w, "unknown", a->unknown);
    jsonw_kv_int(&w, "denied", a->denied);
    if (a->cr->dep5) {
        jsonw_key(&w, "copyright");
        jsonw_object_begin(&w);
        jsonw_kv_string(&w, "path", a->cr->path);
        jsonw_kv_string(&w, "root", a->cr->root);
        jsonw_kv_int(&w, "disagree", a->disagree);
        jsonw_object_end(&w);
    }
    jsonw_object_end(&w);
    g_string_append_c(out, '\n');
}

static void text_file(GString *out, const struct lic_file *f)
{
    int cat = f->cat;
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
    if (f->guess)
        g_string_append(out, "  (over-approximated)");
    if (f->in_tree && !f->declared)
        g_string_append(out, "  [debian/copyright: no Files paragraph matches]");
    else if (f->in_tree && f->agrees < 0)
        g_string_append_printf(out, "  [debian/copyright: %s; no notice to compare]",
                               f->declared);
    else if (f->in_tree)
        g_string_append_printf(out, "  [debian/copyright: %s%s]", f->declared,
                               f->agrees ? "" : " -- DISAGREES");
    g_string_append_c(out, '\n');
}

/* The roll-up and what it does not cover. */
static void text_summary(GString *out, struct qdb *q, const struct licenses_answer *a)
{
    g_string_append_printf(out, "  roll-up: %s", a->roll ? a->roll : "NOASSERTION");
    if (a->unknown)
        g_string_append_printf(out, " (and %u incorporated file%s of unknown license)",
                               a->unknown, a->unknown == 1 ? "" : "s");
    g_string_append_c(out, '\n');
    if (a->guess)
        g_string_append_printf(out, "  %u incorporated file%s over-approximated: reached "
                                    "only through a process that wrote several files and "
                                    "read between them (counted, to be safe)\n",
                               a->guess, a->guess == 1 ? " is" : "s are");
    if (a->cr->dep5) {
        unsigned n = a->disagree;
        g_string_append(out, "  against ");
        text_escape(out, a->cr->path, strlen(a->cr->path));
        g_string_append(out, " (patterns relative to ");
        text_escape(out, a->cr->root, strlen(a->cr->root));
        g_string_append_printf(out, "): %u incorporated file%s disagree%s with what %s "
                                    "notice%s say%s\n", n, n == 1 ? "" : "s",
                               n == 1 ? "s" : "", n == 1 ? "its" : "their",
                               n == 1 ? "" : "s", n == 1 ? "s" : "");
    }
    if (!qdb_run(q)->complete)
        g_string_append_printf(out, "  INCOMPLETE TRACE: %s; these licenses cover only what "
                                    "was recorded\n", qdb_run(q)->incomplete);
}

static void render_text(GString *out, struct qdb *q, const struct licenses_answer *a)
{
    text_escape(out, a->path, strlen(a->path));
    g_string_append(out, ": ");
    query_text_version(out, a->target);
    g_string_append_c(out, '\n');
    for (int cat = 0; cat < CAT_COUNT; cat++) {
        bool heading = false;
        for (guint i = 0; i < a->files->len; i++) {
            const struct lic_file *f = a->files->pdata[i];
            if ((int)f->cat != cat)
                continue;
            if (!heading)
                g_string_append_printf(out, "  %s:\n", lic_cat_titles[cat]);
            heading = true;
            text_file(out, f);
        }
    }
    text_summary(out, q, a);
}

int query_licenses_main(int argc, char **argv)
{
    struct query_opts o = {0};
    struct licenses_cli l = {0};
    int r = query_parse(&licenses_command, argc, argv, &o, &l);
    if (r >= 0)
        return r;
    const char *deny = l.deny, *source_dest = l.source_dest;
    bool gate = deny || l.deny_unknown;
    /* A --deny verdict stands only on a complete trace; its errors exit 2 (1 is "denied"). */
    struct qdb *q = query_open_for("licenses", o.db_path,
                                   gate && !o.allow_incomplete ? QUERY_COMPLETE_TRACE
                                                               : QUERY_ANY_TRACE);
    int error_status = gate ? 2 : 1;
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
    struct copyright cr = {0};
    if (l.copyright && copyright_load(&cr, l.copyright, cwd ? cwd : "/")) {
        prov_free(p);
        qdb_close(q);
        return 2;
    }
    struct licenses_answer a = {.path = path, .target = target, .cr = &cr,
                                .files = licroll_closure(p, vid, NULL),
                                .denials = g_string_new(NULL)};
    a.disagree = cr.dep5 ? copyright_compare(&cr, a.files) : 0;
    g_autofree char *roll = licroll_rollup(a.files);
    a.roll = roll;
    g_auto(GStrv) patterns = deny ? deny_patterns(deny) : NULL;
    count_files(&a, patterns, l.deny_unknown);
    GString *out = g_string_new(NULL);
    if (o.json)
        render_json(out, q, &a);
    else
        render_text(out, q, &a);
    int status = query_emit(q, out) ? error_status : 0;
    if (qdb_failed(q)) {
        /* a damaged trace: no verdict and no source bundle */
    } else if (a.denied) {
        fputs(a.denials->str, stderr);
        status = 1;
    }
    if (deny && !l.deny_unknown && a.unknown && !qdb_failed(q))
        fprintf(stderr, "buildtrail licenses: not checked against --deny: %u incorporated "
                        "file%s of unknown license (%s%s); --deny-unknown denies them\n",
                a.unknown, a.unknown == 1 ? "" : "s", a.first_unknown,
                a.unknown > 1 ? ", ..." : "");
    if (source_dest && !qdb_failed(q) && write_source(a.files, cwd, source_dest))
        status = 1;
    g_string_free(out, TRUE);
    g_string_free(a.denials, TRUE);
    g_ptr_array_free(a.files, TRUE);
    dep5_free(cr.dep5);
    g_free(cr.root);
    g_free(cr.real_root);
    prov_free(p);
    qdb_close(q);
    return status;
}
