/* qdb — see qdb.h. */
#include "qdb.h"

#include "logorder.h"
#include "queries.h"
#include "stmt.h"
#include "tracedb.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *column_dup(sqlite3_stmt *st, int col)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    return t ? g_strdup((const char *)t) : NULL;
}

static void free_process(gpointer p)
{
    struct qdb_process *pr = p;
    g_free(pr->comm);
    g_free(pr->exe);
    g_free(pr->cwd);
    g_free(pr->argv);
    g_free(pr);
}

bool qdb_rc_is_damage(int rc)
{
    /* A statement on a trace also fails for its schema: no such table or column is a trace
     * missing part of what its version has; a value longer than any the recorder writes
     * (TRACEDB_VALUE_MAX) is one no build made. */
    return tracedb_rc_is_damage(rc) || (rc & 0xff) == SQLITE_ERROR ||
           (rc & 0xff) == SQLITE_SCHEMA || (rc & 0xff) == SQLITE_TOOBIG;
}

void qdb_damaged(struct qdb *q, const char *fmt, ...)
{
    if (q->error)
        return;
    va_list ap;
    va_start(ap, fmt);
    g_autofree char *what = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    q->error = SQLITE_CORRUPT;
    q->error_msg = g_strdup_printf("the trace %s is damaged: %s; record the build again", q->path,
                                   what);
}

void qdb_fail(struct qdb *q, int rc)
{
    if (q->error)
        return;
    if ((rc & 0xff) == SQLITE_INTERRUPT && q->over_budget) {
        qdb_damaged(q, "its queries ran past %d billion SQLite steps, more than a trace of its "
                       "size needs (crafted, or too large to answer)",
                    (int)(q->step_budget / 1000));
        return;
    }
    if ((rc & 0xff) == SQLITE_TOOBIG) {
        qdb_damaged(q, "a value in it is longer than any buildtrail records (%d MiB)",
                    TRACEDB_VALUE_MAX >> 20);
        return;
    }
    q->error = rc ? rc : SQLITE_ERROR;
    const char *msg = sqlite3_errmsg(q->db);
    if ((rc & 0xff) == SQLITE_NOMEM)
        q->error_msg = g_strdup_printf("the trace %s cannot be read: SQLite ran out of memory "
                                       "(it may use %d MiB); the trace may be damaged or "
                                       "crafted", q->path, QDB_HEAP_MAX >> 20);
    else if (qdb_rc_is_damage(q->error))
        q->error_msg = g_strdup_printf("the trace %s is damaged: %s; record the build again",
                                       q->path, msg);
    else
        q->error_msg = g_strdup_printf("the trace %s cannot be read: %s", q->path, msg);
}

bool qdb_failed(const struct qdb *q)
{
    return q->error != 0;
}

const char *qdb_error(const struct qdb *q)
{
    return q->error_msg;
}

bool qdb_prepare(struct qdb *q, const char *sql, sqlite3_stmt **st)
{
    *st = NULL;
    if (q->error)
        return false;
    int rc = sqlite3_prepare_v2(q->db, sql, -1, st, NULL);
    if (rc != SQLITE_OK) {
        sqlite3_finalize(*st);
        *st = NULL;
        qdb_fail(q, rc);
        return false;
    }
    return true;
}

bool qdb_bind_int64(struct qdb *q, sqlite3_stmt *st, int idx, int64_t v)
{
    if (!st || q->error)
        return false;
    int rc = sqlite3_bind_int64(st, idx, v);
    if (rc != SQLITE_OK)
        qdb_fail(q, rc);
    return rc == SQLITE_OK;
}

bool qdb_bind_text(struct qdb *q, sqlite3_stmt *st, int idx, const char *s)
{
    if (!st || q->error)
        return false;
    int rc = sqlite3_bind_text(st, idx, s, -1, SQLITE_TRANSIENT);
    if (rc != SQLITE_OK)
        qdb_fail(q, rc);
    return rc == SQLITE_OK;
}

bool qdb_row(struct qdb *q, sqlite3_stmt *st)
{
    if (!st || q->error)
        return false;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        return true;
    if (rc != SQLITE_DONE)
        qdb_fail(q, rc);
    return false;
}

const char *qdb_run_state_name(enum qdb_run_state s)
{
    switch (s) {
    case QDB_RUN_FINISHED: return "finished";
    case QDB_RUN_RECORDING: return "recording";
    case QDB_RUN_KILLED: return "killed";
    case QDB_RUN_INTERRUPTED: return "interrupted";
    case QDB_RUN_FAILED: return "failed";
    }
    return "unknown";
}

const struct qdb_run *qdb_run(const struct qdb *q)
{
    return &q->run;
}

static bool root_recorded(struct qdb *q, int64_t id);

/* The run's state and what its completeness depends on; process_tree came with schema 2,
 * failure with schema 4 (NULL in their place before). */
TRACEDB_STATEMENT(sql_run_state, 4, TRACEDB_SCHEMA_VERSION,
                  "SELECT state, process_tree, start_realtime_ns, start_ns, end_ns, exit_status, "
                  "failure, cwd, root_process_id, notes FROM runs ORDER BY id LIMIT 1");
TRACEDB_STATEMENT(sql_run_state_v2, 2, 3,
                  "SELECT state, process_tree, start_realtime_ns, start_ns, end_ns, exit_status, "
                  "NULL, cwd, root_process_id, notes FROM runs ORDER BY id LIMIT 1");
TRACEDB_STATEMENT(sql_run_state_v1, 1, 1,
                  "SELECT state, NULL, start_realtime_ns, start_ns, end_ns, exit_status, NULL, "
                  "cwd, root_process_id, notes FROM runs ORDER BY id LIMIT 1");
enum {
    RUN_STATE,
    RUN_PROCESS_TREE,
    RUN_START_REALTIME,
    RUN_START,
    RUN_END,
    RUN_EXIT_STATUS,
    RUN_FAILURE,
    RUN_CWD,
    RUN_ROOT,
    RUN_NOTES
};

/* Fill q->run from the runs row; `recording`: a recorder holds the trace now. */
static void load_run(struct qdb *q, bool recording)
{
    struct qdb_run *r = &q->run;
    r->exit_status = -1;
    sqlite3_stmt *st = NULL;
    g_autofree char *state = NULL, *unseen = NULL;
    int64_t start_ns = 0, end_ns = 0;
    bool have_row = false;
    const char *sql = q->schema_version >= 4   ? sql_run_state
                      : q->schema_version >= 2 ? sql_run_state_v2
                                               : sql_run_state_v1;
    if (qdb_prepare(q, sql, &st) &&
        qdb_row(q, st)) {
        have_row = true;
        state = column_dup(st, RUN_STATE);
        r->process_tree = column_dup(st, RUN_PROCESS_TREE);
        r->start_realtime_ns = sqlite3_column_int64(st, RUN_START_REALTIME);
        start_ns = sqlite3_column_int64(st, RUN_START);
        end_ns = sqlite3_column_int64(st, RUN_END);
        if (sqlite3_column_type(st, RUN_EXIT_STATUS) != SQLITE_NULL)
            r->exit_status = sqlite3_column_int(st, RUN_EXIT_STATUS);
        r->failure = column_dup(st, RUN_FAILURE);
        r->cwd = column_dup(st, RUN_CWD);
        r->root_id = sqlite3_column_int64(st, RUN_ROOT);
        unseen = tracedb_notes_unseen((const char *)sqlite3_column_text(st, RUN_NOTES));
    }
    sqlite3_finalize(st);
    if (q->error)
        return;
    /* What the run row says is printed in one line on stderr: a control character (a line
     * break) in it is not something the recorder writes. */
    const char *said[] = {r->process_tree, r->failure};
    for (size_t i = 0; i < G_N_ELEMENTS(said) && !q->error; i++)
        for (const char *c = said[i]; c && *c && !q->error; c++)
            if ((unsigned char)*c < 0x20 || *c == 0x7f)
                qdb_damaged(q, "its run row holds a control character in a sentence");
    if (q->error)
        return;
    if (!have_row || !state || !strcmp(state, TRACEDB_RUN_RUNNING))
        r->state = recording ? QDB_RUN_RECORDING : QDB_RUN_KILLED;
    else if (!strcmp(state, TRACEDB_RUN_INTERRUPTED))
        r->state = QDB_RUN_INTERRUPTED;
    else if (!strcmp(state, TRACEDB_RUN_FAILED))
        r->state = QDB_RUN_FAILED;
    else
        r->state = QDB_RUN_FINISHED;
    if (start_ns < 0 || start_ns > QDB_TIME_MAX || end_ns < 0 || end_ns > QDB_TIME_MAX) {
        qdb_damaged(q, "its run row holds a time no clock gives");
        return;
    }
    r->start_ns = start_ns;
    if (end_ns && r->state != QDB_RUN_RECORDING && r->state != QDB_RUN_KILLED)
        r->end_realtime_ns = r->start_realtime_ns + (end_ns - start_ns);
    bool tree_ok = tracedb_tree_complete(r->process_tree);
    switch (r->state) {
    case QDB_RUN_RECORDING:
        r->incomplete = g_strdup("the run is still being recorded");
        break;
    case QDB_RUN_KILLED:
        r->incomplete = g_strdup(have_row ? "the run was killed before it finished"
                                          : "the run has no record (killed as it started)");
        break;
    case QDB_RUN_INTERRUPTED:
        r->incomplete = g_strdup("the run was interrupted");
        break;
    case QDB_RUN_FAILED:
        r->incomplete = g_strdup_printf("the run failed%s%s", r->failure ? ": " : "",
                                        r->failure ? r->failure : "");
        break;
    case QDB_RUN_FINISHED:
        if (!tree_ok)
            r->incomplete =
                !r->process_tree ? g_strdup("the process tree is not recorded")
                : g_str_has_prefix(r->process_tree, "incomplete: ")
                    /* what was lost and why, said by run.c or proc.c */
                    ? g_strdup(r->process_tree + strlen("incomplete: "))
                : g_str_has_prefix(r->process_tree, "partial")
                    ? g_strdup_printf("the process tree is %s", r->process_tree)
                    : g_strdup("the process tree is not said to be complete (its note is not "
                               "one buildtrail writes)");
        else if (r->root_id <= 0 && qdb_max_id(q, tracedb_sql(TQ_MAX_PROCESS_ID)) == 0 &&
                 !q->error)
            /* No process at all: the command was not found or not executable (run said
             * "cannot run ..."), so nothing of the build is there to answer from. */
            r->incomplete = r->exit_status >= 0
                                ? g_strdup_printf("the build's command did not start (exit %d): "
                                                  "the trace records no process",
                                                  r->exit_status)
                                : g_strdup("the build's command did not start: the trace "
                                           "records no process");
        else if (r->root_id <= 0 || !root_recorded(q, r->root_id))
            /* "complete" says every process is there: without the build's command, none is
             * (the rows are gone). */
            r->incomplete = g_strdup(r->root_id <= 0 ? "the trace records no root process"
                                                     : "the trace lacks its root process");
        else if (unseen)
            r->incomplete = g_strdup_printf("accesses were not seen: %s", unseen);
        break;
    }
    r->complete = !r->incomplete;
}

/* VM steps a trace may run, in millions: at least QDB_STEPS_FLOOR, and QDB_STEPS_PER_KIB per
 * KiB of the file (see set_bounds). */
#define QDB_STEPS_FLOOR 2000
#define QDB_STEPS_PER_KIB 1

/* SQLite's progress handler: one call per QDB_STEP_UNIT VM steps; non-zero interrupts. */
#define QDB_STEP_UNIT 1000000
static int count_steps(void *data)
{
    struct qdb *q = data;
    if (++q->step_ticks <= q->step_budget)
        return 0;
    q->over_budget = true;
    return 1;
}

/* How many times the bytes a trace has on disk its ids may reach: a file system that
 * compresses (btrfs, ZFS) stores a row in fewer bytes than SQLite wrote, never in an eighth
 * of the bytes its id costs. */
#define QDB_IDS_PER_STORED_BYTE 8

/* The bytes the trace at `path` and its write-ahead log (a trace being recorded) have on
 * disk (st_blocks), or -1 if the file system does not say (it reports no blocks). */
static int64_t stored_bytes(const char *path)
{
    struct stat st;
    if (stat(path, &st) < 0 || st.st_blocks <= 0)
        return -1;
    int64_t n = (int64_t)st.st_blocks * 512;
    g_autofree char *wal = g_strconcat(path, "-wal", NULL);
    if (stat(wal, &st) == 0 && S_ISREG(st.st_mode))
        n += (int64_t)st.st_blocks * 512;
    return n;
}

/* What no query of this trace may go past, from its size: ids (each id the recorder gives
 * out costs a row of more than a byte), VM steps and SQLite's memory.  The size is what the
 * file holds: a sparse file (`truncate -s 2T`) has pages SQLite counts and no rows, and the
 * ids it allowed sized arrays past any memory (export spdx aborted in g_malloc). */
TRACEDB_STATEMENT(sql_page_count, 1, TRACEDB_SCHEMA_VERSION, "PRAGMA page_count");
TRACEDB_STATEMENT(sql_page_size, 1, TRACEDB_SCHEMA_VERSION, "PRAGMA page_size");
enum { PRAGMA_VALUE }; /* (both) */

static void set_bounds(struct qdb *q)
{
    int64_t pages = 0, page_size = 0;
    sqlite3_stmt *st = NULL;
    if (qdb_prepare(q, sql_page_count, &st) && qdb_row(q, st))
        pages = sqlite3_column_int64(st, PRAGMA_VALUE);
    sqlite3_finalize(st);
    if (qdb_prepare(q, sql_page_size, &st) && qdb_row(q, st))
        page_size = sqlite3_column_int64(st, PRAGMA_VALUE);
    sqlite3_finalize(st);
    int64_t size = pages * page_size, stored = stored_bytes(q->path);
    if (stored >= 0 && stored <= size / QDB_IDS_PER_STORED_BYTE)
        size = stored * QDB_IDS_PER_STORED_BYTE;
    q->id_limit = MAX(size, 1 << 20);
    /* The heaviest command on query-bench.sh's 100 000-process trace (92 MiB), packages, runs
     * 36 million steps: the budget (93 billion there) leaves room for 2 500 times that.  What
     * goes past it (a hostile shape SQLite loops over) stops, as damage. */
    q->step_budget = MAX(QDB_STEPS_FLOOR, (q->id_limit >> 10) * QDB_STEPS_PER_KIB);
    sqlite3_progress_handler(q->db, QDB_STEP_UNIT, count_steps, q);
    sqlite3_hard_heap_limit64(QDB_HEAP_MAX);
}

int64_t qdb_max_id(struct qdb *q, const char *sql)
{
    sqlite3_stmt *st = NULL;
    int64_t n = 0;
    if (qdb_prepare(q, sql, &st) && qdb_row(q, st))
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (n < 0 || n > q->id_limit) {
        qdb_damaged(q, "it has an id (%" G_GINT64_FORMAT ") that no trace of its size has", n);
        return 0;
    }
    return n;
}

/* Memory-mapped reads, a large cache, one read transaction (run with sqlite3_exec). */
TRACEDB_STATEMENT(sql_read_setup, 1, TRACEDB_SCHEMA_VERSION,
                  "PRAGMA mmap_size=4294967296; PRAGMA cache_size=-65536; BEGIN");
TRACEDB_STATEMENT(sql_schema_version, 1, TRACEDB_SCHEMA_VERSION,
                  "SELECT CAST(value AS INTEGER) FROM meta WHERE key='schema_version'");
enum { SCHEMA_VERSION };
/* The first of files.path, accesses.file_id and the runs row that has a NULL where its column
 * is NOT NULL (a crafted file: SQLite checks only what it writes), or NULL.  (SQLite takes
 * "x IS NULL" to be false for a NOT NULL column: the first entry of the column's index, where
 * NULLs sort first, is looked at instead.) */
TRACEDB_STATEMENT(sql_null_where_not_null, 1, TRACEDB_SCHEMA_VERSION,
                  "SELECT CASE WHEN (SELECT typeof(path) FROM files ORDER BY path LIMIT 1) = "
                  "'null' THEN 'files.path' WHEN (SELECT typeof(file_id) FROM accesses ORDER BY "
                  "file_id LIMIT 1) = 'null' THEN 'accesses.file_id' WHEN EXISTS (SELECT 1 FROM "
                  "runs WHERE typeof(argv) = 'null' OR typeof(cwd) = 'null' OR typeof(state) = "
                  "'null' OR typeof(version) = 'null') THEN 'runs' END");
enum { NULL_WHERE };

int qdb_open(const char *path, struct qdb **out, char **err_detail)
{
    /* Before SQLite opens the file: closing any descriptor of it would drop SQLite's locks. */
    bool recording = tracedb_is_recording(path) == 1;
    sqlite3 *db = NULL;
    int r = tracedb_open_readonly(path, &db, err_detail);
    if (r < 0)
        return r;
    struct qdb *q = g_new0(struct qdb, 1);
    q->db = db;
    q->path = g_strdup(path);
    q->processes = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, free_process);
    /* Queries walk large traces with many small lookups: read through a memory map (no copy
     * per page), keep a large page cache, and hold one read transaction for the whole
     * command (one consistent snapshot, no lock and unlock around every statement). */
    int rc = sqlite3_exec(db, sql_read_setup, NULL, NULL, NULL);
    if (rc != SQLITE_OK)
        qdb_fail(q, rc);
    sqlite3_stmt *st = NULL;
    if (qdb_prepare(q, sql_schema_version, &st) &&
        qdb_row(q, st))
        q->schema_version = sqlite3_column_int(st, SCHEMA_VERSION);
    sqlite3_finalize(st);
    /* (tracedb_open_readonly checked every table of the schema version.) */
    set_bounds(q);
    /* NULL where the schema says NOT NULL: the code reading those columns may count on it. */
    if (qdb_prepare(q, sql_null_where_not_null, &st) && qdb_row(q, st) &&
        sqlite3_column_type(st, NULL_WHERE) != SQLITE_NULL)
        qdb_damaged(q, "%s holds NULL where it may not",
                    (const char *)sqlite3_column_text(st, NULL_WHERE));
    sqlite3_finalize(st);
    load_run(q, recording);
    *out = q;
    return 0;
}

void qdb_close(struct qdb *q)
{
    if (!q)
        return;
    g_hash_table_destroy(q->processes);
    if (q->ids_stmts)
        g_hash_table_destroy(q->ids_stmts);
    sqlite3_finalize(q->st_process);
    sqlite3_finalize(q->st_file_id);
    sqlite3_finalize(q->st_env);
    sqlite3_close(q->db);
    g_free(q->path);
    g_free(q->error_msg);
    g_free(q->run.failure);
    g_free(q->run.process_tree);
    g_free(q->run.cwd);
    g_free(q->run.incomplete);
    g_free(q);
}


/* Every process image (sql_processes*) or image ?1 (sql_process*), with how it ended.  Exits
 * exist from schema 2 on, killed_at_end from 7 on; older traces get NULLs and 0 in their
 * place. */
#define PROCESS_COLUMNS                                                                            \
    "SELECT p.id, p.parent_id, p.prev_image_id, p.pid, p.exec_seq, p.orphan, p.start_ns, "       \
    "p.comm, p.exe, p.cwd, p.argv, "
#define WITH_EXITS " FROM processes p LEFT JOIN exits e ON e.process_id = p.id"
TRACEDB_STATEMENT(sql_processes, 7, TRACEDB_SCHEMA_VERSION,
                  PROCESS_COLUMNS "e.end_ns, e.exit_code, e.exit_signal, e.killed_at_end"
                  WITH_EXITS);
TRACEDB_STATEMENT(sql_process, 7, TRACEDB_SCHEMA_VERSION,
                  PROCESS_COLUMNS "e.end_ns, e.exit_code, e.exit_signal, e.killed_at_end"
                  WITH_EXITS " WHERE p.id=?");
TRACEDB_STATEMENT(sql_processes_v2, 2, 6,
                  PROCESS_COLUMNS "e.end_ns, e.exit_code, e.exit_signal, 0" WITH_EXITS);
TRACEDB_STATEMENT(sql_process_v2, 2, 6,
                  PROCESS_COLUMNS "e.end_ns, e.exit_code, e.exit_signal, 0" WITH_EXITS
                  " WHERE p.id=?");
TRACEDB_STATEMENT(sql_processes_v1, 1, 1, PROCESS_COLUMNS "NULL, NULL, NULL, 0 FROM processes p");
TRACEDB_STATEMENT(sql_process_v1, 1, 1,
                  PROCESS_COLUMNS "NULL, NULL, NULL, 0 FROM processes p WHERE p.id=?");
enum {
    PROC_ID,
    PROC_PARENT,
    PROC_PREV_IMAGE,
    PROC_PID,
    PROC_EXEC_SEQ,
    PROC_ORPHAN,
    PROC_START,
    PROC_COMM,
    PROC_EXE,
    PROC_CWD,
    PROC_ARGV,
    PROC_END,
    PROC_EXIT_CODE,
    PROC_EXIT_SIGNAL,
    PROC_KILLED_AT_END
};

static const char *process_query(struct qdb *q, bool one)
{
    return q->schema_version >= 7   ? (one ? sql_process : sql_processes)
           : q->schema_version >= 2 ? (one ? sql_process_v2 : sql_processes_v2)
                                    : (one ? sql_process_v1 : sql_processes_v1);
}

/* Whether column `col` of st holds an integer, or NULL where `null_ok`. */
static bool is_int(sqlite3_stmt *st, int col, bool null_ok)
{
    int t = sqlite3_column_type(st, col);
    return t == SQLITE_INTEGER || (null_ok && t == SQLITE_NULL);
}

static struct qdb_process *row_to_process(struct qdb *q, sqlite3_stmt *st)
{
    struct qdb_process *p = g_new0(struct qdb_process, 1);
    p->id = sqlite3_column_int64(st, PROC_ID);
    p->parent_id = sqlite3_column_int64(st, PROC_PARENT);
    p->prev_image_id = sqlite3_column_int64(st, PROC_PREV_IMAGE);
    /* The recorder numbers an image after its parent and the image it exec'd from: a link to
     * a later id (itself included) is a cycle or a crafted row, and a walk up it might never
     * end.  Such a row is damage, and its links are cleared. */
    if (!is_int(st, PROC_ID, false) || p->id < 1 || p->id > q->id_limit) {
        const unsigned char *id = sqlite3_column_text(st, PROC_ID);
        qdb_damaged(q, "a process has the id %s", id ? (const char *)id : "NULL");
        p->parent_id = p->prev_image_id = 0;
    } else {
        bool bad_parent = !is_int(st, PROC_PARENT, true) || p->parent_id < 0 ||
                          p->parent_id >= p->id;
        bool bad_prev = !is_int(st, PROC_PREV_IMAGE, true) || p->prev_image_id < 0 ||
                        p->prev_image_id >= p->id;
        if (bad_parent || bad_prev) {
            qdb_damaged(q, "process %" G_GINT64_FORMAT " names %s %s, not an earlier process",
                        p->id, bad_parent ? "as its parent" : "as the image it replaced",
                        (const char *)sqlite3_column_text(st, bad_parent ? PROC_PARENT
                                                                         : PROC_PREV_IMAGE));
            p->parent_id = p->prev_image_id = 0;
        }
    }
    p->pid = sqlite3_column_int(st, PROC_PID);
    p->exec_seq = sqlite3_column_int(st, PROC_EXEC_SEQ);
    p->orphan = sqlite3_column_int(st, PROC_ORPHAN) != 0;
    p->start_ns = sqlite3_column_int64(st, PROC_START);
    p->comm = column_dup(st, PROC_COMM);
    p->exe = column_dup(st, PROC_EXE);
    p->cwd = column_dup(st, PROC_CWD);
    int n = sqlite3_column_bytes(st, PROC_ARGV);
    const void *blob = sqlite3_column_blob(st, PROC_ARGV);
    if (blob) {
        /* with a NUL past the end: a crafted or cut-off command line whose last word has no
         * NUL of its own is still a string */
        p->argv = g_malloc0((gsize)n + 1);
        memcpy(p->argv, blob, (size_t)n);
        p->argv_len = (size_t)n;
    }
    p->exit_code = -1;
    if (sqlite3_column_type(st, PROC_END) != SQLITE_NULL) {
        p->exited = true;
        p->end_ns = sqlite3_column_int64(st, PROC_END);
        if (sqlite3_column_type(st, PROC_EXIT_CODE) != SQLITE_NULL)
            p->exit_code = sqlite3_column_int(st, PROC_EXIT_CODE);
        p->exit_signal = sqlite3_column_int(st, PROC_EXIT_SIGNAL);
        p->killed_at_end = sqlite3_column_int(st, PROC_KILLED_AT_END) != 0;
    }
    if (p->start_ns < 0 || p->start_ns > QDB_TIME_MAX ||
        (p->exited && (p->end_ns < 0 || p->end_ns > QDB_TIME_MAX)))
        qdb_damaged(q, "process %" G_GINT64_FORMAT " holds a time no clock gives", p->id);
    return p;
}

GArray *qdb_killed_at_end(struct qdb *q)
{
    GArray *ids = g_array_new(FALSE, FALSE, sizeof(int64_t));
    sqlite3_stmt *st = NULL;
    if (q->schema_version >= 7 && qdb_prepare(q, tracedb_sql(TQ_KILLED_AT_END), &st))
        while (qdb_row(q, st)) {
            int64_t id = sqlite3_column_int64(st, TQ_KILLED_AT_END_ID);
            g_array_append_val(ids, id);
        }
    sqlite3_finalize(st);
    return ids;
}

/* Whether image `id` is in the trace (its row read and checked, not kept: nothing is read
 * from the trace once an error is kept, not even from a cache filled before). */
static bool root_recorded(struct qdb *q, int64_t id)
{
    sqlite3_stmt *st = NULL;
    bool found = false;
    if (qdb_prepare(q, process_query(q, true), &st) && qdb_bind_int64(q, st, 1, id) &&
        qdb_row(q, st)) {
        free_process(row_to_process(q, st));
        found = true;
    }
    sqlite3_finalize(st);
    return found;
}

void qdb_load_all(struct qdb *q)
{
    if (q->all_loaded)
        return;
    sqlite3_stmt *st = NULL;
    qdb_prepare(q, process_query(q, false), &st);
    while (qdb_row(q, st)) {
        struct qdb_process *p = row_to_process(q, st);
        if (g_hash_table_contains(q->processes, &p->id))
            free_process(p);
        else
            g_hash_table_insert(q->processes, &p->id, p);
    }
    sqlite3_finalize(st);
    q->all_loaded = true;
}

const struct qdb_process *qdb_process(struct qdb *q, int64_t id)
{
    struct qdb_process *p = g_hash_table_lookup(q->processes, &id);
    if (p || q->all_loaded)
        return p;
    if (!q->st_process) {
        if (!qdb_prepare(q, process_query(q, true), &q->st_process))
            return NULL;
    }
    sqlite3_stmt *st = q->st_process;
    if (qdb_bind_int64(q, st, 1, id) && qdb_row(q, st)) {
        p = row_to_process(q, st);
        g_hash_table_insert(q->processes, &p->id, p);
    }
    sqlite3_reset(st);
    return p;
}

/* The environment of image ?1 (schema 5). */
TRACEDB_STATEMENT(sql_process_env, 5, TRACEDB_SCHEMA_VERSION,
                  "SELECT e.env FROM processes p JOIN environments e ON e.id = p.env_id "
                  "WHERE p.id = ?1");
enum { PROCESS_ENV };

GBytes *qdb_process_env(struct qdb *q, int64_t id)
{
    if (q->schema_version < 5)
        return NULL;
    GBytes *env = NULL;
    if (!q->st_env && !qdb_prepare(q, sql_process_env, &q->st_env))
        return NULL;
    if (qdb_bind_int64(q, q->st_env, 1, id) && qdb_row(q, q->st_env))
        env = g_bytes_new(sqlite3_column_blob(q->st_env, PROCESS_ENV),
                          (gsize)sqlite3_column_bytes(q->st_env, PROCESS_ENV));
    sqlite3_reset(q->st_env);
    return env;
}

TRACEDB_STATEMENT(sql_run_info, 1, TRACEDB_SCHEMA_VERSION,
                  "SELECT argv, cwd, hostname, version, state, start_realtime_ns, start_ns, "
                  "end_ns, exit_status FROM runs ORDER BY id LIMIT 1");
enum {
    INFO_ARGV,
    INFO_CWD,
    INFO_HOSTNAME,
    INFO_VERSION,
    INFO_STATE,
    INFO_START_REALTIME,
    INFO_START,
    INFO_END,
    INFO_EXIT_STATUS
};

void qdb_load_run_info(struct qdb *q, struct qdb_run_info *r)
{
    *r = (struct qdb_run_info){.exit_status = -1};
    sqlite3_stmt *st = NULL;
    if (qdb_prepare(q, sql_run_info, &st) && qdb_row(q, st)) {
        r->argv_len = (size_t)sqlite3_column_bytes(st, INFO_ARGV);
        r->argv = g_malloc0(r->argv_len + 1);
        if (r->argv_len)
            memcpy(r->argv, sqlite3_column_blob(st, INFO_ARGV), r->argv_len);
        r->cwd = column_dup(st, INFO_CWD);
        r->hostname = column_dup(st, INFO_HOSTNAME);
        r->version = column_dup(st, INFO_VERSION);
        r->state = column_dup(st, INFO_STATE);
        r->start_realtime_ns = sqlite3_column_int64(st, INFO_START_REALTIME);
        r->start_ns = sqlite3_column_int64(st, INFO_START);
        r->end_ns = sqlite3_column_int64(st, INFO_END);
        if (sqlite3_column_type(st, INFO_EXIT_STATUS) != SQLITE_NULL)
            r->exit_status = sqlite3_column_int(st, INFO_EXIT_STATUS);
    }
    sqlite3_finalize(st);
}

void qdb_run_info_clear(struct qdb_run_info *r)
{
    g_free(r->argv);
    g_free(r->cwd);
    g_free(r->hostname);
    g_free(r->version);
    g_free(r->state);
    *r = (struct qdb_run_info){.exit_status = -1};
}

bool qdb_counts(struct qdb *q, struct tracedb_counts *c)
{
    *c = (struct tracedb_counts){0};
    if (q->error)
        return false;
    int rc = tracedb_count(q->db, q->schema_version, c, NULL);
    if (rc != SQLITE_OK)
        qdb_fail(q, rc);
    return rc == SQLITE_OK;
}

TRACEDB_STATEMENT(sql_run_options, 6, TRACEDB_SCHEMA_VERSION,
                  "SELECT options FROM runs ORDER BY id LIMIT 1");
enum { RUN_OPTIONS };

char *qdb_run_options(struct qdb *q)
{
    if (q->schema_version < 6)
        return NULL;
    char *options = NULL;
    sqlite3_stmt *st = NULL;
    if (qdb_prepare(q, sql_run_options, &st) && qdb_row(q, st) &&
        sqlite3_column_type(st, RUN_OPTIONS) != SQLITE_NULL)
        options = g_strdup((const char *)sqlite3_column_text(st, RUN_OPTIONS));
    sqlite3_finalize(st);
    return options;
}

GPtrArray *qdb_watched_trees(struct qdb *q)
{
    GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
    sqlite3_stmt *st = NULL;
    if (qdb_prepare(q, tracedb_sql(TQ_TREES), &st))
        while (qdb_row(q, st)) {
            const char *path = (const char *)sqlite3_column_text(st, TQ_TREES_PATH);
            const char *role = (const char *)sqlite3_column_text(st, TQ_TREES_ROLE);
            if (path && role && !strcmp(role, "watched"))
                g_ptr_array_add(out, g_strdup(path));
        }
    sqlite3_finalize(st);
    return out;
}

/* Every recorded environment, in the order first seen (schema 5; ?1 unused). */
TRACEDB_STATEMENT(sql_environments, 5, TRACEDB_SCHEMA_VERSION,
                  "SELECT env FROM environments WHERE ?1 = ?1 ORDER BY id");
enum { ENV_ENTRIES };

char *qdb_env_first_value(struct qdb *q, const char *name)
{
    if (q->schema_version < 5)
        return NULL;
    size_t nl = strlen(name);
    char *value = NULL;
    sqlite3_stmt *st = NULL;
    if (qdb_prepare(q, sql_environments, &st) && qdb_bind_int64(q, st, 1, 0)) {
        while (!value && qdb_row(q, st)) {
            const char *e = sqlite3_column_blob(st, ENV_ENTRIES);
            size_t len = (size_t)sqlite3_column_bytes(st, ENV_ENTRIES), off = 0;
            while (e && off < len && !value) {
                const char *entry = e + off, *nul = memchr(entry, '\0', len - off);
                size_t el = nul ? (size_t)(nul - entry) : len - off;
                if (el > nl && entry[nl] == '=' && !memcmp(entry, name, nl))
                    value = g_strndup(entry + nl + 1, el - nl - 1);
                off += el + 1;
            }
        }
    }
    sqlite3_finalize(st);
    return value;
}

int64_t qdb_wall_ns(const struct qdb *q, int64_t boot_ns)
{
    const struct qdb_run *r = &q->run;
    if (!r->start_realtime_ns)
        return 0;
    return r->start_realtime_ns + (boot_ns - r->start_ns);
}

TRACEDB_STATEMENT(sql_file_id_by_path, 1, TRACEDB_SCHEMA_VERSION,
                  "SELECT id FROM files WHERE path=?");
enum { FILE_ID };

int64_t qdb_file_id(struct qdb *q, const char *path)
{
    int64_t id = 0;
    if (!q->st_file_id && !qdb_prepare(q, sql_file_id_by_path, &q->st_file_id))
        return 0;
    if (qdb_bind_text(q, q->st_file_id, 1, path) && qdb_row(q, q->st_file_id))
        id = sqlite3_column_int64(q->st_file_id, FILE_ID);
    sqlite3_reset(q->st_file_id);
    return id;
}

/* The paths ending in ?1 ("/NAME") that an access found, sorted, at most ?2. */
TRACEDB_STATEMENT(sql_files_named, 1, TRACEDB_SCHEMA_VERSION,
                  "SELECT path FROM files WHERE length(path) > length(?1) "
                  "AND substr(path, -length(?1)) = ?1 AND EXISTS (SELECT 1 FROM accesses a "
                  "WHERE a.file_id = files.id AND a.result = 0) ORDER BY path LIMIT ?2");
enum { NAMED_PATH };

GPtrArray *qdb_files_named(struct qdb *q, const char *name, guint max)
{
    GPtrArray *paths = g_ptr_array_new_with_free_func(g_free);
    sqlite3_stmt *st = NULL;
    g_autofree char *suffix = g_strconcat("/", name, NULL);
    if (!qdb_prepare(q, sql_files_named, &st))
        return paths;
    if (qdb_bind_text(q, st, 1, suffix) && qdb_bind_int64(q, st, 2, max))
        while (qdb_row(q, st)) {
            const char *p = (const char *)sqlite3_column_text(st, NAMED_PATH);
            if (p)
                g_ptr_array_add(paths, g_strdup(p));
        }
    sqlite3_finalize(st);
    return paths;
}

static void finalize_stmt(gpointer st)
{
    sqlite3_finalize(st);
}

GArray *qdb_ids(struct qdb *q, const char *sql, int64_t arg)
{
    GArray *ids = g_array_new(FALSE, FALSE, sizeof(int64_t));
    /* Commands ask it once per process or version: each SQL text is prepared once. */
    if (!q->ids_stmts)
        q->ids_stmts = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
                                             finalize_stmt);
    sqlite3_stmt *st = g_hash_table_lookup(q->ids_stmts, sql);
    if (!st) {
        if (!qdb_prepare(q, sql, &st))
            return ids;
        g_hash_table_insert(q->ids_stmts, g_strdup(sql), st);
    }
    if (qdb_bind_int64(q, st, 1, arg)) {
        while (qdb_row(q, st)) {
            int64_t id = sqlite3_column_int64(st, TQ_KILLED_AT_END_ID);
            g_array_append_val(ids, id);
        }
    }
    sqlite3_reset(st);
    return ids;
}

const char *qdb_process_program(const struct qdb_process *p)
{
    const char *path = p->exe;
    if (!path || !*path)
        path = p->argv;
    if (!path || !*path)
        return p->comm ? p->comm : "";
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The build's output (?1: one stream, 0: both), in order. */
TRACEDB_STATEMENT(sql_output_chunks, 1, TRACEDB_SCHEMA_VERSION,
                  "SELECT seq, COALESCE(process_id, 0), stream, time_ns, data FROM output "
                  "WHERE (?1 = 0 OR stream = ?1) ORDER BY seq");
enum { CHUNK_SEQ, CHUNK_PROCESS, CHUNK_STREAM, CHUNK_TIME, CHUNK_DATA };

GArray *qdb_output_chunks(struct qdb *q, int stream)
{
    GArray *chunks = g_array_new(FALSE, FALSE, sizeof(struct log_chunk));
    sqlite3_stmt *st = NULL;
    if (!qdb_prepare(q, sql_output_chunks, &st))
        return chunks;
    qdb_bind_int64(q, st, 1, stream);
    while (qdb_row(q, st)) {
        struct log_chunk ch = {
            .seq = sqlite3_column_int64(st, CHUNK_SEQ),
            .process_id = sqlite3_column_int64(st, CHUNK_PROCESS),
            .stream = sqlite3_column_int(st, CHUNK_STREAM),
            .time_ns = sqlite3_column_int64(st, CHUNK_TIME),
        };
        ch.len = (size_t)sqlite3_column_bytes(st, CHUNK_DATA);
        ch.data = g_memdup2(sqlite3_column_blob(st, CHUNK_DATA), ch.len);
        g_array_append_val(chunks, ch);
    }
    sqlite3_finalize(st);
    return chunks;
}
