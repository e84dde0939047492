/* qdb — read-only access to a trace for the query commands.
 *
 * Contract
 *   - qdb_open() opens a trace read-only (tracedb_open_readonly); on failure it returns a
 *     negative errno and a sentence in *err_detail (g_free it).  Nothing here writes.
 *   - Processes are loaded on first use and cached for the life of the struct qdb; the returned
 *     struct qdb_process pointers stay valid until qdb_close().
 *   - Single-threaded; no logging.
 */
#pragma once

#include <glib.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

struct qdb_process {
    int64_t id, parent_id, prev_image_id;
    int pid;
    int exec_seq;
    bool orphan;
    int64_t start_ns;
    char *comm, *exe, *cwd; /* may be NULL */
    char *argv;             /* NUL-separated, argv_len bytes; may be NULL */
    size_t argv_len;
    bool exited;            /* an exit was recorded (schema 2, process events) */
    int exit_code;          /* -1 unless it exited normally */
    int exit_signal;        /* 0 unless a signal killed it */
    int64_t end_ns;
};

struct qdb {
    sqlite3 *db;
    int schema_version;
    GHashTable *processes; /* id -> struct qdb_process* */
    bool all_loaded;
    sqlite3_stmt *st_process; /* one process by id, prepared on first use */
};

int qdb_open(const char *path, struct qdb **out, char **err_detail);
void qdb_close(struct qdb *q);

/* Load every process (for tree and log). */
void qdb_load_all(struct qdb *q);
const struct qdb_process *qdb_process(struct qdb *q, int64_t id);

/* The id of a file path in the trace, 0 if the build never touched it. */
int64_t qdb_file_id(struct qdb *q, const char *path);

/* An absolute, lexically normalised path for a command-line argument (relative to the current
 * directory; "." and ".." resolved without following symlinks).  g_free() it. */
char *qdb_absolute_path(const char *arg);

/* The same relative to directory `base` (absolute) instead of the current one. */
char *qdb_absolute_path_in(const char *base, const char *arg);

/* The ids (column 0) a statement returns for one integer parameter ?1; g_array_unref it. */
GArray *qdb_ids(struct qdb *q, const char *sql, int64_t arg);

/* The basename of a process's program: exe's, else argv[0]'s. */
const char *qdb_process_program(const struct qdb_process *p);
