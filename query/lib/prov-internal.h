/* prov-internal — what the files of prov (prov.h) share; not for use outside them.
 *
 * The files, one concern each (docs/architecture.md, "Provenance"):
 *   prov.c          the struct prov, versions and paths (one at a time or all in one scan),
 *                   the per-file bindings (version at the end, exists at the end, products),
 *                   the traced trees and the reading of a version's content;
 *   prov-graph.c    the id maps, the edges (from SQL one node at a time, or from the graph
 *                   loaded in one scan: pv_load_graph), and the graph's per-process and
 *                   per-version answers (prov_process_versions, prov_readers, ...);
 *   prov-rules.c    the rules of code and influence ("Code and influence"): what each process
 *                   is (pv_facts_of), which reads carry code (pv_add_selected, pv_read_role),
 *                   what was loaded to run, inspected, or package metadata;
 *   prov-inputs.c   the walk (pv_walk_init/add/finish), the inputs walk and pv_merge_levels,
 *                   which merges the levels of either direction;
 *   prov-outputs.c  the outputs walk;
 *   prov-share.c    the closures kept and spliced into later walks (prov_share_closures).
 *
 * Contract
 *   - Every function shared between them that is not prov.h's (prov_*) is named pv_* and
 *     declared here; the rest is static in its file.  The types below are the prov's own state (one struct prov
 *     per trace, single-threaded, as prov.h says).
 *   - The SQL each file reads is declared beside its reader (TRACEDB_STATEMENT, tracedb/stmt.h)
 *     with an enum naming its columns; statements other modules read too stay in
 *     tracedb/queries.c.
 *   - Nothing here prints; errors are the qdb's sticky error (qdb.h).
 */
#pragma once

#include "filekind.h"
#include "progkind.h"
#include "prov.h"

#include <glib.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

/* A map from ids (positive integers) to pointer-sized values (NULL: absent): a hash table, or
 * a dense array once the largest id is known (the in-memory graph). */
struct idmap {
    GHashTable *h;
    gpointer *dense;
    int64_t max;
    guint size;
    GDestroyNotify free_value;
    GArray *touched; /* dense, reusable (pv_idmap_reset): the ids set since the last reset */
};

/* One edge of the graph: a version or process id, a time, and for reads the file, the kind
 * and the open flags (-1: not recorded). */
struct edge {
    int64_t id, t, file_id;
    int kind, flags;
};

/* Edges grouped by key (a version or process id; ids are dense, 1..max): the edges of key k
 * are e[start[k] .. start[k+1]). */
struct csr {
    int64_t max_key;
    uint32_t *start;
    struct edge *e;
};

/* The whole graph in memory, for walks too big to do one lookup at a time (PROV_SQL_NODES). */
struct graph {
    int64_t max_process;
    struct csr writers; /* version -> {process, last_ns} */
    struct csr reads;   /* process -> {version, first_ns, file_id, kind} */
    struct csr readers; /* version -> {process, first_ns} */
    struct csr writes;  /* process -> {version, last_ns} */
    struct csr based;   /* version -> {version based on it} */
    /* What pv_read_role said of each read edge (reads.e[i]), made on first use: per edge
     * PV_ROLE_SLOTS bytes (0 not asked yet, else the role + 1), one per level and way it was
     * read (as the writer's data, as an ancestor's; the influence level's data reads once
     * more with stop_at_shlibs).  Every walk of a command that walks per product asks the
     * same reads again (gnulib's objects are in every coreutils program): judged once. */
    guint8 *role_memo;
};
#define PV_ROLE_SLOTS 8

#define PV_NODE_BLOCK 4096

/* A walk that reaches more versions than this is redone on the in-memory graph.  One lookup
 * per node costs ~40 us; loading the graph ~0.7 s per million accesses; so a walk that has
 * gone this far wastes at most ~0.2 s by switching, and a big one gains seconds. */
#define PROV_SQL_NODES 4000

struct prov {
    struct qdb *q;
    struct graph *graph;    /* NULL until a walk needs it */
    struct idmap versions;  /* id -> struct prov_version* (or NO_VERSION) */
    struct idmap paths;     /* file id -> char* */
    struct idmap name_kinds; /* file id -> enum filekind + 1 */
    GHashTable *successors; /* process id -> GArray of ids (children, exec successors); lazy */
    bool trees_loaded;
    char *tmp_tree;         /* the build's private /tmp (trees.role 'tmp'), or NULL */
    GPtrArray *other_trees; /* the other traced trees */
    sqlite3_stmt *st_version, *st_path, *st_writers, *st_reads, *st_readers, *st_writes,
        *st_based;
    sqlite3_stmt *st_version_at, *st_last_kind; /* per file: prepared on first use */
    /* A walk's maps over the in-memory graph, kept from one walk to the next (walks are
     * never nested): nodes by version, and the two bounds by process. */
    struct idmap walk_maps[3];
    bool walk_maps_made, walk_maps_busy;
    GPtrArray *node_blocks; /* the same walks' nodes: blocks of PV_NODE_BLOCK struct wnode, kept
                             * from one walk to the next (a command that walks per product makes
                             * millions), or NULL */
    bool versions_loaded;   /* every version is in `versions` (prov_load_versions) */
    struct bindings *bindings; /* NULL until prov_load_bindings */
    struct idmap facts;     /* process id -> struct proc_facts* (the walks' rules); lazy */
    GHashTable *direct;     /* version id -> GHashTable of the version ids it carries one step
                             * back -> enum level + 1 (the outputs walk's code levels); lazy */
    struct idmap configure; /* process id -> 2 under a configure step, 1 not (under_configure) */
    struct share *share;    /* NULL unless prov_share_closures: the kept closures */
    guint32 *path_rank;     /* [version id] -> its place by path (prov-inputs.c), or NULL */
};

/* What every successful access says about files and versions, from one scan
 * (prov_load_bindings): per file, its last binding access (TQ_LAST_BINDING_KIND's row) and
 * the version it held last (TQ_VERSION_AT_FILE's), and whether a version was produced there;
 * per version, how it was used (enum prov_use). */
struct file_end {
    int64_t last_t, last_id; /* the last binding access: its time and id (0: none) */
    int64_t at_t, at_id, version_at;
    int last_kind;
    bool produced;
};

struct bindings {
    int64_t max_file, max_version;
    struct file_end *files; /* [file id] */
    guint8 *uses;           /* [version id]: enum prov_use bits */
};

/* A key's edges: a slice of the graph, or rows of a statement (owned). */
struct edges {
    const struct edge *e;
    guint n;
    GArray *owned;
};

/* A (key, edge) pair, from which a csr is built. */
struct keyed {
    int64_t key;
    struct edge e;
};

/* Where each version was last put by a rename_to or link (the latest wins, as
 * TQ_VERSION_BY_ID says): [version] = {time, file}; file 0 where never moved. */
struct placement {
    int64_t t, file_id;
};

/* Which edges an input walk follows (prov.h, "Code and influence"). */
enum level {
    LEVEL_EXACT,      /* the code edges the rules are sure of */
    LEVEL_GUESS,      /* and the guessed ones */
    LEVEL_INFLUENCE,  /* and everything read before, by the writers and their ancestors */
    LEVEL_EVERY_READ, /* every read, as recorded, with the roles names give (diff) */
};

/* A walk's node: the node, and what a shared walk (prov-share.c) knows of it. */
struct wnode {
    struct prov_node n;   /* (first: a struct wnode* is a struct prov_node*) */
    guint8 kinds;         /* how it was used below the start: PV_KIND_SHLIB, PV_KIND_OTHER */
    bool covered;         /* in a kept closure spliced in, which holds all it reaches: it is not
                           * expanded (nor spliced) */
    bool own;             /* added by the walk's own expansions (not only by a splice) */
};
/* A use of a version that stops a walk with stop_at_shlibs (a shared library linked), or
 * another: a version with both is where the order of a walk decides whether it goes on. */
#define PV_KIND_SHLIB 1
#define PV_KIND_OTHER 2
#define PV_KIND_OF(role) ((role) == PROV_ROLE_SHLIB ? PV_KIND_SHLIB : PV_KIND_OTHER)

struct walk {
    struct prov *p;
    const struct prov_walk_opts *o;
    struct idmap nodes;    /* version id -> struct wnode* */
    GQueue queue;          /* struct wnode* to visit, breadth first */
    bool shared;           /* splicing in the closures kept (prov-share.c): no distances */
    GPtrArray *spliced;    /* a shared walk's: the kept closures (struct chunk*) of the nodes
                            * it popped, spliced in at its end */
    bool unsorted;         /* pv_walk_finish leaves the nodes in the order found */
    struct idmap done_data; /* process id -> bound already expanded (as a data writer), +1 */
    struct idmap done_script; /* the same, as an ancestor */
    GPtrArray *all;        /* every node, in the order found */
    unsigned limit;        /* give up past this many nodes (0: none) */
    bool gave_up;
    bool reused;           /* the three maps are the prov's walk_maps (given back at the end),
                            * and the nodes are in its node_blocks */
    guint nodes_used;      /* (reused) how many of node_blocks' nodes this walk holds */
    enum level level;      /* which edges this walk follows (inputs) */
};

/* The most processes a walk up a chain of archivers looks at (a crafted trace may chain
 * thousands). */
#define PROV_MAX_UP 4096

/* What the walk needs to know about one process image, worked out on its first use. */
struct proc_facts {
    const struct qdb_process *pr;
    const char *prog;
    enum progkind_step step;
    bool interpreter;
    bool configure;       /* it or an ancestor is a configure step (steps.h) */
    bool several;         /* a generic process that made 2+ files */
    bool interleaved;     /* ... and read data after one of them was finished */
    GHashTable *rewrites; /* ... the files (ids, as pointers) it read and then wrote anew, or
                           * NULL */
    int64_t loaded_until; /* the start of its first read that the dynamic loader did not do */
    bool system_program;  /* its executable is in /usr, /bin, /sbin or /lib */
    struct read_index *index; /* its reads by what pv_add_selected's rules match on, or NULL */
    guint n_writes;       /* how many writes it made (of versions) */
    GHashTable *modules;  /* an interpreter's: file id -> what its name and argv make a read
                           * of it (loaded_to_run's memo), or NULL */
};

/* One walk at one level, for pv_merge_levels: the inputs walk (pv_walk_level) or the
 * outputs walk (pv_walk_outputs_level) with its arguments. */
struct level_walk {
    struct prov *p;
    const int64_t *starts;
    guint n;
    bool keep_starts, outputs;
    const struct prov_walk_opts *o;
    unsigned limit;
};

/* ---- prov.c: versions, paths, bindings ---- */

/* The largest file id, and version id, checked (qdb_max_id). */
int64_t pv_max_file_id(struct prov *p);
int64_t pv_max_version_id(struct prov *p);
/* prov_file_path, or "?" for a file the trace does not have (a damaged trace). */
const char *pv_file_path(struct prov *p, int64_t file_id);
/* The bindings (struct bindings) of a trace, empty, sized by its largest ids. */
struct bindings *pv_bindings_new(struct prov *p);
/* Account one successful access (file, version if has_version, kind, time, access id). */
void pv_bindings_add(struct bindings *b, int64_t fid, bool has_version, int64_t vid, int kind,
                     int64_t t, int64_t id);
/* Record that version `vid` was put at `file_id` at `t` (the latest wins). */
void pv_place(struct placement *placed, int64_t vid, int64_t t, int64_t file_id);
/* Every file path, in one scan (`paths` made dense first). */
void pv_load_paths(struct prov *p, int64_t max_file);
/* Every version, in one scan, each at the path it was last placed at; with `based`, the base
 * edges too ({base, {version}} as struct keyed). */
void pv_load_versions(struct prov *p, int64_t max_version, const struct placement *placed,
                      GArray *based);

/* ---- prov-graph.c: id maps, edges, the loaded graph ---- */

void pv_idmap_init(struct idmap *m, int64_t dense_max, GDestroyNotify free_value);
gpointer pv_idmap_get(const struct idmap *m, int64_t id);
void pv_idmap_set(struct idmap *m, int64_t id, gpointer v);
/* Empty a reusable dense map in the time its use took (pv_idmap_init_reusable made it). */
void pv_idmap_reset(struct idmap *m);
void pv_idmap_init_reusable(struct idmap *m, int64_t dense_max);
void pv_idmap_clear(struct idmap *m);
/* Switch a hash map to a dense array for ids 1..max, keeping its values. */
void pv_idmap_make_dense(struct idmap *m, int64_t max);
/* A newly allocated int64 key (g_free it). */
int64_t *pv_id_key(int64_t id);
void pv_edges_done(struct edges *x);
/* Prepare the statements of the edges one node at a time (p->st_writers ... p->st_based):
 * false, with the qdb's error kept, when one cannot be. */
bool pv_prepare_edges(struct prov *p);
void pv_graph_free(struct graph *g);
/* Load the whole graph (and the paths, versions and bindings) in memory: p->graph. */
void pv_load_graph(struct prov *p);
/* The processes that made version `v`: {process, its last write of v}. */
struct edges pv_writers_of(struct prov *p, int64_t v);
/* What process `pid` read: {version, first_ns, file, kind, flags}; a superset of those with a
 * start in [from, until] (the caller filters).  From the graph, in time order. */
struct edges pv_reads_of(struct prov *p, int64_t pid, int64_t from, int64_t until);
/* The processes that read version `v`: {process, its first read}. */
struct edges pv_readers_of(struct prov *p, int64_t v);
/* The versions process `pid` wrote: {version, last write}; a superset of those with a last
 * write in [from, until] (the caller filters). */
struct edges pv_writes_of(struct prov *p, int64_t pid, int64_t from, int64_t until);
/* The versions written on top of `v`. */
struct edges pv_based_on(struct prov *p, int64_t v);
/* p->successors: each process's children and exec successors, made once. */
void pv_load_successors(struct prov *p);

/* ---- prov-rules.c: code and influence ---- */

/* The role a name and a use give a read (no rule of a step applied). */
enum prov_role pv_classify(enum filekind name, const char *path, int kind,
                           const struct qdb_process *reader, bool script);
void pv_free_facts(gpointer data); /* (a struct proc_facts) */
/* What the rules need to know of process `pid`, worked out once; NULL: no such process. */
const struct proc_facts *pv_facts_of(struct prov *p, int64_t pid);
/* How one read of `f` enters a walk at its level (PROV_ROLE_COUNT: it does not). */
enum prov_role pv_read_role(struct walk *w, const struct proc_facts *f, const struct edge *e,
                            bool ancestor);
/* The rules that name the very reads output `v` was made from: adds them and returns true
 * when one applies; false: the writer's data reads are its inputs. */
bool pv_add_selected(struct walk *w, const struct prov_version *v, const struct proc_facts *f,
                     int64_t pid, int64_t bound, int depth);

/* ---- prov-inputs.c: walks, the inputs walk, the levels merged ---- */

void pv_walk_init(struct walk *w, struct prov *p, const struct prov_walk_opts *o,
                  unsigned limit);
/* The nodes that pass `keep` (all when NULL), sorted (unless w->unsorted); frees the walk.
 * NULL if it gave up. */
GArray *pv_walk_finish(struct walk *w, bool (*keep)(const struct prov_node *, void *),
                       void *data);
void pv_walk_add(struct walk *w, int64_t id, enum prov_role role, int depth, bool prune);
/* Mark process `id` as expanded up to `bound` in `done` (prov-inputs.c says what it returns). */
int64_t pv_advance(struct idmap *done, int64_t id, int64_t bound, bool upward);
/* One walk back from `n` starts at one level; NULL when it gave up. */
GArray *pv_walk_level(struct prov *p, const int64_t *starts, guint n, bool keep_starts,
                      const struct prov_walk_opts *o, unsigned limit, enum level level);
/* The levels' walks merged, each version at the first level that reached it. */
GArray *pv_merge_levels(const struct level_walk *x);

/* A new node of the walk for `v` (not covered, no uses, not own), not queued. */
struct wnode *pv_walk_new_node(struct walk *w, const struct prov_version *v, enum prov_role role,
                               int depth);

/* ---- prov-share.c: closures kept and spliced into later walks ---- */

/* Does the walk of `n` starts at `level` with options `o` and `limit` share closures (the
 * prov shares them, one start, a level of code or influence, these are its options, no
 * limit)? */
bool pv_share_applies(struct prov *p, guint n, enum level level,
                      const struct prov_walk_opts *o, unsigned limit);
/* Make `w` a shared walk (before its first node). */
void pv_share_begin(struct walk *w);
/* In a shared walk: node `n`, just popped, needs no expansion: a closure spliced in covers it,
 * or it has a kept closure, spliced in at the end (pv_share_end). */
bool pv_share_covers(struct walk *w, struct wnode *n);
/* The end of the shared walk from `start`: splice in the closures met (the largest first),
 * and keep the walk's; false, keeping nothing, when a version below the start was used both
 * as a shared library and otherwise (the walk must be done again unshared).  (Before
 * pv_walk_finish.) */
bool pv_share_end(struct walk *w, int64_t start);
void pv_share_free(struct share *s);

/* ---- prov-outputs.c ---- */

/* One outputs walk from `n_starts` starts at one level; NULL when it gave up. */
GArray *pv_walk_outputs_level(struct prov *p, const int64_t *starts, guint n_starts,
                              const struct prov_walk_opts *o, unsigned limit, enum level level);
