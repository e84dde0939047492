/* qdb — read-only access to a trace for the query commands.
 *
 * Contract
 *   - qdb_open() opens a trace read-only (tracedb_open_readonly); on failure it returns a
 *     negative errno and a sentence in *err_detail (g_free it).  Nothing here writes.
 *   - Processes are loaded on first use and cached for the life of the struct qdb; the returned
 *     struct qdb_process pointers stay valid until qdb_close().
 *   - Every SQLite call goes through qdb_prepare/qdb_bind/qdb_row (or checks its own result
 *     and calls qdb_fail): the first error is kept (sticky) and every later qdb_row returns
 *     false, so a loop over a damaged table ends early *and* qdb_failed() says so.  A caller
 *     must check qdb_failed() before it gives an answer: an error is never "no rows".
 *   - A hostile file (docs/architecture.md, "What a crafted trace gets") is refused, never
 *     followed forever: qdb_open checks the schema (tracedb_open_readonly); every process row
 *     loaded is checked (ids positive and below the file's size in bytes, a parent and an
 *     earlier image older than the image: the recorder numbers them so), and a row that is
 *     not so makes q damaged (qdb_damaged) and has those links cleared, so a walk up a chain
 *     of parents or images ends; SQLite is given at most QDB_HEAP_MAX of memory and each
 *     trace a budget of VM steps in proportion to its size, and going past either is the
 *     sticky error too.
 *   - Single-threaded; no logging.
 */
#pragma once

#include "queries.h"
#include "tracedb.h"

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
    char *argv;             /* NUL-separated, argv_len bytes (and one NUL past them, so the
                             * last word is a string even when the trace's is cut off); may
                             * be NULL */
    size_t argv_len;
    bool exited;            /* an exit was recorded (schema 2, process events) */
    int exit_code;          /* -1 unless it exited normally */
    int exit_signal;        /* 0 unless a signal killed it */
    bool killed_at_end;     /* left running by the build, killed at its end (schema 7) */
    int64_t end_ns;
};

/* How the run that recorded the trace ended, and whether the trace is complete. */
enum qdb_run_state {
    QDB_RUN_FINISHED,    /* the build ended and the recorder finished */
    QDB_RUN_RECORDING,   /* still being recorded (a recorder holds the trace) */
    QDB_RUN_KILLED,      /* left 'running' with no recorder alive: buildtrail was killed */
    QDB_RUN_INTERRUPTED, /* the user interrupted the build (Ctrl-C, SIGTERM) */
    QDB_RUN_FAILED,      /* buildtrail failed (failure says how) */
};

struct qdb_run {
    enum qdb_run_state state;
    char *failure;          /* runs.failure: what failed, or NULL */
    char *process_tree;     /* runs.process_tree: "complete" or why not; NULL if not written */
    char *cwd;              /* the directory the build was started in; NULL: no run row */
    int64_t root_id;        /* the build's command's first image; 0: not recorded */
    bool complete;          /* finished, the process tree note is "complete" (or "complete,
                             * ..."), the root process (root_id) is in the trace, and no access
                             * was hidden (runs.notes "unseen=") */
    char *incomplete;       /* why the trace is not complete (a clause), NULL when complete */
    int64_t start_realtime_ns;
    int64_t start_ns;        /* the same instant on the trace's clock (CLOCK_BOOTTIME) */
    int64_t end_realtime_ns; /* 0: the run has no end (recording, killed) */
    int exit_status;        /* the build's, like $?; -1 unknown */
};

/* The latest time a trace may hold: the recorder writes CLOCK_MONOTONIC nanoseconds, never
 * below 0, and no machine runs 146 years (2^62 ns).  A time outside [0, QDB_TIME_MAX] in a
 * process, an exit or the run row is damage; so the difference of two such times, the
 * sums of a few, never overflow (critical-path, report, chrome-trace, show subtract them). */
#define QDB_TIME_MAX (INT64_C(1) << 62)

/* The most memory SQLite may take (sqlite3_hard_heap_limit64; the page cache is 64 MiB). */
#define QDB_HEAP_MAX (1 << 30)

struct qdb {
    sqlite3 *db;
    struct qdb_run run;  /* loaded by qdb_open */
    char *path;          /* the trace file, as given */
    int error;           /* the first SQLite error code met (0: none); sticky */
    char *error_msg;     /* its message, with the statement's purpose */
    int schema_version;
    GHashTable *processes; /* id -> struct qdb_process* */
    bool all_loaded;
    sqlite3_stmt *st_process; /* one process by id, prepared on first use */
    sqlite3_stmt *st_file_id; /* a file's id by path, prepared on first use */
    sqlite3_stmt *st_env;     /* a process's environment, prepared on first use */
    GHashTable *ids_stmts;    /* qdb_ids: SQL text -> its statement, prepared once */
    int64_t id_limit;         /* no id of this trace is above it: its size in bytes (set_bounds) */
    int64_t step_ticks;       /* millions of SQLite VM steps run so far ... */
    int64_t step_budget;      /* ... and how many it may run (from the file's size) */
    bool over_budget;         /* the progress handler interrupted a statement for it */
};

int qdb_open(const char *path, struct qdb **out, char **err_detail);
void qdb_close(struct qdb *q);

/* The run's state and completeness (read at qdb_open; the state of a trace with no run row is
 * KILLED, with incomplete saying so). */
const struct qdb_run *qdb_run(const struct qdb *q);
/* A time on the trace's clock (CLOCK_BOOTTIME ns: processes, output, accesses) as wall-clock
 * ns, from the run's anchor; 0 when the trace has none. */
int64_t qdb_wall_ns(const struct qdb *q, int64_t boot_ns);
/* "finished", "recording", "killed", "interrupted", "failed" (the JSON vocabulary). */
const char *qdb_run_state_name(enum qdb_run_state s);

/* Prepare `sql` on q's trace: true, or false with *st NULL and the error kept.  Once q has
 * failed, nothing more is prepared (false). */
bool qdb_prepare(struct qdb *q, const char *sql, sqlite3_stmt **st);
/* Bind ?idx: false (error kept) if it failed or q has failed.  A NULL st is q's earlier
 * failure: false. */
bool qdb_bind_int64(struct qdb *q, sqlite3_stmt *st, int idx, int64_t v);
bool qdb_bind_text(struct qdb *q, sqlite3_stmt *st, int idx, const char *s);
/* Step: true when st has a row; false when done, when st is NULL, or on an error (kept). */
bool qdb_row(struct qdb *q, sqlite3_stmt *st);
/* Keep SQLite error `rc` (with the handle's message) if none is kept yet. */
void qdb_fail(struct qdb *q, int rc);
/* Whether an error was met; its sentence ("the trace FILE is damaged: ...", or "cannot be
 * read: ..." for I/O errors that are not damage). */
bool qdb_failed(const struct qdb *q);
const char *qdb_error(const struct qdb *q);
/* Keep "the trace FILE is damaged: WHAT; record the build again" as q's error, if none is
 * kept yet (a value that no recording makes: a cycle, an impossible id). */
void qdb_damaged(struct qdb *q, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
/* The largest id `sql` gives (one row, one integer column: SELECT COALESCE(MAX(id), 0) ...),
 * checked: above q's id_limit (or below 0) is damage (0 returned).  Callers size arrays by
 * it. */
int64_t qdb_max_id(struct qdb *q, const char *sql);
/* Whether rc is an error that means the file's content is wrong (not memory or a lock). */
bool qdb_rc_is_damage(int rc);

/* The runs row as recorded (info, the exports): the build command, where and by what it
 * ran, its raw times.  Fields are NULL / 0 when the trace has no row; exit_status -1 when
 * unknown.  An error is kept.  qdb_run_info_clear frees it. */
struct qdb_run_info {
    char *argv;          /* NUL-separated (one NUL past argv_len) */
    size_t argv_len;
    char *cwd, *hostname, *version, *state;
    int64_t start_realtime_ns, start_ns, end_ns;
    int exit_status;
};
void qdb_load_run_info(struct qdb *q, struct qdb_run_info *r);
void qdb_run_info_clear(struct qdb_run_info *r);

/* What the trace holds, counted (tracedb_count); an error is kept. */
bool qdb_counts(struct qdb *q, struct tracedb_counts *c);
/* The ids of the processes the build left running and buildtrail killed at its end (exits by
 * SIGKILL after the build's command ended), in id order; empty before schema 7 (the caller
 * frees; a SQLite error is qdb_failed()'s). */
GArray *qdb_killed_at_end(struct qdb *q);

/* buildtrail's options for the run (schema 6), or NULL (older trace, none recorded). */
char *qdb_run_options(struct qdb *q);

/* The system trees the run watched with fanotify instead of serving them (trees.role
 * 'watched': `run --system` as root), in the trace's order; empty for other traces.  Their
 * failed lookups, stat()s and readlink()s are not in the trace.  On a read error it is empty
 * too and qdb_failed() says so. */
GPtrArray *qdb_watched_trees(struct qdb *q);

/* Load every process (for tree and log). */
void qdb_load_all(struct qdb *q);
const struct qdb_process *qdb_process(struct qdb *q, int64_t id);

/* The environment image `id` was started with: NUL-separated entries, NAME=VALUE, or NAME
 * alone when its value was redacted (g_bytes_unref it); NULL when the trace does not have it
 * (recorded before schema 5, or unreadable for that process). */
GBytes *qdb_process_env(struct qdb *q, int64_t id);
/* The build's output in order, one struct log_chunk (logorder.h) per chunk, its data newly
 * allocated (g_free each); stream 1 or 2 for one stream, 0 for both.  Never NULL; on an error
 * what was read before it (qdb_failed says so). */
GArray *qdb_output_chunks(struct qdb *q, int stream);
/* The value of NAME in the first recorded environment (in the order the build first started
 * an image with it) that gives it one, or NULL: none does (a redacted entry has no value), or
 * the trace has no environments (before schema 5).  g_free it. */
char *qdb_env_first_value(struct qdb *q, const char *name);

/* The id of a file path in the trace, 0 if the build never touched it. */
int64_t qdb_file_id(struct qdb *q, const char *path);

/* An absolute, lexically normalised path for a command-line argument (relative to the current
 * directory; "." and ".." resolved without following symlinks).  g_free() it. */
char *qdb_absolute_path(const char *arg);

/* The same relative to directory `base` (absolute) instead of the current one. */
char *qdb_absolute_path_in(const char *base, const char *arg);

/* `abs` (absolute) with every symlink on disk along it replaced by its target, as the kernel
 * would walk it now (".." after a link goes up from the link's target; at most 40 links);
 * from the first component that does not exist on, the rest as given.  *followed gets the
 * number of links followed.  g_free() it. */
char *qdb_resolve_links(const char *abs, int *followed);

/* The target a command line made the symlink `link` (absolute) point to, as an absolute path
 * (lexically normalised, relative targets from link's directory, or with -r/--relative from
 * the cwd): `ln -s TARGET... [LINK|DIR]` (clustered short options, -t DIR, -S SUFFIX,
 * --opt=VALUE, long options abbreviated as getopt_long takes them, "--"; one operand: a link of its
 * name in the cwd) or `cmake -E create_symlink TARGET LINK`; NULL when the command line (argv,
 * NUL-separated, argv_len bytes, as the trace has it; cwd absolute) made no such link.
 * g_free() it. */
char *qdb_link_target_from_argv(const char *argv, size_t argv_len, const char *cwd,
                                const char *link);

/* Every traced path whose last component is `name`, sorted, at most `max` (a GPtrArray of
 * strings; empty, with the error kept, on a read error). */
GPtrArray *qdb_files_named(struct qdb *q, const char *name, guint max);

/* The ids (column 0) a statement returns for one integer parameter ?1; g_array_unref it. */
GArray *qdb_ids(struct qdb *q, const char *sql, int64_t arg);

/* The basename of a process's program: exe's, else argv[0]'s. */
const char *qdb_process_program(const struct qdb_process *p);
