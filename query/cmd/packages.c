/* packages: the Debian packages whose files the build read, and which it incorporated. */
#include "driver.h"
#include "debdeps.h"
#include "filekind.h"
#include "dpkgdb.h"
#include "objsyms.h"
#include "prov.h"
#include "progkind.h"
#include "query.h"
#include "textout.h"
#include "queries.h"
#include "tracedb.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

struct pkg_use {
    const struct dpkg_pkg *pkg;
    unsigned files;
    unsigned links;    /* symlinks of it the build followed */
    bool incorporated; /* its code went into a product: a source, an object, a static
                        * archive's members (a Built-Using candidate) */
    bool runtime;      /* toolchain runtime of it was linked in, under its license exception */
    bool headers;      /* headers of it were compiled into a product */
    bool executed;
    bool archive_unused; /* a static archive of it was linked and nothing pulled from it */
    bool direct;       /* used other than by a directory scan: read by a process that read
                        * just what it needed, executed, a symlink of it followed */
    char *scan;        /* how a directory scan read it ("aclocal read 88 of the 92 files of
                        * /usr/share/aclocal"), or NULL */
};

static void pkg_use_free(gpointer data)
{
    struct pkg_use *u = data;
    g_free(u->scan);
    g_free(u);
}

/* Whether a link pulled any member of a static archive into a kept output. */
enum archive_verdict { ARCHIVE_PULLED, ARCHIVE_NOTHING, ARCHIVE_NOT_CHECKED };
static const char *const verdict_names[] = {"linked in", "nothing linked", "not checked"};

struct archive_check {
    const struct prov_version *v;
    const struct dpkg_pkg *pkg;
    enum archive_verdict verdict;
    char *how; /* why, in words */
};

static void archive_check_free(gpointer data)
{
    struct archive_check *c = data;
    g_free(c->how);
    g_free(c);
}

static GHashTable *name_set(void)
{
    return g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
}

/* The first (by name) symbol of `archive` that `out` defines, or NULL. */
static const char *first_shared(GHashTable *archive, GHashTable *out)
{
    const char *best = NULL;
    GHashTableIter it;
    gpointer k;
    g_hash_table_iter_init(&it, out);
    while (g_hash_table_iter_next(&it, &k, NULL))
        if (g_hash_table_contains(archive, k) && (!best || strcmp(k, best) < 0))
            best = k;
    return best;
}

/* prov_read_version, for a regular file only: a FIFO or device now at the path would block
 * or never end. */
static char *read_regular(const struct prov_version *v, gsize *len, const char **problem)
{
    struct stat st;
    if (stat(v->path, &st) < 0) {
        *problem = "no longer readable";
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        *problem = "no longer a regular file";
        return NULL;
    }
    return prov_read_version(v, len, problem);
}

/* Did a link pull a member of static archive `a` into something the build kept (`kept`: the
 * versions made neither by a configure step nor as temporaries)?  Its defined global
 * symbols (its index, else its members' symbol tables) against the symbols each output it
 * went straight into defines: one in common is a member linked in; none, in a full symbol
 * table, is nothing linked; an archive or output gone or changed since the build, or an output
 * stripped to its dynamic symbols, is not checked (and stays a candidate). */
static struct archive_check *check_archive(struct prov *p, const struct prov_version *a,
                                           GHashTable *kept)
{
    struct archive_check *c = g_new0(struct archive_check, 1);
    c->v = a;
    c->verdict = ARCHIVE_NOT_CHECKED;
    if (a->size >= 0 && a->size <= 8) {
        c->verdict = ARCHIVE_NOTHING;
        c->how = g_strdup_printf("an empty archive (%" G_GINT64_FORMAT " bytes)", a->size);
        return c;
    }
    gsize len = 0;
    const char *problem = NULL;
    g_autofree char *data = read_regular(a, &len, &problem);
    if (!data) {
        c->how = g_strdup_printf("the archive is %s", problem);
        return c;
    }
    GHashTable *defs = name_set();
    int members = objsyms_archive(data, len, defs);
    if (members <= 0) {
        c->verdict = members == 0 ? ARCHIVE_NOTHING : ARCHIVE_NOT_CHECKED;
        c->how = g_strdup(members == 0 ? "an empty archive" : "not an ar archive");
        g_hash_table_destroy(defs);
        return c;
    }
    GArray *start = g_array_new(FALSE, FALSE, sizeof(int64_t));
    g_array_append_val(start, a->id);
    static const struct prov_walk_opts code = {.code_only = true};
    GArray *outs = prov_outputs(p, start, &code);
    g_array_unref(start);
    g_autofree char *unchecked = NULL, *first_none = NULL;
    unsigned none = 0;
    for (guint i = 0; i < outs->len && c->verdict != ARCHIVE_PULLED; i++) {
        const struct prov_node *n = &g_array_index(outs, struct prov_node, i);
        if (n->depth != 1 || !g_hash_table_contains(kept, &n->v->id))
            continue; /* further on, or a configure probe's output or a temporary */
        g_autofree char *out = read_regular(n->v, &len, &problem);
        if (!out) {
            if (!unchecked)
                unchecked = g_strdup_printf("%s is %s", n->v->path, problem);
            continue;
        }
        if (objsyms_is_archive(out, len)) {
            c->verdict = ARCHIVE_PULLED;
            c->how = g_strdup_printf("went into the archive %s", n->v->path);
            break;
        }
        GHashTable *od = name_set();
        int r = objsyms_elf(out, len, od);
        const char *sym = r > 0 ? first_shared(defs, od) : NULL;
        if (sym) {
            c->verdict = ARCHIVE_PULLED;
            c->how = g_strdup_printf("%s defines its symbol %s (%s)", n->v->path, sym,
                                     r == OBJSYMS_SYMTAB ? "symbol table" : "dynamic symbols");
        } else if (r == OBJSYMS_SYMTAB) {
            if (!none++)
                first_none = g_strdup(n->v->path);
        } else if (!unchecked) {
            unchecked = g_strdup_printf("%s %s", n->v->path,
                                        r < 0 ? "is not an ELF file"
                                              : "has no full symbol table (stripped)");
        }
        g_hash_table_destroy(od);
    }
    if (c->verdict != ARCHIVE_PULLED) {
        if (unchecked) {
            c->how = g_steal_pointer(&unchecked);
        } else {
            c->verdict = ARCHIVE_NOTHING;
            c->how = none ? g_strdup_printf("%s%s defines none of its %u symbols", first_none,
                                            none > 1 ? " and the other outputs it went into"
                                                     : "",
                                            g_hash_table_size(defs))
                          : g_strdup("linked only into configure probes or temporaries");
        }
    }
    g_array_unref(outs);
    g_hash_table_destroy(defs);
    return c;
}

/* One found file read by one process. */
struct read_row {
    char *path;
    int kind;
    int64_t vid, pid;
};

/* Directory scans: a process that read most of the files of a directory (aclocal --force
 * reading every .m4 of /usr/share/aclocal, to find the macros it needs) read each because it was
 * there, not because the build needed it.  A scan is a process that listed the directory
 * (where listings are recorded: not in watched system trees) and read at least
 * SCAN_MIN_FILES of its files and at least SCAN_SHARE_PERCENT of the regular files it holds
 * now, and is not a compiler or linker (they read what they are told to). */
enum { SCAN_MIN_FILES = 5, SCAN_SHARE_PERCENT = 80 };

struct scans {
    struct qdb *q;
    char *const *watched;   /* listings in these trees are not recorded */
    GHashTable *reads;      /* "pid dir" -> files of dir the process read */
    GHashTable *seen;       /* "pid path": counted once */
    GHashTable *listed;     /* "pid dir": listed by the process */
    GHashTable *dir_files;  /* dir -> regular files it holds now (-1: unreadable) */
    bool loaded_processes;
};

static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash && slash != path ? g_strndup(path, (size_t)(slash - path)) : g_strdup("/");
}

static struct scans *scans_new(struct qdb *q, char *const *watched)
{
    struct scans *sc = g_new0(struct scans, 1);
    sc->q = q;
    sc->watched = watched;
    sc->reads = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    sc->seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    sc->listed = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    sc->dir_files = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    sqlite3_stmt *st = NULL;
    if (qdb_prepare(q, tracedb_sql(TQ_DIRS_LISTED), &st))
        qdb_bind_int64(q, st, 1, 0);
    while (st && qdb_row(q, st))
        g_hash_table_add(sc->listed,
                         g_strdup_printf("%" G_GINT64_FORMAT " %s", (int64_t)sqlite3_column_int64(st, 0),
                                         (const char *)sqlite3_column_text(st, 1)));
    sqlite3_finalize(st);
    return sc;
}

static void scans_free(struct scans *sc)
{
    g_hash_table_destroy(sc->reads);
    g_hash_table_destroy(sc->seen);
    g_hash_table_destroy(sc->listed);
    g_hash_table_destroy(sc->dir_files);
    g_free(sc);
}

static void scans_count(struct scans *sc, int64_t pid, const char *path)
{
    char *key = g_strdup_printf("%" G_GINT64_FORMAT " %s", pid, path);
    if (!g_hash_table_add(sc->seen, key))
        return;
    g_autofree char *dir = dir_of(path);
    char *dkey = g_strdup_printf("%" G_GINT64_FORMAT " %s", pid, dir);
    gpointer n = g_hash_table_lookup(sc->reads, dkey);
    g_hash_table_replace(sc->reads, dkey, GINT_TO_POINTER(GPOINTER_TO_INT(n) + 1));
}

/* The regular files `dir` holds now (symlinks to them too), or -1 when it cannot be read. */
static int files_in(struct scans *sc, const char *dir)
{
    gpointer v;
    if (g_hash_table_lookup_extended(sc->dir_files, dir, NULL, &v))
        return GPOINTER_TO_INT(v);
    int n = -1;
    GDir *d = g_dir_open(dir, 0, NULL);
    if (d) {
        n = 0;
        for (const char *name; (name = g_dir_read_name(d));) {
            g_autofree char *p = g_build_filename(dir, name, NULL);
            n += g_file_test(p, G_FILE_TEST_IS_REGULAR);
        }
        g_dir_close(d);
    }
    g_hash_table_insert(sc->dir_files, g_strdup(dir), GINT_TO_POINTER(n));
    return n;
}

/* The program a process ran, naming the script an interpreter ran ("aclocal", not "perl"). */
static const char *program_of(struct scans *sc, int64_t pid)
{
    if (!sc->loaded_processes) {
        qdb_load_all(sc->q);
        sc->loaded_processes = true;
    }
    const struct qdb_process *pr = qdb_process(sc->q, pid);
    if (!pr)
        return "a process";
    const char *prog = qdb_process_program(pr);
    static const char *const interpreters[] = {"perl", "python", "sh", "bash", "dash", NULL};
    for (const char *const *i = interpreters; *i; i++)
        if (g_str_has_prefix(prog, *i) && pr->argv && strlen(pr->argv) + 1 < pr->argv_len) {
            const char *script = pr->argv + strlen(pr->argv) + 1, *slash = strrchr(script, '/');
            if (*script && *script != '-')
                return slash ? slash + 1 : script;
        }
    return prog;
}

/* Whether process `pid` read `path` in a scan of its directory: how, in words (g_free), or
 * NULL. */
static char *scans_explain(struct scans *sc, int64_t pid, const char *path)
{
    g_autofree char *dir = dir_of(path);
    g_autofree char *key = g_strdup_printf("%" G_GINT64_FORMAT " %s", pid, dir);
    int read = GPOINTER_TO_INT(g_hash_table_lookup(sc->reads, key));
    if (read < SCAN_MIN_FILES)
        return NULL;
    bool listings_recorded = !prov_path_under(dir, sc->watched);
    if (listings_recorded && !g_hash_table_contains(sc->listed, key))
        return NULL;
    int n = files_in(sc, dir);
    if (n <= 0 || (int64_t)read * 100 < (int64_t)n * SCAN_SHARE_PERCENT)
        return NULL;
    /* a compiler or linker reads what #include and its command line name: glib.h includes
     * nearly every header of glib/ */
    const char *prog = program_of(sc, pid);
    enum progkind_step step = progkind_step(prog);
    if (step == PROGKIND_COMPILE || step == PROGKIND_LINK)
        return NULL;
    return g_strdup_printf("%s %s %d of the %d files of %s", prog,
                           listings_recorded ? "listed and read" : "read", MIN(read, n), n,
                           dir);
}

/* The use of `pkg`, made on first sight. */
static struct pkg_use *use_of(GHashTable *uses, const struct dpkg_pkg *pkg)
{
    struct pkg_use *u = g_hash_table_lookup(uses, pkg);
    if (!u) {
        u = g_new0(struct pkg_use, 1);
        u->pkg = pkg;
        g_hash_table_insert(uses, (gpointer)pkg, u);
    }
    return u;
}

static gint by_name(gconstpointer a, gconstpointer b)
{
    const struct pkg_use *x = *(const struct pkg_use *const *)a, *y = *(const struct pkg_use *const *)b;
    int c = strcmp(x->pkg->name, y->pkg->name);
    return c ? c : strcmp(x->pkg->arch, y->pkg->arch);
}

/* The use of a package the build used that is, or provides, `name` — one used directly
 * rather than only by a directory scan when there is one — or NULL. */
static const struct pkg_use *name_use(const GPtrArray *list, const char *name)
{
    const struct pkg_use *found = NULL;
    for (guint k = 0; k < list->len; k++) {
        const struct pkg_use *u = list->pdata[k];
        bool is = !strcmp(u->pkg->name, name);
        for (char **p = u->pkg->provides; *p && !is; p++)
            is = !strcmp(*p, name);
        if (is && (!found || (u->direct && !found->direct)))
            found = u;
    }
    return found;
}

static bool name_used(const GPtrArray *list, const char *name)
{
    return name_use(list, name) != NULL;
}

/* The packages `name` Depends or Pre-Depends on that come from its own source package (the
 * same software, split: python3 and python3-minimal) and that the build used, "a, b", or
 * NULL.  Dependencies of other sources do not count: every program uses libc6. */
static char *used_dependencies(struct dpkgdb *db, const GPtrArray *list, const char *name)
{
    const struct dpkg_pkg *pkg = dpkgdb_package(db, name);
    if (!pkg)
        return NULL;
    GString *via = g_string_new(NULL);
    for (char **d = pkg->depends; *d; d++) {
        const struct dpkg_pkg *dep = dpkgdb_package(db, *d);
        if (dep && !strcmp(dep->source, pkg->source) && name_used(list, *d))
            g_string_append_printf(via, "%s%s", via->len ? ", " : "", *d);
    }
    return via->len ? g_string_free(via, FALSE) : (g_string_free(via, TRUE), NULL);
}

/* What --build-depends found, each a list of clauses as their alternatives' names, "a | b". */
struct declared {
    GPtrArray *through;        /* not touched, but a dependency of their own source was,
                                * "a (through DEPS)" */
    GPtrArray *untouched;      /* not touched at all */
    GPtrArray *scan_only;      /* touched only by directory scans, "a (HOW)" */
    GPtrArray *not_applicable; /* excluded by [architectures] or <profiles> */
    GPtrArray *options_only;   /* applying only because a DEB_BUILD_OPTIONS word (nocheck,
                                * nodoc) is not also an active profile, "a (nocheck)" */
};

/* The declared clauses (a Build-Depends value) sorted into `d`.  `options` are the words of
 * DEB_BUILD_OPTIONS that are also profile names. */
static void check_declared(const char *declared, struct dpkgdb *db, const GPtrArray *list,
                           const char *arch, const char *const *profiles,
                           const char *const *options, struct declared *d)
{
    /* the profiles with one option added (the last slot): what the build did without saying
     * so */
    GPtrArray *with_option = g_ptr_array_new();
    for (const char *const *pr = profiles; pr && *pr; pr++)
        g_ptr_array_add(with_option, (gpointer)*pr);
    guint slot = with_option->len;
    g_ptr_array_add(with_option, NULL);
    g_ptr_array_add(with_option, NULL);
    GPtrArray *clauses = debdeps_parse(declared, strlen(declared));
    for (guint i = 0; i < clauses->len; i++) {
        const struct debdep_clause *c = clauses->pdata[i];
        GString *all = g_string_new(NULL), *applying = g_string_new(NULL);
        bool used = false, direct = false;
        GString *dropped_by = g_string_new(NULL); /* the options that would drop it */
        const char *scan = NULL;
        char *via = NULL;
        for (guint a = 0; a < c->alts->len; a++) {
            const struct debdep_alt *alt = c->alts->pdata[a];
            g_string_append_printf(all, "%s%s", a ? " | " : "", alt->name);
            if (!debdeps_applies(alt, arch, profiles))
                continue;
            g_string_append_printf(applying, "%s%s", applying->len ? " | " : "", alt->name);
            const struct pkg_use *u = name_use(list, alt->name);
            used |= u != NULL;
            direct |= u && u->direct;
            if (u && !u->direct && !scan)
                scan = u->scan;
            if (!via)
                via = used_dependencies(db, list, alt->name);
        }
        for (const char *const *op = options; applying->len && op && *op; op++) {
            if (profiles && g_strv_contains(profiles, *op))
                continue;
            with_option->pdata[slot] = (gpointer)*op;
            bool applies = false;
            for (guint a = 0; a < c->alts->len && !applies; a++)
                applies = debdeps_applies(c->alts->pdata[a], arch,
                                          (const char *const *)with_option->pdata);
            if (!applies)
                g_string_append_printf(dropped_by, "%s%s", dropped_by->len ? " " : "", *op);
        }
        if (!applying->len)
            g_ptr_array_add(d->not_applicable, g_string_free(all, FALSE));
        else
            g_string_free(all, TRUE);
        if (dropped_by->len)
            g_ptr_array_add(d->options_only, g_strdup_printf("%s (%s)", applying->str,
                                                             dropped_by->str));
        g_string_free(dropped_by, TRUE);
        if (applying->len && !used && via)
            g_ptr_array_add(d->through, g_strdup_printf("%s (through %s)", applying->str, via));
        else if (applying->len && !used)
            g_ptr_array_add(d->untouched, g_strdup(applying->str));
        else if (applying->len && !direct)
            g_ptr_array_add(d->scan_only, g_strdup_printf("%s (%s)", applying->str,
                                                          scan ? scan : "a directory scan"));
        g_string_free(applying, TRUE);
        g_free(via);
    }
    g_ptr_array_free(clauses, TRUE);
    g_ptr_array_free(with_option, TRUE);
}

static gint by_path(gconstpointer a, gconstpointer b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Unowned paths, sorted; a directory holding three or more of them is one line with the
 * count (dpkg-shlibdeps reads all of /var/lib/dpkg/info), the rest one line each.  --json
 * has every path. */
static void append_unowned(GString *out, GPtrArray *unowned)
{
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

static void json_names(GString *out, const GPtrArray *names)
{
    g_string_append_c(out, '[');
    for (guint i = 0; i < names->len; i++) {
        if (i)
            g_string_append_c(out, ',');
        json_string(out, names->pdata[i], strlen(names->pdata[i]));
    }
    g_string_append_c(out, ']');
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
             "is gone or changed since the build, or stripped, it says 'not checked' and\n"
             "keeps the candidate.  A program defining a function of the archive's name\n"
             "itself is taken for a member linked in.\n",
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
        char *fields = debdeps_from_control(declared_text, strlen(declared_text));
        if (fields) {
            g_free(declared_text);
            declared_text = fields;
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
    GArray *made = qdb_ids(q, tracedb_sql(TQ_VERSIONS_MADE), 0);
    /* What a configure step made is not what the build delivers: its probes (a conftest
     * linked with libc.a) incorporate nothing into the products, and what they went into
     * (config.h) is walked from the products that include it. */
    GArray *written = g_array_new(FALSE, FALSE, sizeof(int64_t));
    GHashTable *kept = g_hash_table_new(g_int64_hash, g_int64_equal);
    for (guint k = 0; k < made->len; k++) {
        int64_t id = g_array_index(made, int64_t, k);
        const struct prov_version *v = prov_version(p, id);
        /* nor is a temporary (a link into /tmp, removed): nothing of it is shipped */
        if (!v || prov_made_by_configure(p, id) || prov_is_temporary(p, v))
            continue;
        g_array_append_val(written, id);
        g_hash_table_add(kept, (gpointer)&v->id);
    }
    g_array_unref(made);
    static const struct prov_walk_opts walk = {.scripts = false, .stop_at_shlibs = true,
                                               .code_only = true};
    /* One walk back from everything the build wrote: the union of their closures, each version
     * with the most specific use it had (a walk per product cost the sum of their closures). */
    GArray *nodes = prov_inputs_of_all(p, written, &walk);
    for (guint k = 0; k < nodes->len; k++) {
        struct prov_node *n = &g_array_index(nodes, struct prov_node, k);
        if (n->role == PROV_ROLE_OBJECT && n->v->size >= 0 && n->v->size <= 8 &&
            !g_str_has_suffix(n->v->path, ".a"))
            continue; /* an empty object holds nothing (an archive's check says why) */
        int use = n->role == PROV_ROLE_HEADER ? USE_HEADER
                  : n->role == PROV_ROLE_SOURCE ? USE_CODE
                  : n->role == PROV_ROLE_OBJECT
                      ? (filekind_toolchain_runtime(n->v->path) ? USE_RUNTIME : USE_CODE)
                      : 0;
        if (use)
            g_hash_table_insert(incorporated, (gpointer)&n->v->id, GINT_TO_POINTER(use));
    }
    g_array_unref(nodes);
    g_array_unref(written);
    /* Static archives of packages whose code the walk reached, each checked once. */
    GHashTable *checks = g_hash_table_new(g_int64_hash, g_int64_equal);
    GPtrArray *archive_checks = g_ptr_array_new_with_free_func(archive_check_free);

    /* Every found file the build read or executed outside its own directory, with the
     * process that did: a read by a directory scan (aclocal reading every .m4) is told from
     * one of a file the process needed. */
    GHashTable *uses = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, pkg_use_free);
    GPtrArray *unowned = g_ptr_array_new_with_free_func(g_free);
    GPtrArray *watched = qdb_watched_trees(q);
    bool system_watched = watched->len > 0;
    g_ptr_array_add(watched, NULL);
    struct scans *sc = scans_new(q, (char *const *)watched->pdata);
    GArray *rows = g_array_new(FALSE, FALSE, sizeof(struct read_row));
    sqlite3_stmt *st = NULL;
    qdb_prepare(q, tracedb_sql(TQ_FOUND_READS_WITH_PATHS), &st);
    size_t cl = strlen(cwd);
    while (st && qdb_row(q, st)) {
        const char *path = (const char *)sqlite3_column_text(st, 0);
        if (!strncmp(path, cwd, cl) && (path[cl] == '/' || !path[cl]))
            continue;
        struct read_row row = {.path = g_strdup(path), .kind = sqlite3_column_int(st, 1),
                               .vid = sqlite3_column_int64(st, 2),
                               .pid = sqlite3_column_int64(st, 3)};
        g_array_append_val(rows, row);
        scans_count(sc, row.pid, row.path);
    }
    sqlite3_finalize(st);
    for (guint i = 0; i < rows->len; i++) {
        const struct read_row *row = &g_array_index(rows, struct read_row, i);
        const char *path = row->path;
        int kind = row->kind;
        int64_t vid = row->vid;
        /* the same file read the same way by another process: only who read it is new */
        bool again = i && !strcmp(row[-1].path, path) && row[-1].kind == kind &&
                     row[-1].vid == vid;
        const struct dpkg_pkg *pkg = dpkgdb_owner(db, path);
        if (!pkg) {
            if (!again)
                g_ptr_array_add(unowned, g_strdup(path));
            continue;
        }
        struct pkg_use *u = use_of(uses, pkg);
        char *scan = kind == TRACEDB_EXEC ? NULL : scans_explain(sc, row->pid, path);
        if (scan && !u->scan)
            u->scan = scan;
        else
            g_free(scan);
        u->direct |= !scan;
        if (again)
            continue;
        u->files++;
        if (kind == TRACEDB_EXEC)
            u->executed = true;
        int use = GPOINTER_TO_INT(g_hash_table_lookup(incorporated, &vid));
        const struct prov_version *v = (use & USE_CODE) ? prov_version(p, vid) : NULL;
        if (v && g_str_has_suffix(path, ".a") && !filekind_toolchain_runtime(path)) {
            struct archive_check *c = g_hash_table_lookup(checks, &v->id);
            if (!c) {
                c = check_archive(p, v, kept);
                c->pkg = pkg;
                g_ptr_array_add(archive_checks, c);
                g_hash_table_insert(checks, (gpointer)&v->id, c);
            }
            if (c->verdict == ARCHIVE_NOTHING) {
                use &= ~USE_CODE;
                u->archive_unused = true;
            }
        }
        u->incorporated |= (use & USE_CODE) != 0;
        u->runtime |= (use & USE_RUNTIME) != 0;
        u->headers |= (use & USE_HEADER) != 0;
    }
    for (guint i = 0; i < rows->len; i++)
        g_free(g_array_index(rows, struct read_row, i).path);
    g_array_unref(rows);
    scans_free(sc);
    g_ptr_array_free(watched, TRUE);
    /* A symlink the build followed uses the package that ships it (/usr/bin/python3 of
     * python3, whose target python3.11 is python3.11-minimal's); unowned links
     * (/etc/alternatives) say nothing. */
    st = NULL;
    if (qdb_prepare(q, tracedb_sql(TQ_SYMLINKS_FOLLOWED), &st))
        qdb_bind_int64(q, st, 1, 0);
    while (st && qdb_row(q, st)) {
        const char *path = (const char *)sqlite3_column_text(st, 0);
        if (!strncmp(path, cwd, cl) && (path[cl] == '/' || !path[cl]))
            continue;
        const struct dpkg_pkg *pkg = dpkgdb_owner(db, path);
        if (!pkg)
            continue;
        struct pkg_use *u = use_of(uses, pkg);
        u->links++;
        u->direct = true;
    }
    sqlite3_finalize(st);

    GPtrArray *list = g_ptr_array_new();
    GHashTableIter it;
    gpointer value;
    g_hash_table_iter_init(&it, uses);
    while (g_hash_table_iter_next(&it, NULL, &value))
        g_ptr_array_add(list, value);
    g_ptr_array_sort(list, by_name);
    struct declared d = {.through = g_ptr_array_new_with_free_func(g_free),
                         .untouched = g_ptr_array_new_with_free_func(g_free),
                         .scan_only = g_ptr_array_new_with_free_func(g_free),
                         .not_applicable = g_ptr_array_new_with_free_func(g_free),
                         .options_only = g_ptr_array_new_with_free_func(g_free)};
    g_autofree char *env_arch = NULL, *env_profiles = NULL, *env_options = NULL;
    const char *arch = pc.arch;
    if (!arch && (env_arch = qdb_env_first_value(q, "DEB_HOST_ARCH")) && *env_arch)
        arch = env_arch;
    if (!arch)
        arch = dpkgdb_native_arch(db);
    if (!arch)
        arch = "amd64"; /* no dpkg package in the database: a test's made-up one */
    const char *profile_list = pc.profiles;
    if (!profile_list)
        profile_list = env_profiles = qdb_env_first_value(q, "DEB_BUILD_PROFILES");
    g_auto(GStrv) profiles = g_strsplit_set(profile_list ? profile_list : "", " ,", -1);
    env_options = qdb_env_first_value(q, "DEB_BUILD_OPTIONS");
    g_auto(GStrv) options = debdeps_options_as_profiles(env_options ? env_options : "");
    if (declared)
        check_declared(declared, db, list, arch, (const char *const *)profiles,
                       (const char *const *)options, &d);

    if (!system_traced && !o.json && !qdb_failed(q))
        fputs("buildtrail packages: note: this trace did not trace /usr (record with "
              "'buildtrail run --system' to see the headers, libraries and tools it used)\n",
              stderr);
    /* Watched system trees (run --system as root) record opens, execs and the symlinks they
     * went through, not stat(), readlink() or failed lookups: a package used only so is not
     * seen. */
    if (system_watched && !o.json && !qdb_failed(q))
        fputs("buildtrail packages: note: this trace watched the system trees (it was "
              "recorded with --system as root) rather than serving them: a package the build "
              "only stat()ed, readlink()ed or looked for is not seen; "
              "'buildtrail run --system=full' records those too\n", stderr);
    GString *out = g_string_new(NULL);
    if (o.json) {
        query_json_begin(out, q, "system_traced");
        g_string_append_printf(out, "%s,\"system_watched\":%s,\"packages\":[",
                               system_traced ? "true" : "false",
                               system_watched ? "true" : "false");
        for (guint i = 0; i < list->len; i++) {
            const struct pkg_use *u = list->pdata[i];
            g_string_append_printf(out, "%s{\"package\":\"%s\",\"architecture\":\"%s\","
                                        "\"version\":\"%s\",\"source\":\"%s\","
                                        "\"source_version\":\"%s\",\"files\":%u,"
                                        "\"incorporated\":%s,\"toolchain_runtime\":%s,"
                                        "\"headers\":%s,\"executed\":%s,"
                                        "\"symlinks_followed\":%u}",
                                   i ? "," : "", u->pkg->name, u->pkg->arch, u->pkg->version,
                                   u->pkg->source, u->pkg->source_version, u->files,
                                   u->incorporated ? "true" : "false",
                                   u->runtime ? "true" : "false",
                                   u->headers ? "true" : "false",
                                   u->executed ? "true" : "false", u->links);
        }
        g_string_append(out, "],\"static_archives\":[");
        for (guint i = 0; i < archive_checks->len; i++) {
            const struct archive_check *c = archive_checks->pdata[i];
            g_string_append(out, i ? ",{\"path\":" : "{\"path\":");
            json_string(out, c->v->path, strlen(c->v->path));
            g_string_append_printf(out, ",\"package\":\"%s\",\"linked\":\"%s\",\"how\":",
                                   c->pkg->name, verdict_names[c->verdict]);
            json_string(out, c->how, strlen(c->how));
            g_string_append_c(out, '}');
        }
        g_string_append(out, "],\"unowned\":");
        json_names(out, unowned);
        if (declared) {
            g_string_append(out, ",\"host_architecture\":");
            json_string(out, arch, strlen(arch));
            g_string_append(out, ",\"build_profiles\":[");
            bool first = true;
            for (char **pr = profiles; *pr; pr++)
                if (**pr) {
                    g_string_append(out, first ? "" : ",");
                    json_string(out, *pr, strlen(*pr));
                    first = false;
                }
            g_string_append(out, "],\"declared_untouched\":");
            json_names(out, d.untouched);
            g_string_append(out, ",\"declared_through_dependencies\":");
            json_names(out, d.through);
            g_string_append(out, ",\"declared_directory_scan_only\":");
            json_names(out, d.scan_only);
            g_string_append(out, ",\"declared_not_applicable\":");
            json_names(out, d.not_applicable);
            g_string_append(out, ",\"declared_applying_despite_options\":");
            json_names(out, d.options_only);
        }
        g_string_append(out, "}\n");
    } else {
        g_string_append_printf(out, "packages used (%u):\n", list->len);
        /* Columns as wide as the longest name and version (linux-headers-6.1.0-13-amd64). */
        int name_w = 28, ver_w = 24;
        for (guint i = 0; i < list->len; i++) {
            const struct pkg_use *u = list->pdata[i];
            name_w = MAX(name_w, (int)MIN(strlen(u->pkg->name), 200));
            ver_w = MAX(ver_w, (int)MIN(strlen(u->pkg->version), 200));
        }
        for (guint i = 0; i < list->len; i++) {
            const struct pkg_use *u = list->pdata[i];
            g_autofree char *links = u->links ? g_strdup_printf(
                                                     "%s%u symlink%s followed",
                                                     u->files ? ", " : "", u->links,
                                                     u->links == 1 ? "" : "s")
                                               : NULL;
            g_autofree char *files = u->files || !u->links
                                         ? g_strdup_printf("%u file%s", u->files,
                                                           u->files == 1 ? "" : "s")
                                         : g_strdup("");
            g_string_append_printf(out, "  %-*s %-*s source %s %s  %s%s%s%s%s%s\n",
                                   name_w, u->pkg->name, ver_w, u->pkg->version, u->pkg->source,
                                   u->pkg->source_version, files, links ? links : "",
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
        /* How each static archive was decided: what the link pulled from it. */
        GString *unused = g_string_new(NULL);
        for (guint i = 0; i < archive_checks->len; i++) {
            const struct archive_check *c = archive_checks->pdata[i];
            const char *base = strrchr(c->v->path, '/');
            base = base ? base + 1 : c->v->path;
            if (c->verdict == ARCHIVE_NOTHING) {
                g_string_append_printf(unused, "%s%s (%s: %s)", unused->len ? ", " : "",
                                       c->pkg->name, base, c->how);
                continue;
            }
            g_string_append_printf(out, "  %s: %s %s: %s%s\n", c->pkg->name, base,
                                   verdict_names[c->verdict], c->how,
                                   c->verdict == ARCHIVE_NOT_CHECKED ? " (kept as a candidate)"
                                                                     : "");
        }
        if (unused->len)
            g_string_append_printf(out, "  not candidates: static archives the links pulled "
                                        "nothing from: %s\n", unused->str);
        g_string_free(unused, TRUE);
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
            append_unowned(out, unowned);
        }
        if (declared) {
            declared_list(out, "never touched", d.untouched, true);
            declared_list(out, "not touched themselves, only their own source's packages "
                               "they depend on", d.through, false);
            declared_list(out, "read by a directory scan only (a process read most files of "
                               "a directory, theirs among them)", d.scan_only, false);
            g_autofree char *na = g_strdup_printf(
                "that do not apply to %s%s%s", arch,
                profile_list && *profile_list ? " with profiles " : "",
                profile_list && *profile_list ? profile_list : "");
            declared_list(out, na, d.not_applicable, false);
            g_autofree char *oo = g_strdup_printf(
                "that apply only because DEB_BUILD_OPTIONS=\"%s\" names what is not an active "
                "profile (build with -P to drop them)", env_options ? env_options : "");
            declared_list(out, oo, d.options_only, false);
        }
    }
    int status = query_emit(q, out) ? 1 : 0;
    g_string_free(out, TRUE);
    g_ptr_array_free(d.untouched, TRUE);
    g_ptr_array_free(d.not_applicable, TRUE);
    g_ptr_array_free(d.through, TRUE);
    g_ptr_array_free(d.scan_only, TRUE);
    g_ptr_array_free(d.options_only, TRUE);
    g_ptr_array_free(list, TRUE);
    g_ptr_array_free(unowned, TRUE);
    g_hash_table_destroy(uses);
    g_hash_table_destroy(incorporated);
    g_hash_table_destroy(checks);
    g_ptr_array_free(archive_checks, TRUE);
    g_hash_table_destroy(kept);
    prov_free(p);
    qdb_close(q);
    dpkgdb_free(db);
    return status;
}
