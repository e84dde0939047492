/* prov-rules — the rules of code and influence (docs/architecture.md, "Code and influence"):
 * what each process is, which of its reads carry code into its outputs, what it loaded to
 * run, inspected or read as package metadata (prov.h; prov-internal.h). */
#include "prov-internal.h"
#include "steps.h"
#include "tracedb.h"

#include <fcntl.h>
#include <string.h>

/* ---- roles ------------------------------------------------------------------------------- */

static bool argv_names(const struct qdb_process *pr, const char *base)
{
    if (!pr || !pr->argv)
        return false;
    for (size_t i = 0; i < pr->argv_len;) {
        const char *w = pr->argv + i;
        size_t l = strnlen(w, pr->argv_len - i);
        const char *slash = memrchr(w, '/', l);
        const char *wb = slash ? slash + 1 : w;
        if (strlen(base) == l - (size_t)(wb - w) && !memcmp(wb, base, strlen(base)))
            return true;
        i += l + 1;
    }
    return false;
}

/* filekind_of(), remembered per file id. */
static enum filekind file_name_kind(struct prov *p, int64_t file_id, const char *path)
{
    gpointer v = pv_idmap_get(&p->name_kinds, file_id);
    if (v)
        return (enum filekind)(GPOINTER_TO_INT(v) - 1);
    enum filekind k = filekind_of(path);
    pv_idmap_set(&p->name_kinds, file_id, GINT_TO_POINTER(k + 1));
    return k;
}

enum prov_role pv_classify(enum filekind name, const char *path, int kind,
                               const struct qdb_process *reader, bool script)
{
    if (kind == TRACEDB_EXEC)
        return PROV_ROLE_TOOL;
    if (filekind_is_runtime_data(path))
        return PROV_ROLE_OTHER; /* locales, gconv, ld.so.cache: read by every program */
    if (script)
        return PROV_ROLE_SCRIPT;
    switch (name) {
    case FILEKIND_SOURCE: {
        const char *base = strrchr(path, '/');
        return argv_names(reader, base ? base + 1 : path) ? PROV_ROLE_SOURCE : PROV_ROLE_HEADER;
    }
    case FILEKIND_HEADER:
        return PROV_ROLE_HEADER;
    case FILEKIND_OBJECT:
        return PROV_ROLE_OBJECT;
    case FILEKIND_SHLIB:
        return PROV_ROLE_SHLIB;
    case FILEKIND_SCRIPT:
        return PROV_ROLE_SCRIPT;
    case FILEKIND_NO_EXT:
        if (reader) {
            /* C++ standard headers have no extension; the compiler proper reads them. */
            const char *prog = qdb_process_program(reader);
            if (progkind_is_compiler_proper(prog))
                return PROV_ROLE_HEADER;
        }
        return PROV_ROLE_OTHER;
    case FILEKIND_OTHER:
        break;
    }
    return PROV_ROLE_OTHER;
}

/* A process's reads (TRACEDB_READ) by what the rules of pv_add_selected look up: their file, the
 * content they held (SHA-256) and their path, each to the
 * indexes into `reads` in the order read.  Made for a process with many reads on its first
 * pv_add_selected, so that a process that made thousands of files from thousands of reads (cp -r,
 * sed -i over a tree) costs one lookup per output, not a scan of its reads per output. */
struct read_index {
    GArray *reads;        /* struct edge */
    GHashTable *by_file;  /* int64 file id -> GArray of guint */
    GHashTable *by_sha;   /* sha256 hex (the version's) -> GArray of guint */
    GHashTable *by_path;  /* path (owned) -> GArray of guint */
};

/* The fewest reads, and writes, for which a process's reads are indexed: below, a scan of its
 * reads per output costs less (a compiler reads hundreds of headers for one output). */
#define PROV_INDEX_MIN 64

static void free_read_index(struct read_index *x)
{
    if (!x)
        return;
    g_array_unref(x->reads);
    g_hash_table_destroy(x->by_file);
    g_hash_table_destroy(x->by_sha);
    g_hash_table_destroy(x->by_path);
    g_free(x);
}

void pv_free_facts(gpointer data)
{
    struct proc_facts *f = data;
    if (f->rewrites)
        g_hash_table_destroy(f->rewrites);
    if (f->modules)
        g_hash_table_destroy(f->modules);
    free_read_index(f->index);
    g_free(f);
}

/* Is `pr` a configure step (steps_is_configure_image) or a descendant of one: an earlier
 * image's or a parent's answer, each worked out once (p->configure), so that a chain of N
 * processes costs N looks, not N times its depth.  (qdb links a process only to earlier ones:
 * the walk up ends.) */
static bool under_configure(struct prov *p, const struct qdb_process *pr)
{
    GArray *chain = g_array_new(FALSE, FALSE, sizeof(int64_t));
    bool answer = false;
    for (const struct qdb_process *x = pr; x;) {
        gpointer known = pv_idmap_get(&p->configure, x->id);
        if (known) {
            answer = GPOINTER_TO_INT(known) == 2;
            break;
        }
        g_array_append_val(chain, x->id);
        if (steps_is_configure_image(x)) {
            answer = true;
            break;
        }
        int64_t up = x->prev_image_id ? x->prev_image_id : x->parent_id;
        x = up > 0 && up < x->id ? qdb_process(p->q, up) : NULL;
    }
    for (guint i = 0; i < chain->len; i++)
        pv_idmap_set(&p->configure, g_array_index(chain, int64_t, i), GINT_TO_POINTER(answer ? 2 : 1));
    g_array_free(chain, TRUE);
    return answer;
}

/* Is `path` a library file by its name (libfoo.so, libfoo.so.1.2)? */
static bool shlib_name(struct prov *p, int64_t file_id, const char *path)
{
    return file_name_kind(p, file_id, path) == FILEKIND_SHLIB;
}

/* Is `path` a linker plugin (loaded by ld and ar through dlopen: the LTO plugins)? */
static bool linker_plugin(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    return strstr(path, "/bfd-plugins/") || g_str_has_prefix(base, "liblto_plugin.so") ||
           g_str_has_prefix(base, "LLVMgold.so");
}

/* Is `path` in a directory the dynamic loader searches (the system's library directories)? */
static bool system_library(const char *path)
{
    static char lib[] = "/lib", usr_lib[] = "/usr/lib", lib64[] = "/lib64",
                usr_lib64[] = "/usr/lib64", local_lib[] = "/usr/local/lib";
    char *const dirs[] = {lib, usr_lib, lib64, usr_lib64, local_lib, NULL};
    return prov_path_under(path, dirs);
}

/* Did the dynamic loader map this library (or dlopen)?
 * - Opened read-only with O_CLOEXEC and nothing else, as ld.so and dlopen do, where the
 *   recorder saw that flag (a watched system tree; cp, tar and ld.bfd's fopen of a link input
 *   add flags or lack O_CLOEXEC).  (lld opens its inputs so too: where the flag is seen, the
 *   libraries it links are not listed.)
 * - A linker plugin, always.
 * - Through a FUSE mount the kernel never passes O_CLOEXEC on.  There: a plain read-only open
 *   before the process's main began (its first read that is not a library or ld.so.cache:
 *   setlocale's locale files, or its first data), of a system library or by a program that is
 *   not the system's (one the build made may load its own libraries); and for a program that
 *   is not a linker,
 *   any library of the system's library directories (dlopen'd plugins and what they need:
 *   ar's LTO plugin pulls in libLLVM) — a build that archives system libraries with tar is
 *   the price.
 * Without recorded flags, the time alone (and the rules on names). */
static bool loader_read(const struct proc_facts *f, const struct edge *e, const char *path)
{
    /* The kernel's O_LARGEFILE, which it sets on every open of a 64-bit process and passes on
     * (glibc's own O_LARGEFILE is 0 there). */
#if defined(__aarch64__) || defined(__arm__) || defined(__powerpc__)
    const int largefile = 0400000;
#else
    const int largefile = 0100000; /* x86 and the generic value */
#endif
    if (e->flags >= 0 && (e->flags & ~largefile) == O_CLOEXEC)
        return true;
    if (linker_plugin(path))
        return true;
    bool plain = e->flags < 0 || (e->flags & ~(largefile | O_CLOEXEC)) == 0;
    if (plain && f->step != PROGKIND_LINK && system_library(path))
        return true;
    /* (A program of the system's does not load a library from the build's tree: objcopy's
     * first read may be the library it copies, in the C locale with no locale file read.) */
    return plain && e->t < f->loaded_until && (system_library(path) || !f->system_program);
}

/* Did process `f` load this read to run rather than read it as data: a shared library the
 * dynamic loader mapped, an interpreter's module that is neither its script nor named on its
 * command line? */
static bool loaded_to_run(struct prov *p, const struct proc_facts *f, const struct edge *e,
                          const char *path)
{
    if (e->kind == TRACEDB_EXEC)
        return false;
    /* (a module its command line names is its data: pod2man lib/Foo.pm, a zip of *.py) */
    if (f->interpreter) {
        /* What the name and the command line say, once per file: an interpreter reads
         * hundreds of modules, each asked of once per walk (and the exports walk per
         * product).  0 not known yet, 1 not a module, 2 a module loaded, 3 one named. */
        guint known = GPOINTER_TO_UINT(g_hash_table_lookup(f->modules, &e->file_id));
        if (!known) {
            known = !progkind_loads_module(f->prog, path)                                 ? 1
                    : steps_is_script_of(f->pr, path) || steps_argv_names(f->pr, path) ? 3
                                                                                     : 2;
            g_hash_table_insert(f->modules, pv_id_key(e->file_id), GUINT_TO_POINTER(known));
        }
        if (known != 1)
            return known == 2;
    }
    return shlib_name(p, e->file_id, path) && loader_read(f, e, path);
}

/* Is version `id` a binary (an object, archive or library by name, or made by a compiler,
 * assembler, linker, archiver or post-processor), as far as one step back tells? */
static bool is_binary(struct prov *p, int64_t id, int64_t file_id, const char *path)
{
    enum filekind k = file_name_kind(p, file_id, path);
    if (k == FILEKIND_OBJECT || k == FILEKIND_SHLIB)
        return true;
    struct edges ws = pv_writers_of(p, id);
    bool bin = false;
    for (guint i = 0; i < ws.n && !bin; i++) {
        const struct proc_facts *f = pv_facts_of(p, ws.e[i].id);
        bin = f && f->step != PROGKIND_GENERIC && f->step != PROGKIND_COMPRESS;
    }
    pv_edges_done(&ws);
    return bin;
}

/* When the first of the versions process writes `wr` made was finished: the least of their
 * last writes.  (The loaded graph has an edge per write, a version's creation among them; SQL
 * one per version, at its last write: the least edge is the end of a creation, not of a
 * version, on the graph.) */
static int64_t first_finished(struct prov *p, const struct edges *wr)
{
    GHashTable *last = g_hash_table_new(g_int64_hash, g_int64_equal); /* version -> its edge */
    for (guint i = 0; i < wr->n; i++) {
        const struct edge *had = g_hash_table_lookup(last, &wr->e[i].id);
        if (prov_version(p, wr->e[i].id) && (!had || wr->e[i].t > had->t))
            g_hash_table_insert(last, (gpointer)&wr->e[i].id, (gpointer)&wr->e[i]);
    }
    int64_t first = INT64_MAX;
    GHashTableIter it;
    gpointer key, edge;
    g_hash_table_iter_init(&it, last);
    while (g_hash_table_iter_next(&it, &key, &edge))
        first = MIN(first, ((const struct edge *)edge)->t);
    g_hash_table_destroy(last);
    return first;
}

const struct proc_facts *pv_facts_of(struct prov *p, int64_t pid)
{
    struct proc_facts *f = pv_idmap_get(&p->facts, pid);
    if (f)
        return f->pr ? f : NULL;
    f = g_new0(struct proc_facts, 1);
    pv_idmap_set(&p->facts, pid, f);
    const struct qdb_process *pr = qdb_process(p->q, pid);
    if (!pr)
        return NULL;
    f->pr = pr;
    f->prog = qdb_process_program(pr);
    f->step = progkind_step(f->prog);
    f->interpreter = progkind_is_interpreter(f->prog);
    if (f->interpreter)
        f->modules = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    f->configure = under_configure(p, pr);
    static char usr[] = "/usr", bin[] = "/bin", sbin[] = "/sbin", lib[] = "/lib";
    char *const sys[] = {usr, bin, sbin, lib, NULL};
    f->system_program = pr->exe && prov_path_under(pr->exe, sys);
    /* The loader's phase: the reads before the first one that is not a library or the
     * loader's cache (locale files are read by main, not the loader). */
    f->loaded_until = INT64_MAX;
    struct edges rd = pv_reads_of(p, pid, INT64_MIN, INT64_MAX);
    /* A program the build made is its own, whatever its name (the file package's build runs
     * its own `file -C` to compile magic.mgc): never an inspector that carries nothing. */
    for (guint i = 0; f->step == PROGKIND_INSPECT && i < rd.n; i++) {
        const struct prov_version *x =
            rd.e[i].kind == TRACEDB_EXEC ? prov_version(p, rd.e[i].id) : NULL;
        if (x && x->origin == TRACEDB_VERSION_WRITTEN)
            f->step = PROGKIND_GENERIC;
    }
    for (guint i = 0; i < rd.n; i++) {
        const char *path = pv_file_path(p, rd.e[i].file_id);
        if (rd.e[i].kind == TRACEDB_READ && !shlib_name(p, rd.e[i].file_id, path) &&
            strcmp(path, "/etc/ld.so.cache") && rd.e[i].t < f->loaded_until)
            f->loaded_until = rd.e[i].t;
    }
    /* Several outputs, and data read after one of them was finished: which read went into
     * which output is not known. */
    struct edges wr = pv_writes_of(p, pid, INT64_MIN, INT64_MAX);
    f->n_writes = wr.n;
    int64_t one_file = 0;
    bool several = false;
    for (guint i = 0; i < wr.n; i++) {
        const struct prov_version *v = prov_version(p, wr.e[i].id);
        if (!v)
            continue;
        if (one_file && v->file_id != one_file)
            several = true;
        one_file = v->file_id;
    }
    several = several && f->step == PROGKIND_GENERIC; /* the others' rules are known */
    int64_t first_done = several ? first_finished(p, &wr) : INT64_MAX;
    f->several = several;
    /* The files it read and then made anew (dpkg-gencontrol's debian/files): inputs of their
     * new versions (in place), not of its other outputs.  (Sets, not scans: sed -i over a
     * tree reads and rewrites thousands.) */
    if (several) {
        GHashTable *read_files = g_hash_table_new(g_int64_hash, g_int64_equal);
        for (guint k = 0; k < rd.n; k++)
            if (rd.e[k].kind == TRACEDB_READ)
                g_hash_table_add(read_files, (gpointer)&rd.e[k].file_id);
        for (guint i = 0; i < wr.n; i++) {
            const struct prov_version *v = prov_version(p, wr.e[i].id);
            if (!v || !g_hash_table_contains(read_files, &v->at_file_id))
                continue;
            if (!f->rewrites)
                f->rewrites = g_hash_table_new(NULL, NULL);
            g_hash_table_add(f->rewrites, GSIZE_TO_POINTER((gsize)v->at_file_id));
        }
        g_hash_table_destroy(read_files);
    }
    for (guint i = 0; several && i < rd.n && !f->interleaved; i++) {
        const char *path = pv_file_path(p, rd.e[i].file_id);
        f->interleaved = rd.e[i].kind == TRACEDB_READ && rd.e[i].t > first_done &&
                         !filekind_is_runtime_data(path) && !loaded_to_run(p, f, &rd.e[i], path);
    }
    pv_edges_done(&wr);
    pv_edges_done(&rd);
    return f;
}

/* The role of a read that carries code, by the kind of step that read it. */
static enum prov_role code_role(const struct proc_facts *f, enum filekind name, const char *path,
                                int kind)
{
    enum prov_role r = pv_classify(name, path, kind, f->pr, false);
    switch (f->step) {
    case PROGKIND_COMPILE: /* what a compiler proper reads is compiled or included */
        return r == PROV_ROLE_SOURCE ? r : PROV_ROLE_HEADER;
    case PROGKIND_LINK:
        return r;
    case PROGKIND_ARCHIVE: /* ar's objects; tar's and dpkg-deb's files, whatever they are */
        return r == PROV_ROLE_OBJECT ? r : PROV_ROLE_COPY;
    case PROGKIND_POSTPROC:
    case PROGKIND_COMPRESS:
        return PROV_ROLE_COPY;
    case PROGKIND_GENERIC:
    case PROGKIND_INSPECT: /* (never asked: pv_read_role stops it) */
        break;
    }
    return r == PROV_ROLE_SOURCE || r == PROV_ROLE_HEADER || r == PROV_ROLE_OBJECT
               ? r : PROV_ROLE_GENERATED;
}

/* The role of a read reached only as influence, by reader `f`. */
static enum prov_role influence_role(const struct proc_facts *f, enum filekind name,
                                     const char *path, int kind)
{
    if (kind == TRACEDB_EXEC)
        return PROV_ROLE_TOOL;
    if (filekind_is_runtime_data(path))
        return PROV_ROLE_OTHER;
    if (!f->configure)
        return PROV_ROLE_SCRIPT;
    /* A configure step's compiles and links (conftest.c, CMakeCCompilerABI.c, meson's
     * sanity checks) are its probes; what it read to decide (meson.build) is a script. */
    switch (name) {
    case FILEKIND_SOURCE:
    case FILEKIND_HEADER:
    case FILEKIND_OBJECT:
    case FILEKIND_SHLIB:
        return PROV_ROLE_PROBE;
    default:
        return f->step != PROGKIND_GENERIC ? PROV_ROLE_PROBE : PROV_ROLE_SCRIPT;
    }
}

/* How one read of `f` enters a walk at its level (PROV_ROLE_COUNT: it does not). */
static enum prov_role read_role(struct walk *w, const struct proc_facts *f, const struct edge *e,
                                bool ancestor)
{
    struct prov *p = w->p;
    const char *path = pv_file_path(p, e->file_id);
    enum filekind name = file_name_kind(p, e->file_id, path);
    if (w->level == LEVEL_EVERY_READ)
        return pv_classify(name, path, e->kind, f ? f->pr : NULL, ancestor);
    if (!f || loaded_to_run(p, f, e, path))
        return PROV_ROLE_COUNT;
    if (w->level == LEVEL_INFLUENCE) {
        /* What is found only here is influence; a library linked against (by a program
         * that is itself only influence) is neither, and not followed with stop_at_shlibs. */
        if (!ancestor && f->step == PROGKIND_LINK && e->kind == TRACEDB_READ &&
            name == FILEKIND_SHLIB && w->o->stop_at_shlibs)
            return PROV_ROLE_COUNT;
        return influence_role(f, name, path, e->kind);
    }
    /* The code levels: what the writer itself read as data. */
    if (ancestor || e->kind == TRACEDB_EXEC || filekind_is_runtime_data(path) ||
        f->step == PROGKIND_INSPECT || filekind_is_package_metadata(path))
        return PROV_ROLE_COUNT;
    if (steps_is_script_of(f->pr, path))
        return PROV_ROLE_COUNT; /* the generator's program, not its input */
    if (f->rewrites && g_hash_table_contains(f->rewrites, GSIZE_TO_POINTER((gsize)e->file_id)))
        return PROV_ROLE_COUNT; /* the old content of another output (pv_add_selected) */
    if (f->step == PROGKIND_GENERIC && is_binary(p, e->id, e->file_id, path))
        return PROV_ROLE_COUNT; /* inspected (dpkg-shlibdeps, file, objdump), not carried */
    return code_role(f, name, path, e->kind);
}

/* Where the graph's memo keeps what read_role says of edge `e` at w's level, or NULL: no
 * graph loaded, the every-read level (diff: one walk), or an edge that is not the graph's. */
static guint8 *role_slot(struct walk *w, const struct edge *e, bool ancestor)
{
    struct graph *g = w->p->graph;
    if (!g || w->level > LEVEL_INFLUENCE)
        return NULL;
    size_t n = g->reads.start[g->reads.max_key + 1];
    uintptr_t at = (uintptr_t)e, first = (uintptr_t)g->reads.e;
    if (at < first || at >= first + n * sizeof *e)
        return NULL;
    if (!g->role_memo)
        g->role_memo = g_malloc0(n * PV_ROLE_SLOTS);
    /* (read_role's answer depends on the level, the way, and for the influence level's data
     * reads on stop_at_shlibs; the process is the edge's own) */
    unsigned slot = (unsigned)w->level * 2 + ancestor;
    if (w->level == LEVEL_INFLUENCE && !ancestor && w->o->stop_at_shlibs)
        slot = 6;
    return &g->role_memo[(size_t)(e - g->reads.e) * PV_ROLE_SLOTS + slot];
}

enum prov_role pv_read_role(struct walk *w, const struct proc_facts *f, const struct edge *e,
                            bool ancestor)
{
    guint8 *memo = role_slot(w, e, ancestor);
    if (memo && *memo)
        return (enum prov_role)(*memo - 1);
    enum prov_role r = read_role(w, f, e, ancestor);
    if (memo)
        *memo = (guint8)(r + 1);
    return r;
}

static gint guint_cmp(gconstpointer a, gconstpointer b)
{
    guint x = *(const guint *)a, y = *(const guint *)b;
    return (x > y) - (x < y);
}

static void index_push(GHashTable *t, gpointer key, guint i, bool owned_key)
{
    GArray *list = g_hash_table_lookup(t, key);
    if (!list) {
        list = g_array_new(FALSE, FALSE, sizeof(guint));
        g_hash_table_insert(t, owned_key ? g_strdup(key) : key, list);
    }
    g_array_append_val(list, i);
}

/* Process `pid`'s read index (struct read_index), made on first use. */
static const struct read_index *read_index_of(struct prov *p, int64_t pid)
{
    struct proc_facts *f = pv_idmap_get(&p->facts, pid);
    if (!f || !f->pr)
        return NULL;
    if (f->index)
        return f->index;
    struct read_index *x = g_new0(struct read_index, 1);
    x->reads = g_array_new(FALSE, FALSE, sizeof(struct edge));
    x->by_file = g_hash_table_new_full(NULL, NULL, NULL, (GDestroyNotify)g_array_unref);
    x->by_sha = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
                                      (GDestroyNotify)g_array_unref);
    x->by_path = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
                                       (GDestroyNotify)g_array_unref);
    struct edges rd = pv_reads_of(p, pid, INT64_MIN, INT64_MAX);
    for (guint i = 0; i < rd.n; i++) {
        if (rd.e[i].kind != TRACEDB_READ)
            continue;
        guint at = x->reads->len;
        g_array_append_val(x->reads, rd.e[i]);
        index_push(x->by_file, GSIZE_TO_POINTER((gsize)rd.e[i].file_id), at, false);
        const struct prov_version *in = prov_version(p, rd.e[i].id);
        if (in && in->sha256[0])
            index_push(x->by_sha, (gpointer)in->sha256, at, true);
        index_push(x->by_path, (gpointer)pv_file_path(p, rd.e[i].file_id), at, true);
    }
    pv_edges_done(&rd);
    f->index = x;
    return x;
}

/* The reads rule `rule` of pv_add_selected may match for output `v`, from the index: appended to
 * `out` (indexes into x->reads).  False: the rule has no key, every read is a candidate. */
static bool index_candidates(const struct read_index *x, int rule, const struct prov_version *v,
                             GArray *out)
{
    GArray *l = NULL;
    switch (rule) {
    case 1:
        l = v->sha256[0] ? g_hash_table_lookup(x->by_sha, v->sha256) : NULL;
        break;
    case 2:
        l = g_hash_table_lookup(x->by_file, GSIZE_TO_POINTER((gsize)v->at_file_id));
        break;
    case 3:
        /* the output plus a suffix (compressed), or without one (decompressed) */
        for (const char *const *sfx = steps_compress_suffixes; *sfx; sfx++) {
            g_autofree char *name = g_strconcat(v->path, *sfx, NULL);
            if ((l = g_hash_table_lookup(x->by_path, name)))
                g_array_append_vals(out, l->data, l->len);
            if (g_str_has_suffix(v->path, *sfx) && strlen(v->path) > strlen(*sfx)) {
                g_autofree char *plain = g_strndup(v->path, strlen(v->path) - strlen(*sfx));
                if ((l = g_hash_table_lookup(x->by_path, plain)))
                    g_array_append_vals(out, l->data, l->len);
            }
        }
        g_array_sort(out, guint_cmp); /* in the order read, as a scan finds them */
        return true;
    default:
        return false;
    }
    if (l)
        g_array_append_vals(out, l->data, l->len);
    return true;
}

/* The i-th read a rule of pv_add_selected looks at: of the index's candidates `cand`, else of
 * the index's reads, else of `rd`. */
static const struct edge *nth_read(const struct read_index *ix, const GArray *cand,
                                   const struct edges *rd, guint i)
{
    if (cand)
        return &g_array_index(ix->reads, struct edge, g_array_index(cand, guint, i));
    return ix ? &g_array_index(ix->reads, struct edge, i) : &rd->e[i];
}

/* The rules that name the very reads an output was made from (prov.h).  Adds them and
 * returns true when one applies (perhaps adding nothing: a configure step's output without a
 * template carries no code); false: the writer's data reads are its inputs. */
bool pv_add_selected(struct walk *w, const struct prov_version *v, const struct proc_facts *f,
                         int64_t pid, int64_t bound, int depth)
{
    struct prov *p = w->p;
    /* Opened for writing and left as it was (dpkg's lock on debian/control): the writer put
     * nothing in it; the base, added with it, is all it is. */
    const struct prov_version *base = v->base_id ? prov_version(p, v->base_id) : NULL;
    if (base && v->sha256[0] && base->size == v->size && !strcmp(base->sha256, v->sha256))
        return true;
    struct edges rd = pv_reads_of(p, pid, INT64_MIN, bound);
    /* A process with many reads and outputs: each rule's candidates from its index, not a
     * scan of them all for each of its outputs. */
    const struct read_index *ix =
        rd.n >= PROV_INDEX_MIN && f->n_writes >= PROV_INDEX_MIN ? read_index_of(p, pid) : NULL;
    GArray *cand = ix ? g_array_new(FALSE, FALSE, sizeof(guint)) : NULL;
    const char *out = v->path;
    int64_t out_file = v->at_file_id;
    bool toolchain = f->step == PROGKIND_COMPILE || f->step == PROGKIND_LINK ||
                     f->step == PROGKIND_ARCHIVE;
    /* In turn, the first rule with a match wins (after an unchanged version, above): 1 the
     * same content (a copy); 2 the file at
     * the output's own path, rewritten in place (strip, objcopy, sed -i, an installer's
     * fix-up); 3 a compressor's input; 4 a post-processor's operands; 5 a configure step's
     * template. */
    for (int rule = 1; rule <= 5; rule++) {
        if ((rule == 2 && toolchain) || (rule == 3 && f->step != PROGKIND_COMPRESS) ||
            (rule == 4 && f->step != PROGKIND_POSTPROC) ||
            (rule == 5 && (!f->configure || toolchain)))
            continue;
        if (rule == 2 && f->step == PROGKIND_GENERIC && !f->several)
            continue; /* one output: sed -i's script and data are its inputs too */
        bool any = false;
        bool indexed = false;
        if (ix) {
            g_array_set_size(cand, 0);
            indexed = index_candidates(ix, rule, v, cand);
        }
        guint n = indexed ? cand->len : ix ? ix->reads->len : rd.n;
        /* templates of one name in several directories (one cmake filling sub1/config.h and
         * sub2/config.h): the output's is the one whose directories end as its own do */
        int best_dirs = -1;
        for (guint i = 0; rule == 5 && i < n; i++) {
            const struct edge *e = nth_read(ix, indexed ? cand : NULL, &rd, i);
            const char *path = pv_file_path(p, e->file_id);
            if (e->t <= bound && e->kind == TRACEDB_READ && e->id != v->id &&
                steps_is_template(out, path))
                best_dirs = MAX(best_dirs, steps_common_dirs(out, path));
        }
        for (guint i = 0; i < n; i++) {
            const struct edge *e = nth_read(ix, indexed ? cand : NULL, &rd, i);
            if (e->t > bound || e->kind != TRACEDB_READ || e->id == v->id)
                continue;
            const struct prov_version *in = prov_version(p, e->id);
            const char *path = pv_file_path(p, e->file_id);
            bool match = false;
            switch (rule) {
            case 1:
                match = in && v->sha256[0] && v->size > 0 && !strcmp(in->sha256, v->sha256);
                break;
            case 2:
                match = e->file_id == out_file;
                break;
            case 3:
                match = steps_compressed_pair(path, out);
                break;
            case 4:
                match = steps_argv_names(f->pr, path) && !filekind_is_runtime_data(path) &&
                        !loaded_to_run(p, f, e, path);
                break;
            case 5:
                match = steps_is_template(out, path) && steps_common_dirs(out, path) == best_dirs;
                break;
            }
            if (!match)
                continue;
            /* a template's role: what its output is (config.h.tmp: what the template's name
             * without its last extension says, config.h) */
            enum filekind k = filekind_of(out);
            if (rule == 5 && k != FILEKIND_HEADER && k != FILEKIND_SOURCE) {
                g_autofree char *stem = g_strdup(path);
                char *dot = strrchr(stem, '.');
                if (dot && !strchr(dot, '/'))
                    *dot = '\0';
                k = filekind_of(stem);
            }
            enum prov_role role = rule == 5 && k == FILEKIND_HEADER   ? PROV_ROLE_HEADER
                                  : rule == 5 && k == FILEKIND_SOURCE ? PROV_ROLE_SOURCE
                                                                      : PROV_ROLE_COPY;
            pv_walk_add(w, e->id, role, depth, true);
            any = true;
        }
        if (any || (rule == 5 && v->base_id == 0)) {
            pv_edges_done(&rd);
            if (cand)
                g_array_unref(cand);
            return true; /* (a configure step's output with no template carries no code) */
        }
    }
    pv_edges_done(&rd);
    if (cand)
        g_array_unref(cand);
    /* An output written on top of an earlier version by a process that made several (an
     * installer fixing a copy's rpath): that version, added with the base, is its input. */
    return v->base_id && f->step == PROGKIND_GENERIC && f->interleaved;
}

bool prov_made_by_configure(struct prov *p, int64_t id)
{
    struct edges ws = pv_writers_of(p, id);
    bool any = false;
    for (guint i = 0; i < ws.n && !any; i++) {
        const struct proc_facts *f = pv_facts_of(p, ws.e[i].id);
        any = f && f->configure;
    }
    pv_edges_done(&ws);
    return any;
}
