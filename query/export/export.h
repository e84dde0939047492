/* export — the exporters of `buildtrail export`: one file per format family, one interface.
 *
 * Contract
 *   - A format is `int fmt_NAME(struct export_ctx *x)`: it writes its whole document to x->out
 *     (flushing it to x->sink with ex_flush as it goes, so that memory stays bounded) and
 *     returns 0, or 1 after an error that is kept in x->q (a damaged trace; the command
 *     reports it) or printed.  Formats print nothing else and never exit.
 *   - The facts come from the provenance layer (lib/prov.h) and the trace (lib/qdb.h); the
 *     helpers below are what more than one format needs.  docs/exports.md maps every field.
 */
#pragma once

#include "closures.h"
#include "dpkgdb.h"
#include "driver.h"
#include "licroll.h"
#include "outfile.h"
#include "queries.h"
#include "prov.h"
#include "qdb.h"
#include "textout.h"
#include "tracedb.h"

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>


struct export_ctx {
    struct qdb *q;
    struct prov *p;
    struct qdb_run_info run; /* cwd "/" when the trace has none */
    GString *out;        /* the document being written; ex_flush passes it on to sink */
    struct outfile *sink;
    /* options */
    bool with_links;
    const char *closure_of;
    int depth;           /* 0: unlimited */
    char **collapse;     /* NULL-terminated dirs shown as one node each (dot) */
    char **compilers;    /* compile-commands: more compiler names (globs), NULL-terminated */
    const char *append_text;      /* compile-commands --append: the old database's text ... */
    const GArray *append_entries; /* ... and its entries (struct ccdb_entry), or NULL */
    const char *admindir;         /* dpkg's database for the SBOMs' packages, or NULL */
    struct closures *closures;    /* each product's closure, walked once (ex_closure) */
};

/* ---- helpers (shared.c) ---- */

/* Build-relative time in microseconds (Trace Event format) and ISO 8601 wall-clock time. */
void ex_iso_time(struct export_ctx *x, int64_t boot_ns, char buf[32]);

/* An attestation of an incomplete trace says so: `,"KEY":"INCOMPLETE TRACE: why; …"` (nothing
 * for a complete trace). */
void ex_incomplete_member(struct export_ctx *x, GString *o, const char *key);

/* "traceState":…,"traceComplete":bool[,"traceIncomplete":why] (members of an open object). */
void ex_trace_state_members(struct export_ctx *x, GString *o);

/* The build's ex_products: for every path it wrote that still exists at the end (outside its
 * private /tmp), the version there.  Sorted by path. */
GArray *ex_products(struct export_ctx *x);

/* Every found version the build read (its ex_materials), in id order. */
GArray *ex_materials(struct export_ctx *x);

gint ex_version_path_cmp(gconstpointer a, gconstpointer b);

void ex_json_key_string(GString *out, const char *key, const char *s);
/* `,"KEY":"VALUE"` for each pair of a NULL-terminated list of keys and values. */
void ex_json_members(GString *out, ...) G_GNUC_NULL_TERMINATED;
/* "Debian binary package NAME (ARCH) of source package SOURCE VERSION", newly allocated. */
char *ex_deb_source_info(const struct dpkg_pkg *pkg);

gint ex_proc_id_cmp(gconstpointer a, gconstpointer b);

gint ex_proc_id_cmp_int64(gconstpointer a, gconstpointer b);

/* The keys of `set` (int64 ids), in increasing order: an order to write them in, which the
 * set's own (its hashes') is not.  g_array_unref. */
GArray *ex_ids_sorted(GHashTable *set);

/* The nearest ancestor of process `id` (exec predecessors, then parents) that is in `set`
 * (int64 ids), or 0. */
int64_t ex_nearest_ancestor_in(struct export_ctx *x, int64_t id, GHashTable *set);

/* The closure of product v (closures_of: walked on the first ask, for every use after). */
const GArray *ex_closure(struct export_ctx *x, const struct prov_version *v);

/* The leaf inputs (found files whose code it carries: prov.h's code roles, not shared
 * libraries) and the tools of one product. */
void ex_product_inputs(struct export_ctx *x, const struct prov_version *v, GArray **leaves,
                           GArray **tools);

char *ex_doc_name(struct export_ctx *x);

/* A stable identifier for this trace: SHA-256 of the run's start time, host and command. */
char *ex_trace_uid(struct export_ctx *x);

const char *ex_rel_or_abs(struct export_ctx *x, const char *path, char *buf, size_t cap);

/* The versions process `pid` touched as `which` asks (TQ_VERSIONS_OPENED_BY_PROCESS,
 * _EXECUTED_, _MADE_, or _READ_ for the first two), each once, in id order, as struct
 * prov_version pointers (owned by the prov). */
GPtrArray *ex_versions_of(struct export_ctx *x, int64_t pid, enum tracedb_query which);

/* The processes that wrote a version (its tasks in a formulation). */
GArray *ex_writers(struct export_ctx *x, const struct prov_version *v);

/* Pass what x->out holds on to the destination once it holds EX_FLUSH_BYTES or more (and
 * nothing more once the trace has shown damage): a format calls it between items, so that
 * memory stays bounded whatever the trace's size.  To standard output a document is then
 * written as it goes; a damaged trace found late cuts it short (the exit is non-zero and the
 * error said); with -o the file is only put in place when the document is complete. */
#define EX_FLUSH_BYTES (1u << 20)
void ex_flush(struct export_ctx *x);

/* ---- what the SBOMs (spdx, spdx3, cyclonedx) say of files and packages (shared.c) ---- */

/* What a file is, from its first bytes now (ELF type, archive and compression magic, text),
 * else from its name (filekind) when it is gone or unreadable. */
enum ex_file_type {
    EX_FT_EXECUTABLE, /* an ELF program (ET_EXEC, or ET_DYN with an interpreter: PIE) */
    EX_FT_SHLIB,      /* an ELF shared library (ET_DYN without an interpreter) */
    EX_FT_OBJECT,     /* ELF relocatable (.o) */
    EX_FT_ARCHIVE,    /* ar (.a, .deb), gzip, xz, zstd, bzip2, tar */
    EX_FT_SOURCE,     /* source, header or build script by its name, or a #! script */
    EX_FT_DOCUMENTATION, /* under a share/doc or share/man directory, or .md/.txt/.html */
    EX_FT_TEXT,       /* other text */
    EX_FT_OTHER,
};
enum ex_file_type ex_file_type(const struct prov_version *v);
/* SPDX 2.3 fileTypes for it, as JSON strings separated by commas. */
const char *ex_spdx_file_types(enum ex_file_type t);

/* The licenses of a product (query/lib/licroll.h, as `licenses` finds them): the roll-up of
 * its incorporated files, or NULL (unknown); every found file's detection is kept in `cache`
 * (licroll_cache_new), where ex_file_license finds it.  `n_unknown` (may be NULL): how many
 * incorporated files have no known license. */
char *ex_product_license(struct export_ctx *x, const struct prov_version *v, GHashTable *cache,
                         unsigned *n_unknown);
/* The SPDX expression detected in found version v, or NULL (none found, not looked at: its
 * content changed or it is a tool or an object). */
const char *ex_file_license(GHashTable *cache, const struct prov_version *v);
/* The licenses an expression names, as SPDX 2.3's licenseInfoInFiles lists them: each
 * "ID" or "ID WITH EXCEPTION", once, in order.  False (and `out` unchanged) when a token is
 * not an SPDX license id, LicenseRef- or AND/OR/WITH/parenthesis, or the expression is not
 * well formed (unbalanced parentheses, an operator without its operands: "(MIT OR"), as a
 * malformed SPDX-License-Identifier tag makes it. */
bool ex_license_items(const char *expr, GPtrArray *out);
/* The roll-up's method, for a comment. */
#define EX_LICENSE_METHOD "buildtrail: the AND of the licenses detected in the files this " \
    "one incorporates (compiled sources, project headers, copies, generator inputs: its " \
    "traced closure, as 'buildtrail licenses' lists them); system headers, shared " \
    "libraries, tools and build scripts are not counted"

/* The Debian packages the build read files of (as `packages` finds them: every found file
 * read or executed outside the build's directory, and symlinks followed, owned by an
 * installed package in x->admindir's database). */
struct ex_deb {
    const struct dpkg_pkg *pkg;
    char *purl;         /* pkg:deb/VENDOR/NAME@VERSION?arch=ARCH (percent-encoded) */
    GArray *versions;   /* int64_t: the found versions of its files the build read, id order */
    unsigned files, links;
    bool executed;
};
struct ex_debs {
    struct dpkgdb *db;  /* NULL: no database (not Debian): no packages */
    GPtrArray *list;    /* struct ex_deb *, by name then architecture */
    GHashTable *by_version; /* version id -> struct ex_deb * */
};
struct ex_debs *ex_debs_load(struct export_ctx *x);
void ex_debs_free(struct ex_debs *d);

/* ---- the formats ---- */
int fmt_compile_commands(struct export_ctx *x);
int fmt_chrome_trace(struct export_ctx *x);
int fmt_dot(struct export_ctx *x);
int fmt_spdx(struct export_ctx *x);
int fmt_cyclonedx(struct export_ctx *x);
int fmt_intoto(struct export_ctx *x);
int fmt_slsa(struct export_ctx *x);
int fmt_spdx3(struct export_ctx *x);
int fmt_prov(struct export_ctx *x);
int fmt_sql(struct export_ctx *x);
