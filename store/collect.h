/* collect — what `store push` sends of one trace, read from it without a server: the run, its
 * processes, its products, each product's closure down to its leaves with roles, the one-step
 * code edges that give a chain, the Debian package owning each leaf, each product's licenses.
 *
 * Contract
 *   - store_collect() opens the trace read-only (qdb), refuses a damaged one (-EINVAL, *err
 *     "the trace FILE is damaged: ..."; a file that is not a trace: -EINVAL too) and an
 *     incomplete one unless allow_incomplete (-EAGAIN, *err the reason); -ENOENT and other
 *     negative errnos for a file it cannot read.  On success *out holds the rows, written in
 *     PostgreSQL's COPY text format (one GString per table, columns as the enum below says), and the trace's identity: the SHA-256 of the file's bytes, hashed
 *     through a descriptor opened before the qdb: a path that names another file once the
 *     trace is open (replaced in between), or a file changed by the end of the reading, is
 *     refused (-ESTALE, *err "... push it again"), so the rows and the identity are of one
 *     and the same file.  $BUILDTRAIL_STORE_TEST_PAUSE=read:SECONDS (tests only) sleeps with
 *     the trace open, before that check, after writing "pausing" to pause_fd.
 *   - Paths, argv and hashes are written as bytea (`\\x` hex): any byte survives.
 *   - `admindir` (dpkg's database, NULL: none) names the package owning each leaf outside the
 *     run's directory: as `packages` does, with this machine's database (packages_from:
 *     "HOST:ADMINDIR", NULL when none was read; the trace does not record the packages).
 *   - No logging, no server; single-threaded.  store_trace_free() frees it.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

/* The per-push rows: the first seven go to temporary tables (pgstore.c), the last three
 * straight into the store's tables. */
enum store_table {
    ST_CONTENT, /* sha256 bytea, size bigint */
    ST_PATH,    /* path bytea */
    ST_ARGV,    /* sha256 bytea, argv bytea */
    ST_PACKAGE, /* n (the row's number, from 0), name, version, arch, source, source_version */
    ST_PROCESS, /* id, parent, prev_image, argv_sha256, exe, cwd, exit_code, exit_signal */
    ST_VERSION, /* vid, path, sha256, size, origin */
    ST_PRODUCT, /* vid, license, leaves (its closure rows) */
    ST_CLOSURE, /* product_vid, vid, role, guess, package (a ST_PACKAGE row's n, or \N) */
    ST_EDGE,    /* vid, from_vid, role: one row per (vid, from_vid) */
    ST_PRODUCT_PACKAGE, /* product_vid, role, files, package (n): the closure rows grouped */
    ST_COUNT
};
extern const char *const store_table_names[ST_COUNT];

struct store_trace {
    char *identity;     /* hex SHA-256 of the trace file */
    char *trace_path;   /* absolute */
    int64_t trace_size;
    char *state;        /* qdb_run_state_name */
    bool complete;
    char *incomplete;   /* why not, or NULL */
    char *hostname, *cwd, *version;
    char *argv;         /* NUL-separated */
    char *packages_from; /* "HOST:ADMINDIR": the dpkg database that named the packages */
    size_t argv_len;
    int64_t started_ns, finished_ns; /* wall clock; 0 unknown */
    int exit_status;
    GString *rows[ST_COUNT];
    int64_t nrows[ST_COUNT];
    double collect_seconds;
};

int store_collect(const char *trace_path, bool allow_incomplete, const char *admindir,
                  int pause_fd, struct store_trace **out, char **err);
void store_trace_free(struct store_trace *t);
/* The identity alone (the file's SHA-256, hex: g_free it), to skip reading a trace the store
 * already has; a negative errno when the file cannot be read. */
int store_identity(const char *trace_path, char **hex);

/* The sha256sum lines of a known-copies index (`copies --index`: "HEX  NAME", a '*' before
 * NAME for binary mode; "~ NAME" fingerprint lines and anything else skipped) in `len` bytes
 * of any content: each hash (64 lower-case hex digits, g_strdup'd) appended to `hashes` and
 * mapped to its NAME (g_strdup'd; the last line wins) in `names`.  Fuzzed
 * (tests/fuzz/fuzz-storeknown.c). */
void store_parse_known(const char *text, size_t len, GPtrArray *hashes, GHashTable *names);

/* COPY text format helpers (exposed for the unit test). */
void store_copy_text(GString *out, const char *s);          /* NULL: \N */
void store_copy_bytea(GString *out, const void *s, size_t len);
void store_copy_hex_bytea(GString *out, const char *hex);    /* "" or NULL: \N */
