/* packages: the Debian packages whose files the build read, and which it incorporated.  The
 * engine is query/lib/pkgscan.c; this file parses the options and renders its model. */
#include "driver.h"
#include "debdeps.h"
#include "dpkgdb.h"
#include "jsonw.h"
#include "pkgscan.h"
#include "query.h"
#include "textout.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

static gint by_path(gconstpointer a, gconstpointer b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Unowned paths, sorted; a directory holding three or more of them is one line with the
 * count (dpkg-shlibdeps reads all of /var/lib/dpkg/info), the rest one line each.  --json
 * has every path. */
static void append_unowned(GString *out, const GPtrArray *paths)
{
    GPtrArray *unowned = g_ptr_array_copy((GPtrArray *)paths, NULL, NULL);
    g_ptr_array_set_free_func(unowned, NULL); /* the copy's strings are the model's */
    g_ptr_array_sort(unowned, by_path);
    for (guint i = 0; i < unowned->len;) {
        const char *p = unowned->pdata[i], *slash = strrchr(p, '/');
        size_t dl = slash ? (size_t)(slash - p) + 1 : 0;
        guint n = 1;
        while (i + n < unowned->len) {
            const char *q = unowned->pdata[i + n];
            if (strncmp(q, p, dl) || strchr(q + dl, '/'))
                break;
            n++;
        }
        if (n >= 3) {
            g_string_append(out, "  ");
            text_escape(out, p, dl);
            g_string_append_printf(out, " (%u files)\n", n);
        } else {
            for (guint k = 0; k < n; k++) {
                g_string_append(out, "  ");
                text_escape(out, unowned->pdata[i + k], strlen(unowned->pdata[i + k]));
                g_string_append_c(out, '\n');
            }
        }
        i += n;
    }
    g_ptr_array_free(unowned, TRUE);
}

static void append_names(GString *out, const GPtrArray *names)
{
    for (guint i = 0; i < names->len; i++)
        g_string_append_printf(out, "%s%s", i ? ", " : " ", (const char *)names->pdata[i]);
    g_string_append_c(out, '\n');
}

/* "declared build dependencies TITLE (N): a, b" — unless empty and not `always`. */
static void declared_list(GString *out, const char *title, const GPtrArray *names, bool always)
{
    if (!names->len && !always)
        return;
    g_string_append_printf(out, "declared build dependencies %s (%u):", title, names->len);
    append_names(out, names);
}

static void json_names(struct jsonw *w, const char *key, const GPtrArray *names)
{
    jsonw_key(w, key);
    jsonw_array_begin(w);
    for (guint i = 0; i < names->len; i++)
        jsonw_string(w, names->pdata[i]);
    jsonw_array_end(w);
}

struct packages_cli {
    const char *declared, *admindir, *arch, *profiles;
};

static int packages_option(void *ctx, int c, const char *arg)
{
    struct packages_cli *p = ctx;
    switch (c) {
    case 'B': p->declared = arg; return 0;
    case 'A': p->admindir = arg; return 0;
    case 'H': p->arch = arg; return 0;
    case 'P': p->profiles = arg; return 0;
    }
    return 2;
}

static const struct option packages_options[] = {
    {"build-depends", required_argument, NULL, 'B'},
    {"admindir", required_argument, NULL, 'A'},
    {"host-arch", required_argument, NULL, 'H'},
    {"profiles", required_argument, NULL, 'P'},
    {0}};

static const struct query_command packages_command = {
    .name = "packages",
    .operands = "",
    .about = "The Debian packages whose files the build read (outside its own tree), with\n"
             "source package and version; which of them it incorporated statically (their\n"
             "code went into something it built and kept: a static archive's members, an\n"
             "object, a compiled source: candidates for Built-Using / Static-Built-Using;\n"
             "what configure steps made and temporaries are not kept), and apart,\n"
             "with the reason, toolchain runtime linked under its license exception (crt*.o,\n"
             "libgcc, libc_nonshared) and headers only compiled in; which it only executed;\n"
             "and, with --build-depends, the declared build dependencies it never touched: a\n"
             "clause counts as touched when the build read, ran or followed a symlink of a\n"
             "package that is, or Provides, one of its alternatives; one whose files were\n"
             "read only by directory scans is \"read by a directory scan only\" (a process,\n"
             "not a compiler or linker, that listed a directory where listings are\n"
             "recorded and read at least 5 and 80% of the files it holds now: aclocal\n"
             "--force reading every /usr/share/aclocal file); clauses whose [architectures]\n"
             "or <profiles> exclude this build are listed apart, and so are those that\n"
             "apply only because DEB_BUILD_OPTIONS names nocheck or nodoc while that\n"
             "profile is not active (the build skipped their use without -P saying so).\n"
             "Needs a trace recorded with 'buildtrail run --system' to see reads under\n"
             "/usr.  A static archive counts only when a link pulled a member of it in: the\n"
             "global symbols it defines (its index, else its members' symbol tables)\n"
             "against those defined by each kept file it was linked into straight away;\n"
             "a symbol in common is a member linked in (the answer names it), none in a\n"
             "full symbol table is nothing linked (listed apart: glibc's empty\n"
             "libpthread.a for -pthread, an unused -lz), and where an archive or output\n"
             "is gone or changed since the build, or stripped, or no global symbol of the\n"
             "archive can be read (LLVM bitcode, a thin archive without an index), it says\n"
             "'not checked' and keeps the candidate.  A program defining a function of\n"
             "the archive's name itself is taken for a member linked in.\n",
    .options_help = "      --build-depends LIST  a Build-Depends value ('debhelper-compat (= 13),\n"
                    "                        zlib1g-dev | libz-dev'), or @FILE: a debian/control\n"
                    "                        or .dsc (its Build-Depends, -Arch, -Indep) or a value\n"
                    "      --host-arch ARCH  for [arch] qualifiers (default: DEB_HOST_ARCH in the\n"
                    "                        build's environment, else dpkg's architecture)\n"
                    "      --profiles LIST   active build profiles, for <profile> qualifiers\n"
                    "                        (default: DEB_BUILD_PROFILES in the build's environment)\n"
                    "      --admindir DIR    dpkg's database (default /var/lib/dpkg)\n",
    .options = packages_options,
    .option = packages_option,
};

static void render_json(GString *out, struct qdb *q, const struct pkgscan *m)
{
    struct jsonw w;
    query_jsonw_begin(&w, out, q);
    jsonw_kv_bool(&w, "system_traced", m->system_traced);
    jsonw_kv_bool(&w, "system_watched", m->system_watched);
    jsonw_key(&w, "packages");
    jsonw_array_begin(&w);
    for (guint i = 0; i < m->uses->len; i++) {
        const struct pkgscan_use *u = m->uses->pdata[i];
        jsonw_object_begin(&w);
        jsonw_kv_string(&w, "package", u->pkg->name);
        jsonw_kv_string(&w, "architecture", u->pkg->arch);
        jsonw_kv_string(&w, "version", u->pkg->version);
        jsonw_kv_string(&w, "source", u->pkg->source);
        jsonw_kv_string(&w, "source_version", u->pkg->source_version);
        jsonw_kv_int(&w, "files", u->files);
        jsonw_kv_bool(&w, "incorporated", u->incorporated);
        jsonw_kv_bool(&w, "toolchain_runtime", u->runtime);
        jsonw_kv_bool(&w, "headers", u->headers);
        jsonw_kv_bool(&w, "executed", u->executed);
        jsonw_kv_int(&w, "symlinks_followed", u->links);
        jsonw_object_end(&w);
    }
    jsonw_array_end(&w);
    jsonw_key(&w, "static_archives");
    jsonw_array_begin(&w);
    for (guint i = 0; i < m->archives->len; i++) {
        const struct pkgscan_archive *c = m->archives->pdata[i];
        jsonw_object_begin(&w);
        jsonw_kv_string(&w, "path", c->v->path);
        jsonw_kv_string(&w, "package", c->pkg->name);
        jsonw_kv_string(&w, "linked", pkgscan_verdict_name(c->verdict));
        jsonw_kv_string(&w, "how", c->how);
        jsonw_object_end(&w);
    }
    jsonw_array_end(&w);
    json_names(&w, "unowned", m->unowned);
    if (m->has_declared) {
        jsonw_kv_string(&w, "host_architecture", m->arch);
        jsonw_key(&w, "build_profiles");
        jsonw_array_begin(&w);
        for (char **pr = m->profiles; *pr; pr++)
            if (**pr)
                jsonw_string(&w, *pr);
        jsonw_array_end(&w);
        json_names(&w, "declared_untouched", m->declared.untouched);
        json_names(&w, "declared_through_dependencies", m->declared.through);
        json_names(&w, "declared_directory_scan_only", m->declared.scan_only);
        json_names(&w, "declared_not_applicable", m->declared.not_applicable);
        json_names(&w, "declared_applying_despite_options", m->declared.options_only);
    }
    jsonw_object_end(&w);
    g_string_append_c(out, '\n');
}

/* One line per package used, in columns as wide as the longest name and version
 * (linux-headers-6.1.0-13-amd64). */
static void text_uses(GString *out, const GPtrArray *uses)
{
    g_string_append_printf(out, "packages used (%u):\n", uses->len);
    int name_w = 28, ver_w = 24;
    for (guint i = 0; i < uses->len; i++) {
        const struct pkgscan_use *u = uses->pdata[i];
        name_w = MAX(name_w, (int)MIN(strlen(u->pkg->name), 200));
        ver_w = MAX(ver_w, (int)MIN(strlen(u->pkg->version), 200));
    }
    for (guint i = 0; i < uses->len; i++) {
        const struct pkgscan_use *u = uses->pdata[i];
        g_autofree char *links = u->links ? g_strdup_printf("%s%u symlink%s followed",
                                                            u->files ? ", " : "", u->links,
                                                            u->links == 1 ? "" : "s")
                                          : NULL;
        g_autofree char *files = u->files || !u->links
                                     ? g_strdup_printf("%u file%s", u->files,
                                                       u->files == 1 ? "" : "s")
                                     : g_strdup("");
        g_string_append_printf(out, "  %-*s %-*s source %s %s  %s%s%s%s%s%s\n", name_w,
                               u->pkg->name, ver_w, u->pkg->version, u->pkg->source,
                               u->pkg->source_version, files, links ? links : "",
                               u->incorporated ? ", incorporated" : "",
                               u->runtime ? ", toolchain runtime" : "",
                               u->headers ? ", headers compiled in" : "",
                               u->executed ? ", executed" : "");
    }
}

/* The Built-Using candidates (each source package once), then how each static archive was
 * decided: what the link pulled from it. */
static void text_candidates(GString *out, const struct pkgscan *m)
{
    GString *bu = g_string_new(NULL);
    GPtrArray *seen_src = g_ptr_array_new();
    for (guint i = 0; i < m->uses->len; i++) {
        const struct pkgscan_use *u = m->uses->pdata[i];
        if (!u->incorporated)
            continue;
        bool dup = false;
        for (guint k = 0; k < seen_src->len && !dup; k++)
            dup = !strcmp(seen_src->pdata[k], u->pkg->source);
        if (dup)
            continue;
        g_ptr_array_add(seen_src, u->pkg->source);
        g_string_append_printf(bu, "%s%s (= %s)", bu->len ? ", " : "", u->pkg->source,
                               u->pkg->source_version);
    }
    g_string_append_printf(out, "incorporated statically (Built-Using candidates): %s\n",
                           bu->len ? bu->str : "none");
    g_string_free(bu, TRUE);
    g_ptr_array_free(seen_src, TRUE);
    GString *unused = g_string_new(NULL);
    for (guint i = 0; i < m->archives->len; i++) {
        const struct pkgscan_archive *c = m->archives->pdata[i];
        const char *base = strrchr(c->v->path, '/');
        base = base ? base + 1 : c->v->path;
        if (c->verdict == PKGSCAN_NOTHING) {
            g_string_append_printf(unused, "%s%s (%s: %s)", unused->len ? ", " : "",
                                   c->pkg->name, base, c->how);
            continue;
        }
        g_string_append_printf(out, "  %s: %s %s: %s%s\n", c->pkg->name, base,
                               pkgscan_verdict_name(c->verdict), c->how,
                               c->verdict == PKGSCAN_NOT_CHECKED ? " (kept as a candidate)" : "");
    }
    if (unused->len)
        g_string_append_printf(out, "  not candidates: static archives the links pulled "
                                    "nothing from: %s\n", unused->str);
    g_string_free(unused, TRUE);
}

/* What went in but is not Built-Using material, with the reason. */
static void text_not_candidates(GString *out, const GPtrArray *uses)
{
    GString *rt = g_string_new(NULL), *hd = g_string_new(NULL);
    for (guint i = 0; i < uses->len; i++) {
        const struct pkgscan_use *u = uses->pdata[i];
        if (u->runtime && !u->incorporated)
            g_string_append_printf(rt, "%s%s", rt->len ? ", " : "", u->pkg->name);
        if (u->headers && !u->incorporated && !u->runtime)
            g_string_append_printf(hd, "%s%s", hd->len ? ", " : "", u->pkg->name);
    }
    if (rt->len)
        g_string_append_printf(out, "  not candidates: toolchain runtime, linked under its "
                                    "license exception: %s\n", rt->str);
    if (hd->len)
        g_string_append_printf(out, "  not candidates: headers only (compiled in, no code "
                                    "linked): %s\n", hd->str);
    g_string_free(rt, TRUE);
    g_string_free(hd, TRUE);
}

static void text_declared(GString *out, const struct pkgscan *m)
{
    const struct pkgscan_declared *d = &m->declared;
    declared_list(out, "never touched", d->untouched, true);
    declared_list(out, "not touched themselves, only their own source's packages they depend on",
                  d->through, false);
    declared_list(out, "read by a directory scan only (a process read most files of a "
                       "directory, theirs among them)", d->scan_only, false);
    const char *pl = m->profile_list;
    g_autofree char *na = g_strdup_printf("that do not apply to %s%s%s", m->arch,
                                          pl && *pl ? " with profiles " : "", pl && *pl ? pl : "");
    declared_list(out, na, d->not_applicable, false);
    g_autofree char *oo = g_strdup_printf(
        "that apply only because DEB_BUILD_OPTIONS=\"%s\" names what is not an active "
        "profile (build with -P to drop them)", m->build_options ? m->build_options : "");
    declared_list(out, oo, d->options_only, false);
}

static void render_text(GString *out, const struct pkgscan *m)
{
    text_uses(out, m->uses);
    text_candidates(out, m);
    text_not_candidates(out, m->uses);
    if (m->unowned->len) {
        g_string_append_printf(out, "read outside the build and owned by no package (%u):\n",
                               m->unowned->len);
        append_unowned(out, m->unowned);
    }
    if (m->has_declared)
        text_declared(out, m);
}

/* The notes on what the trace could not show, on stderr (text answers only). */
static void trace_notes(const struct pkgscan *m)
{
    if (!m->system_traced)
        fputs("buildtrail packages: note: this trace did not trace /usr (record with "
              "'buildtrail run --system' to see the headers, libraries and tools it used)\n",
              stderr);
    /* Watched system trees (run --system as root) record opens, execs and the symlinks they
     * went through, not stat(), readlink() or failed lookups: a package used only so is not
     * seen. */
    if (m->system_watched)
        fputs("buildtrail packages: note: this trace watched the system trees (it was "
              "recorded with --system as root) rather than serving them: a package the build "
              "only stat()ed, readlink()ed or looked for is not seen; "
              "'buildtrail run --system=full' records those too\n", stderr);
}

/* The --build-depends value: as given, or from @FILE (a debian/control or .dsc's fields, else
 * the file's text).  NULL after printing why not; *text holds what it points into. */
static bool declared_value(const char *arg, char **text, const char **value)
{
    *value = arg;
    if (!arg || arg[0] != '@')
        return true;
    if (!g_file_get_contents(arg + 1, text, NULL, NULL)) {
        fprintf(stderr, "buildtrail packages: cannot read %s; give a readable file after "
                        "--build-depends @\n", arg + 1);
        return false;
    }
    char *fields = debdeps_from_control(*text, strlen(*text));
    if (fields) {
        g_free(*text);
        *text = fields;
    }
    *value = *text;
    return true;
}

int query_packages_main(int argc, char **argv)
{
    struct query_opts o = {0};
    struct packages_cli pc = {.admindir = "/var/lib/dpkg"};
    int r = query_parse(&packages_command, argc, argv, &o, &pc);
    if (r >= 0)
        return r;
    g_autofree char *declared_text = NULL;
    struct pkgscan_opts so = {.arch = pc.arch, .profiles = pc.profiles};
    if (!declared_value(pc.declared, &declared_text, &so.declared))
        return 2;
    struct dpkgdb *db = NULL;
    if (dpkgdb_load(pc.admindir, &db) < 0) {
        fprintf(stderr, "buildtrail packages: no dpkg database in %s; this command answers on "
                        "Debian and Ubuntu (or name one with --admindir)\n", pc.admindir);
        return 1;
    }
    struct qdb *q = query_open("packages", o.db_path);
    struct prov *p = q ? query_open_prov("packages", q) : NULL;
    if (!p) {
        dpkgdb_free(db);
        qdb_close(q);
        return 1;
    }
    g_autofree char *cwd = query_run_cwd(q);
    struct pkgscan *m = pkgscan_run(q, p, db, cwd, &so);
    if (!o.json && !qdb_failed(q))
        trace_notes(m);
    GString *out = g_string_new(NULL);
    if (o.json)
        render_json(out, q, m);
    else
        render_text(out, m);
    int status = query_emit(q, out) ? 1 : 0;
    g_string_free(out, TRUE);
    pkgscan_free(m);
    prov_free(p);
    qdb_close(q);
    dpkgdb_free(db);
    return status;
}
