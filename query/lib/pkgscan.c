/* pkgscan — which Debian packages a build used and how: the engine of `buildtrail packages`
 * (contract in pkgscan.h; docs/architecture.md, "Debian packages"). */
#include "pkgscan.h"
#include "debdeps.h"
#include "filekind.h"
#include "objsyms.h"
#include "progkind.h"
#include "queries.h"
#include "stmt.h"
#include "tracedb.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* (image, path) of every directory listed (?1 unused) */
TRACEDB_STATEMENT(sql_dirs_listed, 3, TRACEDB_SCHEMA_VERSION,
                  "SELECT DISTINCT a.process_id, f.path FROM accesses a JOIN files f ON "
                  "f.id = a.file_id WHERE a.kind = 13 /* TRACEDB_READDIR */ AND a.result = 0 "
                  "AND ?1 = ?1");
enum { DIRS_LISTED_PROCESS, DIRS_LISTED_PATH };

/* every version the build made (?1 unused) */
TRACEDB_STATEMENT(sql_versions_made, 3, TRACEDB_SCHEMA_VERSION,
                  "SELECT DISTINCT version_id FROM accesses WHERE kind IN " TRACEDB_KINDS_MADE
                  " AND result = 0 AND version_id IS NOT NULL AND ?1 = ?1");
enum { VERSIONS_MADE_ID };

static void pkg_use_free(gpointer data)
{
    struct pkgscan_use *u = data;
    g_free(u->scan);
    g_free(u);
}

static const char *const verdict_names[] = {"linked in", "nothing linked", "not checked"};

const char *pkgscan_verdict_name(enum pkgscan_verdict v)
{
    return verdict_names[v];
}

static void archive_check_free(gpointer data)
{
    struct pkgscan_archive *c = data;
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
 * table, is nothing linked; an archive or output gone or changed since the build, an archive
 * of which no global symbol can be read, or an output stripped to its dynamic symbols, is not
 * checked (and stays a candidate). */
static struct pkgscan_archive *check_archive(struct prov *p, const struct prov_version *a,
                                           GHashTable *kept)
{
    struct pkgscan_archive *c = g_new0(struct pkgscan_archive, 1);
    c->v = a;
    c->verdict = PKGSCAN_NOT_CHECKED;
    if (a->size >= 0 && a->size <= 8) {
        c->verdict = PKGSCAN_NOTHING;
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
        c->verdict = members == 0 ? PKGSCAN_NOTHING : PKGSCAN_NOT_CHECKED;
        c->how = g_strdup(members == 0 ? "an empty archive" : "not an ar archive");
        g_hash_table_destroy(defs);
        return c;
    }
    if (g_hash_table_size(defs) == 0) {
        /* LLVM bitcode, a thin archive without an index, members with local symbols only
         * (linked whole by --whole-archive): what a link took cannot be told */
        c->how = g_strdup_printf("no global symbol of its %d member%s could be read", members,
                                 members == 1 ? "" : "s");
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
    for (guint i = 0; i < outs->len && c->verdict != PKGSCAN_PULLED; i++) {
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
            c->verdict = PKGSCAN_PULLED;
            c->how = g_strdup_printf("went into the archive %s", n->v->path);
            break;
        }
        GHashTable *od = name_set();
        int r = objsyms_elf(out, len, od);
        const char *sym = r > 0 ? first_shared(defs, od) : NULL;
        if (sym) {
            c->verdict = PKGSCAN_PULLED;
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
    if (c->verdict != PKGSCAN_PULLED) {
        if (unchecked) {
            c->how = g_steal_pointer(&unchecked);
        } else {
            c->verdict = PKGSCAN_NOTHING;
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
    if (qdb_prepare(q, sql_dirs_listed, &st))
        qdb_bind_int64(q, st, 1, 0);
    while (st && qdb_row(q, st))
        g_hash_table_add(sc->listed, g_strdup_printf(
                                         "%" G_GINT64_FORMAT " %s",
                                         (int64_t)sqlite3_column_int64(st, DIRS_LISTED_PROCESS),
                                         (const char *)sqlite3_column_text(st, DIRS_LISTED_PATH)));
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
static struct pkgscan_use *use_of(GHashTable *uses, const struct dpkg_pkg *pkg)
{
    struct pkgscan_use *u = g_hash_table_lookup(uses, pkg);
    if (!u) {
        u = g_new0(struct pkgscan_use, 1);
        u->pkg = pkg;
        g_hash_table_insert(uses, (gpointer)pkg, u);
    }
    return u;
}

static gint by_name(gconstpointer a, gconstpointer b)
{
    const struct pkgscan_use *x = *(const struct pkgscan_use *const *)a, *y = *(const struct pkgscan_use *const *)b;
    int c = strcmp(x->pkg->name, y->pkg->name);
    return c ? c : strcmp(x->pkg->arch, y->pkg->arch);
}

/* The use of a package the build used that is, or provides, `name` — one used directly
 * rather than only by a directory scan when there is one — or NULL. */
static const struct pkgscan_use *name_use(const GPtrArray *list, const char *name)
{
    const struct pkgscan_use *found = NULL;
    for (guint k = 0; k < list->len; k++) {
        const struct pkgscan_use *u = list->pdata[k];
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

/* The declared clauses (a Build-Depends value) sorted into `d`.  `options` are the words of
 * DEB_BUILD_OPTIONS that are also profile names. */
static void check_declared(const char *declared, struct dpkgdb *db, const GPtrArray *list,
                           const char *arch, const char *const *profiles,
                           const char *const *options, struct pkgscan_declared *d)
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
            const struct pkgscan_use *u = name_use(list, alt->name);
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
/* What went into the products, by how: code (sources, objects, static archives: what
 * Built-Using is for), toolchain runtime (crt*.o, libgcc, libc_nonshared: linked into every
 * program under a license exception), headers (compiled in).  Shared libraries are listed,
 * not followed; runtime data (locales, gconv) is never any of these. */
enum { USE_CODE = 1, USE_RUNTIME = 2, USE_HEADER = 4 };

/* What one scan needs while it runs. */
struct scan_ctx {
    struct qdb *q;
    struct prov *p;
    struct dpkgdb *db;
    const char *cwd;
    size_t cl;
    GHashTable *kept;         /* version ids made neither by configure nor as temporaries */
    GHashTable *incorporated; /* version id -> USE_* */
    GHashTable *checks;       /* archive version id -> struct pkgscan_archive * */
    GHashTable *uses;         /* struct dpkg_pkg * -> struct pkgscan_use * */
    struct scans *sc;
    struct pkgscan *m;
};

static bool in_build_tree(const struct scan_ctx *x, const char *path)
{
    return !strncmp(path, x->cwd, x->cl) && (path[x->cl] == '/' || !path[x->cl]);
}

/* The versions the build made and kept: what a configure step made is not what the build
 * delivers (its probes — a conftest linked with libc.a — incorporate nothing into the
 * products, and what they went into, config.h, is walked from the products that include
 * it), nor is a temporary (a link into /tmp, removed): nothing of it is shipped. */
static GArray *kept_versions(struct scan_ctx *x)
{
    GArray *made = qdb_ids(x->q, sql_versions_made, 0);
    GArray *written = g_array_new(FALSE, FALSE, sizeof(int64_t));
    for (guint k = 0; k < made->len; k++) {
        int64_t id = g_array_index(made, int64_t, k);
        const struct prov_version *v = prov_version(x->p, id);
        if (!v || prov_made_by_configure(x->p, id) || prov_is_temporary(x->p, v))
            continue;
        g_array_append_val(written, id);
        g_hash_table_add(x->kept, (gpointer)&v->id);
    }
    g_array_unref(made);
    return written;
}

/* One walk back from everything the build kept: the union of their closures, each version
 * with the most specific use it had (a walk per product cost the sum of their closures). */
static void find_incorporated(struct scan_ctx *x)
{
    GArray *written = kept_versions(x);
    static const struct prov_walk_opts walk = {.scripts = false, .stop_at_shlibs = true,
                                               .code_only = true};
    GArray *nodes = prov_inputs_of_all(x->p, written, &walk);
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
            g_hash_table_insert(x->incorporated, (gpointer)&n->v->id, GINT_TO_POINTER(use));
    }
    g_array_unref(nodes);
    g_array_unref(written);
}

/* Every found file the build read or executed outside its own directory, with the process
 * that did, each counted for the directory scans. */
static GArray *outside_reads(struct scan_ctx *x)
{
    GArray *rows = g_array_new(FALSE, FALSE, sizeof(struct read_row));
    sqlite3_stmt *st = NULL;
    qdb_prepare(x->q, tracedb_sql(TQ_FOUND_READS_WITH_PATHS), &st);
    while (st && qdb_row(x->q, st)) {
        const char *path = (const char *)sqlite3_column_text(st, TQ_FOUND_READS_PATH);
        if (in_build_tree(x, path))
            continue;
        struct read_row row = {.path = g_strdup(path),
                               .kind = sqlite3_column_int(st, TQ_FOUND_READS_KIND),
                               .vid = sqlite3_column_int64(st, TQ_FOUND_READS_VERSION),
                               .pid = sqlite3_column_int64(st, TQ_FOUND_READS_PROCESS)};
        g_array_append_val(rows, row);
        scans_count(x->sc, row.pid, row.path);
    }
    sqlite3_finalize(st);
    return rows;
}

/* The use a static archive's version `v` of `pkg` had: `use` without USE_CODE when the
 * links pulled nothing from it (checked once per archive). */
static int archive_use(struct scan_ctx *x, const struct prov_version *v,
                       const struct dpkg_pkg *pkg, struct pkgscan_use *u, int use)
{
    struct pkgscan_archive *c = g_hash_table_lookup(x->checks, &v->id);
    if (!c) {
        c = check_archive(x->p, v, x->kept);
        c->pkg = pkg;
        g_ptr_array_add(x->m->archives, c);
        g_hash_table_insert(x->checks, (gpointer)&v->id, c);
    }
    if (c->verdict == PKGSCAN_NOTHING) {
        use &= ~USE_CODE;
        u->archive_unused = true;
    }
    return use;
}

/* One read (rows[i]) given to its package, or to the unowned. */
static void classify_read(struct scan_ctx *x, const struct read_row *row, bool again)
{
    const char *path = row->path;
    const struct dpkg_pkg *pkg = dpkgdb_owner(x->db, path);
    if (!pkg) {
        if (!again)
            g_ptr_array_add(x->m->unowned, g_strdup(path));
        return;
    }
    struct pkgscan_use *u = use_of(x->uses, pkg);
    char *scan = row->kind == TRACEDB_EXEC ? NULL : scans_explain(x->sc, row->pid, path);
    if (scan && !u->scan)
        u->scan = scan;
    else
        g_free(scan);
    u->direct |= !scan;
    if (again)
        return;
    u->files++;
    if (row->kind == TRACEDB_EXEC)
        u->executed = true;
    int use = GPOINTER_TO_INT(g_hash_table_lookup(x->incorporated, &row->vid));
    const struct prov_version *v = (use & USE_CODE) ? prov_version(x->p, row->vid) : NULL;
    if (v && g_str_has_suffix(path, ".a") && !filekind_toolchain_runtime(path))
        use = archive_use(x, v, pkg, u, use);
    u->incorporated |= (use & USE_CODE) != 0;
    u->runtime |= (use & USE_RUNTIME) != 0;
    u->headers |= (use & USE_HEADER) != 0;
}

/* Every read outside the build given to the package owning it: a read by a directory scan
 * (aclocal reading every .m4) is told from one of a file the process needed. */
static void classify_reads(struct scan_ctx *x)
{
    GPtrArray *watched = qdb_watched_trees(x->q);
    x->m->system_watched = watched->len > 0;
    g_ptr_array_add(watched, NULL);
    x->sc = scans_new(x->q, (char *const *)watched->pdata);
    GArray *rows = outside_reads(x);
    for (guint i = 0; i < rows->len; i++) {
        const struct read_row *row = &g_array_index(rows, struct read_row, i);
        /* the same file read the same way by another process: only who read it is new */
        bool again = i && !strcmp(row[-1].path, row->path) && row[-1].kind == row->kind &&
                     row[-1].vid == row->vid;
        classify_read(x, row, again);
    }
    for (guint i = 0; i < rows->len; i++)
        g_free(g_array_index(rows, struct read_row, i).path);
    g_array_unref(rows);
    scans_free(x->sc);
    x->sc = NULL;
    g_ptr_array_free(watched, TRUE);
}

/* A symlink the build followed uses the package that ships it (/usr/bin/python3 of python3,
 * whose target python3.11 is python3.11-minimal's); unowned links (/etc/alternatives) say
 * nothing. */
static void add_symlinks(struct scan_ctx *x)
{
    sqlite3_stmt *st = NULL;
    if (qdb_prepare(x->q, tracedb_sql(TQ_SYMLINKS_FOLLOWED), &st))
        qdb_bind_int64(x->q, st, 1, 0);
    while (st && qdb_row(x->q, st)) {
        const char *path = (const char *)sqlite3_column_text(st, TQ_SYMLINKS_FOLLOWED_PATH);
        if (in_build_tree(x, path))
            continue;
        const struct dpkg_pkg *pkg = dpkgdb_owner(x->db, path);
        if (!pkg)
            continue;
        struct pkgscan_use *u = use_of(x->uses, pkg);
        u->links++;
        u->direct = true;
    }
    sqlite3_finalize(st);
}

/* The host architecture, profiles and build options, and with a Build-Depends value its
 * clauses sorted into m->declared. */
static void sort_declared(struct scan_ctx *x, const struct pkgscan_opts *o)
{
    struct pkgscan *m = x->m;
    g_autofree char *env_arch = NULL;
    if (o->arch)
        m->arch = g_strdup(o->arch);
    else if ((env_arch = qdb_env_first_value(x->q, "DEB_HOST_ARCH")) && *env_arch)
        m->arch = g_steal_pointer(&env_arch);
    if (!m->arch)
        m->arch = g_strdup(dpkgdb_native_arch(x->db));
    if (!m->arch)
        m->arch = g_strdup("amd64"); /* no dpkg package in the database: a test's made-up one */
    m->profile_list = o->profiles ? g_strdup(o->profiles)
                                  : qdb_env_first_value(x->q, "DEB_BUILD_PROFILES");
    m->profiles = g_strsplit_set(m->profile_list ? m->profile_list : "", " ,", -1);
    m->build_options = qdb_env_first_value(x->q, "DEB_BUILD_OPTIONS");
    g_auto(GStrv) options = debdeps_options_as_profiles(m->build_options ? m->build_options : "");
    m->has_declared = o->declared != NULL;
    if (o->declared)
        check_declared(o->declared, x->db, m->uses, m->arch, (const char *const *)m->profiles,
                       (const char *const *)options, &m->declared);
}

struct pkgscan *pkgscan_run(struct qdb *q, struct prov *p, struct dpkgdb *db,
                            const char *run_cwd, const struct pkgscan_opts *opts)
{
    struct pkgscan *m = g_new0(struct pkgscan, 1);
    m->uses = g_ptr_array_new_with_free_func(pkg_use_free);
    m->archives = g_ptr_array_new_with_free_func(archive_check_free);
    m->unowned = g_ptr_array_new_with_free_func(g_free);
    m->declared = (struct pkgscan_declared){.through = g_ptr_array_new_with_free_func(g_free),
                                            .untouched = g_ptr_array_new_with_free_func(g_free),
                                            .scan_only = g_ptr_array_new_with_free_func(g_free),
                                            .not_applicable =
                                                g_ptr_array_new_with_free_func(g_free),
                                            .options_only =
                                                g_ptr_array_new_with_free_func(g_free)};
    GArray *traced_usr = qdb_ids(q, tracedb_sql(TQ_SYSTEM_TREES_TRACED), 0);
    m->system_traced = traced_usr->len && g_array_index(traced_usr, int64_t, 0) > 0;
    g_array_unref(traced_usr);
    struct scan_ctx x = {.q = q, .p = p, .db = db, .cwd = run_cwd, .cl = strlen(run_cwd), .m = m,
                         .kept = g_hash_table_new(g_int64_hash, g_int64_equal),
                         .incorporated = g_hash_table_new(g_int64_hash, g_int64_equal),
                         .checks = g_hash_table_new(g_int64_hash, g_int64_equal),
                         .uses = g_hash_table_new(g_direct_hash, g_direct_equal)};
    find_incorporated(&x);
    classify_reads(&x);
    add_symlinks(&x);
    GHashTableIter it;
    gpointer value;
    g_hash_table_iter_init(&it, x.uses);
    while (g_hash_table_iter_next(&it, NULL, &value))
        g_ptr_array_add(m->uses, value);
    g_ptr_array_sort(m->uses, by_name);
    sort_declared(&x, opts);
    g_hash_table_destroy(x.uses);
    g_hash_table_destroy(x.incorporated);
    g_hash_table_destroy(x.checks);
    g_hash_table_destroy(x.kept);
    return m;
}

void pkgscan_free(struct pkgscan *m)
{
    if (!m)
        return;
    g_ptr_array_free(m->uses, TRUE);
    g_ptr_array_free(m->archives, TRUE);
    g_ptr_array_free(m->unowned, TRUE);
    g_ptr_array_free(m->declared.through, TRUE);
    g_ptr_array_free(m->declared.untouched, TRUE);
    g_ptr_array_free(m->declared.scan_only, TRUE);
    g_ptr_array_free(m->declared.not_applicable, TRUE);
    g_ptr_array_free(m->declared.options_only, TRUE);
    g_free(m->arch);
    g_free(m->profile_list);
    g_strfreev(m->profiles);
    g_free(m->build_options);
    g_free(m);
}
