/* prov — provenance over a trace: file versions, what went into one (inputs), what came out
 * of one (outputs), and the role each input played.
 *
 * The graph (docs/architecture.md, "Provenance")
 *   version V  <-wrote-  process P  <-read before writing-  version U
 *   version V  <-base-   version B   (V was written on top of B without truncating it)
 *   With scripts (the default), the ancestors of a writer (parents, and the images it exec'd
 *   from) count too: what they read before the write (Makefiles, scripts, the tools they ran)
 *   is what decided the command.  A read counts only when it began before the writer's last
 *   write of V: what a process read after it was done writing cannot be in V.
 *
 * Code and influence ("Provenance: code and influence")
 *   Not every read carries code into what the process wrote.  An input walk has three
 *   levels, and each version is listed at the first level that reaches it:
 *   - exact code: compile, assemble, link, archive, the file a copy has the content of, the
 *     file an in-place post-processor (strip, objcopy, dwz, ...) or compressor rewrote, the
 *     template a configure step filled, a base version, and a generator's data inputs;
 *   - guessed code (prov_node.guess): what a process that wrote several files and read
 *     between them had read before the write, where no rule says which read went where;
 *   - influence: what the writers' ancestors read (build.ninja, Makefiles, .d files), the
 *     tools run, what a configure step read (its probes), and anything reached only through
 *     those (roles tool, script, probe, other).
 *   Never an input at any level: what a process loaded to run (the shared libraries a
 *   non-linker mapped, a linker's own libraries mapped before its first other read, an
 *   interpreter's modules its command line does not name), nor binaries a generic process only inspected (dpkg-shlibdeps
 *   reading a program writes no code of it).

 * A version whose base is not an earlier version (the recorder numbers them in order: a
 * cycle or a crafted row) has its base cleared and makes the qdb damaged (qdb_damaged), so
 * every walk down the bases ends.
 *
 * Contract: main-level helpers over struct qdb (read-only, single-threaded).  Functions that
 * can fail return NULL/0 and never print; commands report.  Returned structs are owned by the
 * struct prov (valid until prov_free).  Needs schema version 3 (prov_new returns NULL before).
 */
#pragma once

#include "qdb.h"

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

/* What an input was to the build, told from its name, how it was used and by whom. */
/* In order of specificity; the roles before PROV_ROLE_SHLIB are code: the output carries them. */
enum prov_role {
    PROV_ROLE_SOURCE,  /* a source file named on a compiler's command line */
    PROV_ROLE_HEADER,  /* included by a compiler (headers, included sources) */
    PROV_ROLE_OBJECT,  /* an object file or static archive */
    PROV_ROLE_COPY,    /* copied, rewritten in place, compressed, or a filled template: the
                        * output carries its content */
    PROV_ROLE_GENERATED, /* a generator's data input (bison's grammar, a .def, a template) */
    PROV_ROLE_SHLIB,   /* a shared library (linked dynamically) */
    PROV_ROLE_TOOL,    /* a program the build executed */
    PROV_ROLE_SCRIPT,  /* influence: read by a process that started the writers (Makefile,
                        * build.ninja, .d files) or by a writer and not carried into it */
    PROV_ROLE_PROBE,   /* influence: read or made by a configure step (probes, meson.build) */
    PROV_ROLE_OTHER,
    PROV_ROLE_COUNT
};

const char *prov_role_name(enum prov_role r); /* "source", "header", ... */
const char *prov_role_title(enum prov_role r); /* "compiled sources", ... */

struct prov_version {
    int64_t id;
    int64_t file_id;     /* where it was made (or first read) */
    int64_t at_file_id;  /* where it is last known to be (rename/link carry it) ... */
    const char *path;    /* ... and that file's path */
    int origin;          /* TRACEDB_VERSION_FOUND / _WRITTEN */
    int64_t base_id;
    int64_t size;        /* -1 unknown */
    char sha256[65];     /* hex, "" if not hashed */
    char sha1[41];
    char git_sha1[41];
    int hash_error;
};

struct prov_node {
    const struct prov_version *v;
    enum prov_role role;
    int depth;           /* 0: the start */
    bool guess;          /* reached only through guessed code edges (over-approximated) */
};

struct prov;

/* NULL when the trace has no versions (recorded before schema 3). */
struct prov *prov_new(struct qdb *q);
void prov_free(struct prov *p);

const struct prov_version *prov_version(struct prov *p, int64_t id);

/* Load, in one scan of the accesses, what the next four answer from (without it each asks
 * SQL: right for a few files, seconds for tens of thousands).  Loading the graph loads them
 * too, in its own scan. */
void prov_load_bindings(struct prov *p);

/* Every file a successful access put a version at (written, created, truncated, moved or
 * linked there: TRACEDB_KINDS_PRODUCED), by path.  Loads the bindings and every path. */
GArray *prov_product_files(struct prov *p);

/* How a version was used by successful accesses. */
enum prov_use {
    PROV_USE_READ = 1,   /* read or executed (TRACEDB_KINDS_READ) */
    PROV_USE_OPENED = 2, /* opened for reading (TRACEDB_KINDS_OPENED_READ) */
    PROV_USE_MADE = 4,   /* written, created or truncated (TRACEDB_KINDS_MADE) */
    PROV_USE_BOUND = 8,  /* any of those, moved, linked or removed: every successful access
                          * bound to it */
};

/* The versions used in any of the ways in `uses` (and with `found_only`, only those found in
 * place rather than made by the build), in id order.  Loads the bindings. */
GArray *prov_versions_used_as(struct prov *p, unsigned uses, bool found_only);

/* The version last seen at `file_id` (written, moved there, or read there); 0 if none. */
int64_t prov_version_at(struct prov *p, int64_t file_id);
/* Does the path still exist when the build ends (its last event is not a removal)? */
bool prov_exists_at_end(struct prov *p, int64_t file_id);
/* Is `path` in the build's private /tmp, and not in a traced tree mounted inside it (as a
 * workspace under /tmp is)? */
bool prov_in_private_tmp(struct prov *p, const char *path);
/* Is `path` a place for scratch files rather than results: the private /tmp; outside the
 * directory that holds the workspace (the workspace and its siblings are never scratch), the
 * temporary and cache directories (/tmp, /var/tmp, /var/cache); and any .cache or .ccache
 * directory outside the workspace ($HOME's caches).  Products are never there. */
bool prov_in_scratch_place(struct prov *p, const char *path);
/* Is `v` one of the build's products: made by it, still at its path when the build ended
 * (not removed, not replaced), and not in the build's private /tmp (unless in a traced tree
 * mounted inside it, as a workspace under /tmp is)? */
bool prov_is_product(struct prov *p, const struct prov_version *v);
/* Every product of the build (prov_is_product), in one scan of the trace: sorted by path.
 * g_ptr_array_free it (the versions stay the prov's). */
GPtrArray *prov_products(struct prov *p);
/* Every version ever at file_id, oldest first. */
GArray *prov_versions_at(struct prov *p, int64_t file_id); /* int64_t ids; g_array_unref */

struct prov_walk_opts {
    bool scripts;        /* follow ancestors of writers / descendants of readers */
    char **prune;        /* NULL-terminated absolute directories not shown nor followed */
    bool stop_at_shlibs; /* inputs: list shared libraries but not what they were made from
                          * (dynamically linked, not incorporated) */
    int max_depth;       /* inputs: follow at most this many steps back (0: no limit; 1: the
                          * versions the writer itself read, diff's direct inputs) */
    bool code_only;      /* inputs: the code levels only, no influence (packages) */
    bool every_read;     /* inputs: every read before the write, as recorded, whatever it
                          * carried (diff: anything read may explain a difference) */
};

/* The closure of inputs of `start`: every version it was made from, recursively, with the
 * role each played (the most specific way it was used).  Excludes `start` itself.  The array
 * of struct prov_node is sorted by path; g_array_unref it. */
GArray *prov_inputs(struct prov *p, int64_t start, const struct prov_walk_opts *o);

/* Load the whole graph now (~0.7 s per million accesses), for a command that will walk many
 * times: each walk is then in memory, never one SQL lookup per step. */
void prov_load(struct prov *p);

/* From now on, keep each level of every input walk from one version with options `o` (prune
 * ignored: none), and splice what was kept of a version into later such walks that reach it
 * instead of walking it again: the same closures (prov-share.c says why) but for the depths,
 * which such walks do not keep (every node below the start is at depth 1), for a command that
 * walks from many versions which share much of their closures and asks no distances (the
 * closures engine: a product per walk).  Loads the graph.  The later walks gain most when the
 * earlier versions are walked first (in id order). */
void prov_share_closures(struct prov *p, const struct prov_walk_opts *o);

/* Read every version (and file path) now, in two scans, without the graph: for a command
 * that asks for most versions one by one (the prov and intoto exports). */
void prov_load_versions(struct prov *p);

/* The union of the closures of all `starts` (int64_t ids) in one walk over the whole graph:
 * each version once, with the most specific role it played in any of them.  The starts are in
 * it too, at depth 0 (with the role they played as another start's input, if any).  For the
 * whole-build analyses (packages, the SBOM exports): one traversal, not one per product. */
GArray *prov_inputs_of_all(struct prov *p, GArray *starts, const struct prov_walk_opts *o);

/* Was version `id` made by a configure step or a process it started (steps.h): a probe's
 * output (conftest, CMake's a.out), config.h, Makefiles? */
bool prov_made_by_configure(struct prov *p, int64_t id);

/* The reverse: every version made from any of `starts` (int64_t ids), recursively: first what
 * carries their code (each version's own inputs walk, one step back, says what it carries:
 * the two directions agree), then what a guess says does, then (unless code_only) what was
 * made after a read of them by the reader and, with scripts, the processes it started (role
 * script).  every_read: only the last, as before the levels. */
GArray *prov_outputs(struct prov *p, GArray *starts, const struct prov_walk_opts *o);

/* How a process touched a version. */
enum prov_touch { PROV_OPENED, PROV_EXECUTED, PROV_READ /* either */, PROV_MADE };
/* The versions process `pid` opened for reading, executed, either, or made (wrote, created,
 * truncated), each once, in id order; from the whole graph (loaded on first use: for the
 * exporters that visit every process).  g_ptr_array_free it (the versions stay the prov's). */
GPtrArray *prov_process_versions(struct prov *p, int64_t pid, enum prov_touch how);
/* One successful read or exec (TRACEDB_KINDS_READ) of a version found in place: the file it
 * was read through, the kind, the version and the process (INT64_MIN: none identified). */
struct prov_found_read {
    int64_t file_id, version_id, process_id;
    int kind;
};
/* Every distinct prov_found_read of the trace (as TQ_FOUND_READS_WITH_PATHS's rows are, with
 * file ids for paths), sorted by file, kind, version, process: from the loaded graph (loaded
 * on first use), and from SQL the few the graph does not hold (no process, or a process or
 * version id outside the trace's).  For the SBOMs' packages, which ask it of a whole build. */
GArray *prov_found_reads(struct prov *p);
/* Append to `out` (int64_t) the processes that made version `id` / that read or executed it,
 * each once (and not already in `out`). */
void prov_makers(struct prov *p, int64_t id, GArray *out);
void prov_readers(struct prov *p, int64_t id, GArray *out);

/* Append to `out` (int64_t) the processes `id` started: its children and its exec successor,
 * by id. */
void prov_successors(struct prov *p, int64_t id, GArray *out);

/* The whole content of the regular file at `path` (a FIFO or a device there is not read: it
 * could block or never end; nor a file over 2 GiB), or NULL.  g_free it. */
char *prov_read_regular_file(const char *path, gsize *len);

/* The content of version `v` as it is on disk now, if it still is that version (its SHA-256
 * matches the trace's): g_free it.  Otherwise NULL, and *problem says why (a static string:
 * "no longer readable" — also a FIFO or device now at its path, never read —, "changed since
 * the build", "not hashed in the trace"). */
char *prov_read_version(const struct prov_version *v, gsize *len, const char **problem);

/* The path of file `file_id`, or NULL when the trace has no such file (owned by the prov). */
const char *prov_file_path(struct prov *p, int64_t file_id);

/* Is `path` under one of the NULL-terminated directories? */
bool prov_path_under(const char *path, char *const *dirs);

/* "found" (existed before the build) or "built" (made by it), for a version's origin. */
const char *prov_origin_name(int origin);
/* A temporary: a version the build made at a path that no longer exists when it ends (cc's
 * /tmp/cc*.s, a file made and deleted; a file renamed into place is not one: its version is at
 * the new path). */
bool prov_is_temporary(struct prov *p, const struct prov_version *v);
/* "found", "built", or "temp" for a temporary: the origin column of inputs and outputs. */
const char *prov_version_label(struct prov *p, const struct prov_version *v);
