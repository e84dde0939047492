/* packages: the Debian packages whose files the build read, and which it incorporated. */
#include "driver.h"
#include "filekind.h"
#include "dpkgdb.h"
#include "query.h"
#include "textout.h"
#include "queries.h"
#include "tracedb.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

struct pkg_use {
    const struct dpkg_pkg *pkg;
    unsigned files;
    bool incorporated; /* its code went into a product: a source, an object, a static
                        * archive's members (a Built-Using candidate) */
    bool runtime;      /* toolchain runtime of it was linked in, under its license exception */
    bool headers;      /* headers of it were compiled into a product */
    bool executed;
    char *example;     /* one file of it the build read */
};

static void free_use(gpointer p)
{
    struct pkg_use *u = p;
    g_free(u->example);
    g_free(u);
}

static gint by_name(gconstpointer a, gconstpointer b)
{
    const struct pkg_use *x = *(const struct pkg_use *const *)a, *y = *(const struct pkg_use *const *)b;
    int c = strcmp(x->pkg->name, y->pkg->name);
    return c ? c : strcmp(x->pkg->arch, y->pkg->arch);
}

/* Package names of a Build-Depends value: the first alternative of each clause, without
 * version, architecture qualifiers or restrictions. */
static GPtrArray *declared_names(const char *list)
{
    GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
    g_auto(GStrv) clauses = g_strsplit(list, ",", -1);
    for (char **c = clauses; *c; c++) {
        char *first = g_strstrip(*c);
        size_t n = strcspn(first, " \t(|[<:\n");
        if (n)
            g_ptr_array_add(names, g_strndup(first, n));
    }
    return names;
}

struct packages_cli {
    const char *declared, *admindir;
};

static int packages_option(void *ctx, int c, const char *arg)
{
    struct packages_cli *p = ctx;
    switch (c) {
    case 'B': p->declared = arg; return 0;
    case 'A': p->admindir = arg; return 0;
    }
    return 2;
}

static const struct option packages_options[] = {
    {"build-depends", required_argument, NULL, 'B'},
    {"admindir", required_argument, NULL, 'A'},
    {0}};

static const struct query_command packages_command = {
    .name = "packages",
    .operands = "",
    .about = "The Debian packages whose files the build read (outside its own tree), with\n"
             "source package and version; which of them it incorporated statically (their\n"
             "code went into something it built: a static archive's members, an object, a\n"
             "compiled source: candidates for Built-Using / Static-Built-Using), and apart,\n"
             "with the reason, toolchain runtime linked under its license exception (crt*.o,\n"
             "libgcc, libc_nonshared) and headers only compiled in; which it only executed;\n"
             "and, with\n"
             "--build-depends, the declared build dependencies it never touched.  Needs a\n"
             "trace recorded with 'buildtrail run --system' to see reads under /usr.\n",
    .options_help = "      --build-depends LIST  a Build-Depends value ('debhelper-compat (= 13),\n"
                    "                        zlib1g-dev | libz-dev'), or @FILE to read it\n"
                    "      --admindir DIR    dpkg's database (default /var/lib/dpkg)\n",
    .options = packages_options,
    .option = packages_option,
};

int query_packages_main(int argc, char **argv)
{
    struct query_opts o = {0};
    struct packages_cli pc = {.admindir = "/var/lib/dpkg"};
    int r = query_parse(&packages_command, argc, argv, &o, &pc);
    if (r >= 0)
        return r;
    const char *declared = pc.declared, *admindir = pc.admindir;
    g_autofree char *declared_text = NULL;
    if (declared && declared[0] == '@') {
        if (!g_file_get_contents(declared + 1, &declared_text, NULL, NULL)) {
            fprintf(stderr, "buildtrail packages: cannot read %s; give a readable file after "
                            "--build-depends @\n", declared + 1);
            return 2;
        }
        declared = declared_text;
    }
    struct dpkgdb *db = NULL;
    if (dpkgdb_load(admindir, &db) < 0) {
        fprintf(stderr, "buildtrail packages: no dpkg database in %s; this command answers on "
                        "Debian and Ubuntu (or name one with --admindir)\n", admindir);
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
    GArray *traced_usr = qdb_ids(q, tracedb_sql(TQ_SYSTEM_TREES_TRACED), 0);
    bool system_traced = traced_usr->len && g_array_index(traced_usr, int64_t, 0) > 0;
    g_array_unref(traced_usr);

    /* What went into the products, by how: code (sources, objects, static archives: what
     * Built-Using is for), toolchain runtime (crt*.o, libgcc, libc_nonshared: linked into
     * every program under a license exception), headers (compiled in).  Shared libraries are
     * listed, not followed; runtime data (locales, gconv) is never any of these. */
    enum { USE_CODE = 1, USE_RUNTIME = 2, USE_HEADER = 4 };
    GHashTable *incorporated = g_hash_table_new(g_int64_hash, g_int64_equal);
    GArray *written = qdb_ids(q, tracedb_sql(TQ_VERSIONS_MADE), 0);
    static const struct prov_walk_opts walk = {.scripts = false, .stop_at_shlibs = true};
    GHashTable *done = g_hash_table_new(g_int64_hash, g_int64_equal);
    for (guint i = 0; i < written->len; i++) {
        int64_t vid = g_array_index(written, int64_t, i);
        if (g_hash_table_contains(done, &vid))
            continue;
        GArray *nodes = prov_inputs(p, vid, &walk);
        for (guint k = 0; k < nodes->len; k++) {
            struct prov_node *n = &g_array_index(nodes, struct prov_node, k);
            g_hash_table_add(done, (gpointer)&n->v->id);
            int use = n->role == PROV_ROLE_HEADER ? USE_HEADER
                      : n->role == PROV_ROLE_SOURCE ? USE_CODE
                      : n->role == PROV_ROLE_OBJECT
                          ? (filekind_toolchain_runtime(n->v->path) ? USE_RUNTIME : USE_CODE)
                          : 0;
            if (use)
                g_hash_table_insert(incorporated, (gpointer)&n->v->id,
                                    GINT_TO_POINTER(use |
                                        GPOINTER_TO_INT(g_hash_table_lookup(incorporated,
                                                                            &n->v->id))));
        }
        g_array_unref(nodes);
    }
    g_array_unref(written);

    /* Every found file the build read or executed outside its own directory. */
    GHashTable *uses = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, free_use);
    GPtrArray *unowned = g_ptr_array_new_with_free_func(g_free);
    sqlite3_stmt *st = NULL;
    qdb_prepare(q, tracedb_sql(TQ_FOUND_READS_WITH_PATHS), &st);
    size_t cl = strlen(cwd);
    while (st && qdb_row(q, st)) {
        const char *path = (const char *)sqlite3_column_text(st, 0);
        if (!strncmp(path, cwd, cl) && (path[cl] == '/' || !path[cl]))
            continue;
        int kind = sqlite3_column_int(st, 1);
        int64_t vid = sqlite3_column_int64(st, 2);
        const struct dpkg_pkg *pkg = dpkgdb_owner(db, path);
        if (!pkg) {
            g_ptr_array_add(unowned, g_strdup(path));
            continue;
        }
        struct pkg_use *u = g_hash_table_lookup(uses, pkg);
        if (!u) {
            u = g_new0(struct pkg_use, 1);
            u->pkg = pkg;
            u->example = g_strdup(path);
            g_hash_table_insert(uses, (gpointer)pkg, u);
        }
        u->files++;
        if (kind == TRACEDB_EXEC)
            u->executed = true;
        int use = GPOINTER_TO_INT(g_hash_table_lookup(incorporated, &vid));
        u->incorporated |= (use & USE_CODE) != 0;
        u->runtime |= (use & USE_RUNTIME) != 0;
        u->headers |= (use & USE_HEADER) != 0;
    }
    sqlite3_finalize(st);

    GPtrArray *list = g_ptr_array_new();
    GHashTableIter it;
    gpointer value;
    g_hash_table_iter_init(&it, uses);
    while (g_hash_table_iter_next(&it, NULL, &value))
        g_ptr_array_add(list, value);
    g_ptr_array_sort(list, by_name);
    GPtrArray *untouched = g_ptr_array_new_with_free_func(g_free);
    if (declared) {
        GPtrArray *names = declared_names(declared);
        for (guint i = 0; i < names->len; i++) {
            const char *n = names->pdata[i];
            bool used = false;
            for (guint k = 0; k < list->len && !used; k++) {
                const struct pkg_use *u = list->pdata[k];
                used = !strcmp(u->pkg->name, n);
            }
            if (!used)
                g_ptr_array_add(untouched, g_strdup(n));
        }
        g_ptr_array_free(names, TRUE);
    }

    GString *out = g_string_new(NULL);
    if (o.json) {
        query_json_begin(out, q, "system_traced");
        g_string_append_printf(out, "%s,\"packages\":[",
                               system_traced ? "true" : "false");
        for (guint i = 0; i < list->len; i++) {
            const struct pkg_use *u = list->pdata[i];
            g_string_append_printf(out, "%s{\"package\":\"%s\",\"architecture\":\"%s\","
                                        "\"version\":\"%s\",\"source\":\"%s\","
                                        "\"source_version\":\"%s\",\"files\":%u,"
                                        "\"incorporated\":%s,\"toolchain_runtime\":%s,"
                                        "\"headers\":%s,\"executed\":%s}",
                                   i ? "," : "", u->pkg->name, u->pkg->arch, u->pkg->version,
                                   u->pkg->source, u->pkg->source_version, u->files,
                                   u->incorporated ? "true" : "false",
                                   u->runtime ? "true" : "false",
                                   u->headers ? "true" : "false",
                                   u->executed ? "true" : "false");
        }
        g_string_append(out, "],\"unowned\":[");
        for (guint i = 0; i < unowned->len; i++) {
            if (i)
                g_string_append_c(out, ',');
            json_string(out, unowned->pdata[i], strlen(unowned->pdata[i]));
        }
        g_string_append(out, "],\"declared_untouched\":[");
        for (guint i = 0; i < untouched->len; i++) {
            if (i)
                g_string_append_c(out, ',');
            json_string(out, untouched->pdata[i], strlen(untouched->pdata[i]));
        }
        g_string_append(out, "]}\n");
    } else {
        if (!system_traced)
            g_string_append(out, "note: this trace did not trace /usr (record with 'buildtrail run "
                                 "--system' to see the headers, libraries and tools it used)\n");
        g_string_append_printf(out, "packages used (%u):\n", list->len);
        for (guint i = 0; i < list->len; i++) {
            const struct pkg_use *u = list->pdata[i];
            g_string_append_printf(out, "  %-28s %-24s source %s %s  %u file%s%s%s%s%s\n",
                                   u->pkg->name, u->pkg->version, u->pkg->source,
                                   u->pkg->source_version, u->files, u->files == 1 ? "" : "s",
                                   u->incorporated ? ", incorporated" : "",
                                   u->runtime ? ", toolchain runtime" : "",
                                   u->headers ? ", headers compiled in" : "",
                                   u->executed ? ", executed" : "");
        }
        GString *bu = g_string_new(NULL);
        GPtrArray *seen_src = g_ptr_array_new();
        for (guint i = 0; i < list->len; i++) {
            const struct pkg_use *u = list->pdata[i];
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
        /* What went in but is not Built-Using material, with the reason. */
        GString *rt = g_string_new(NULL), *hd = g_string_new(NULL);
        for (guint i = 0; i < list->len; i++) {
            const struct pkg_use *u = list->pdata[i];
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
        g_string_free(bu, TRUE);
        g_ptr_array_free(seen_src, TRUE);
        if (unowned->len) {
            g_string_append_printf(out, "read outside the build and owned by no package (%u):\n",
                                   unowned->len);
            for (guint i = 0; i < unowned->len; i++) {
                g_string_append(out, "  ");
                text_escape(out, unowned->pdata[i], strlen(unowned->pdata[i]));
                g_string_append_c(out, '\n');
            }
        }
        if (declared) {
            g_string_append_printf(out, "declared build dependencies never touched (%u):",
                                   untouched->len);
            for (guint i = 0; i < untouched->len; i++)
                g_string_append_printf(out, " %s", (char *)untouched->pdata[i]);
            g_string_append_c(out, '\n');
        }
    }
    int status = query_emit(q, out) ? 1 : 0;
    g_string_free(out, TRUE);
    g_ptr_array_free(untouched, TRUE);
    g_ptr_array_free(list, TRUE);
    g_ptr_array_free(unowned, TRUE);
    g_hash_table_destroy(uses);
    g_hash_table_destroy(done);
    g_hash_table_destroy(incorporated);
    prov_free(p);
    qdb_close(q);
    dpkgdb_free(db);
    return status;
}
