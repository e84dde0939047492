/* tracedb — the trace database schema, shared by the recorder and the queries.
 *
 * Contract
 *   - One schema version, TRACEDB_SCHEMA_VERSION, stored in meta('schema_version').  Every
 *     change to the schema appends a migration to schema.c; a database whose version is newer
 *     than this build knows is refused (-EPROTO), never guessed at.
 *   - tracedb_create() makes a fresh database at a path (replacing an earlier buildtrail trace
 *     there, refusing anything else) and returns it open read-write in WAL mode (queries can
 *     read while the build runs); tracedb_seal() ends WAL mode when the recording is over.
 *   - Every database is opened through the longpath VFS: any path length works.
 *   - tracedb_open_readonly() opens an existing trace for queries; it never writes.
 *   - Functions return 0 or a negative errno and never log; `*err_detail` (when given) receives
 *     a newly allocated sentence for the caller to report, to be g_free()d.
 *   - A sqlite3 handle returned here belongs to the caller: close it with sqlite3_close().
 *   - No locking here: a handle is used by one thread at a time (the recorder's writer thread,
 *     or the query CLI).
 *
 * Times in the trace are nanoseconds of CLOCK_BOOTTIME (the clock /proc's process start times
 * use), except runs.start_realtime_ns which anchors them to wall-clock time.
 */
#pragma once

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define TRACEDB_SCHEMA_VERSION 9

/* What a process did to a file: accesses.kind.  Stored as integers (small rows); the table
 * access_kinds in every database maps them to these names.  Append only: never renumber. */
/* How the build was refused a file: denials.how and denials.reason.  Append only. */
enum tracedb_denial_how { TRACEDB_DENIED_LOOKUP = 1, TRACEDB_DENIED_LISTING = 2 };
enum tracedb_denial_reason { TRACEDB_DENIED_UNDECLARED = 1, TRACEDB_DENIED_PACKAGE = 2 };

enum tracedb_access_kind {
    TRACEDB_READ = 1,       /* opened for reading (bytes = bytes read through the mount) */
    TRACEDB_WRITE = 2,      /* opened for writing (bytes = bytes written) */
    TRACEDB_CREATE = 3,     /* created (open O_CREAT that made it, mknod) */
    TRACEDB_TRUNCATE = 4,   /* truncated (O_TRUNC or truncate to a smaller size) */
    TRACEDB_EXEC = 5,       /* opened to be executed */
    TRACEDB_UNLINK = 6,
    TRACEDB_MKDIR = 7,
    TRACEDB_RMDIR = 8,
    TRACEDB_RENAME_FROM = 9,
    TRACEDB_RENAME_TO = 10,
    TRACEDB_LINK = 11,      /* a hard link made at this path */
    TRACEDB_SYMLINK = 12,   /* a symlink made at this path */
    TRACEDB_READDIR = 13,   /* a directory listed */
    TRACEDB_READLINK = 14,
    TRACEDB_PROBE = 15,     /* looked up; result says whether it existed (ENOENT = missing) */
    TRACEDB_SETATTR = 16,   /* chmod/chown/utimes */
    TRACEDB_ACCESS_KIND_MAX = 16,
};

/* The name of an access kind ("read", "rename_from", ...), or NULL for an unknown code. */
const char *tracedb_access_kind_name(int kind);

/* Named sets of access kinds, as SQL lists: the only place the read side spells them (the
 * numbers are the enum's above, which never change; tests/unit/tracedb checks each set
 * against the enum by name).
 *   READ        its content was read: read, exec
 *   OPENED_READ opened for reading only (not exec)
 *   EXEC        opened to be executed
 *   MADE        a version was made by it: write, create, truncate
 *   PLACED      a version was put at a path without being made: rename_to, link
 *   GONE        a version left a path: unlink, rename_from
 *   RMDIR       a directory removed
 *   USED        read or made (the provenance edges): READ + MADE
 *   VERSIONED   bound to the version at a path: USED + PLACED
 *   PRODUCED    left a version at a path (a product): MADE + PLACED
 *   CHANGED     changed what a path holds: MADE + rename_to + GONE (compile outputs)
 *   WROTE_PATH  "wrote" it for who-wrote: MADE + mkdir + PLACED + symlink
 *   BOUND       every kind that can bind a version: VERSIONED + GONE + symlink
 *   FOLLOWED    a symlink read (followed or listed): readlink
 *   LISTED      a directory listed: readdir */
#define TRACEDB_KINDS_READ "(1,5)"
#define TRACEDB_KINDS_OPENED_READ "(1)"
#define TRACEDB_KINDS_EXEC "(5)"
#define TRACEDB_KINDS_MADE "(2,3,4)"
#define TRACEDB_KINDS_PLACED "(10,11)"
#define TRACEDB_KINDS_GONE "(6,9)"
#define TRACEDB_KINDS_RMDIR "(8)"
#define TRACEDB_KINDS_USED "(1,2,3,4,5)"
#define TRACEDB_KINDS_VERSIONED "(1,2,3,4,5,10,11)"
#define TRACEDB_KINDS_PRODUCED "(2,3,4,10,11)"
#define TRACEDB_KINDS_CHANGED "(2,3,4,6,9,10)"
#define TRACEDB_KINDS_WROTE_PATH "(2,3,4,7,10,11,12)"
#define TRACEDB_KINDS_BOUND "(1,2,3,4,5,6,9,10,11,12)"
#define TRACEDB_KINDS_FOLLOWED "(14)"
#define TRACEDB_KINDS_LISTED "(13)"

/* The same sets as bit masks, for code that classifies rows it has already read (one place for
 * both spellings: tests/unit/tracedb checks that each mask is its SQL list). */
#define TRACEDB_KIND_BIT(k) (1u << (k))
#define TRACEDB_MASK_READ (TRACEDB_KIND_BIT(TRACEDB_READ) | TRACEDB_KIND_BIT(TRACEDB_EXEC))
#define TRACEDB_MASK_OPENED_READ TRACEDB_KIND_BIT(TRACEDB_READ)
#define TRACEDB_MASK_EXEC TRACEDB_KIND_BIT(TRACEDB_EXEC)
#define TRACEDB_MASK_MADE                                                                          \
    (TRACEDB_KIND_BIT(TRACEDB_WRITE) | TRACEDB_KIND_BIT(TRACEDB_CREATE) |                          \
     TRACEDB_KIND_BIT(TRACEDB_TRUNCATE))
#define TRACEDB_MASK_PLACED (TRACEDB_KIND_BIT(TRACEDB_RENAME_TO) | TRACEDB_KIND_BIT(TRACEDB_LINK))
#define TRACEDB_MASK_GONE (TRACEDB_KIND_BIT(TRACEDB_UNLINK) | TRACEDB_KIND_BIT(TRACEDB_RENAME_FROM))
#define TRACEDB_MASK_RMDIR TRACEDB_KIND_BIT(TRACEDB_RMDIR)
#define TRACEDB_MASK_USED (TRACEDB_MASK_READ | TRACEDB_MASK_MADE)
#define TRACEDB_MASK_VERSIONED (TRACEDB_MASK_USED | TRACEDB_MASK_PLACED)
#define TRACEDB_MASK_PRODUCED (TRACEDB_MASK_MADE | TRACEDB_MASK_PLACED)
#define TRACEDB_MASK_CHANGED                                                                       \
    (TRACEDB_MASK_MADE | TRACEDB_KIND_BIT(TRACEDB_RENAME_TO) | TRACEDB_MASK_GONE)
#define TRACEDB_MASK_WROTE_PATH                                                                    \
    (TRACEDB_MASK_MADE | TRACEDB_KIND_BIT(TRACEDB_MKDIR) | TRACEDB_MASK_PLACED |                   \
     TRACEDB_KIND_BIT(TRACEDB_SYMLINK))
#define TRACEDB_MASK_BOUND                                                                         \
    (TRACEDB_MASK_VERSIONED | TRACEDB_MASK_GONE | TRACEDB_KIND_BIT(TRACEDB_SYMLINK))
#define TRACEDB_MASK_FOLLOWED TRACEDB_KIND_BIT(TRACEDB_READLINK)
#define TRACEDB_MASK_LISTED TRACEDB_KIND_BIT(TRACEDB_READDIR)

/* Whether access kind `kind` is in the set `mask` (a TRACEDB_MASK_*). */
static inline bool tracedb_kind_in(unsigned mask, int kind)
{
    return kind >= 1 && kind <= TRACEDB_ACCESS_KIND_MAX && (mask & TRACEDB_KIND_BIT(kind));
}

/* versions.origin */
enum tracedb_version_origin {
    TRACEDB_VERSION_FOUND = 1,   /* existed before the build touched it: hashed at first read */
    TRACEDB_VERSION_WRITTEN = 2, /* made by the build: one write-open ... last close */
};

/* Streams of the output table. */
enum tracedb_stream { TRACEDB_STDOUT = 1, TRACEDB_STDERR = 2 };

/* Run states (runs.state). */
#define TRACEDB_RUN_RUNNING "running"
#define TRACEDB_RUN_FINISHED "finished"
#define TRACEDB_RUN_INTERRUPTED "interrupted"
#define TRACEDB_RUN_FAILED "failed" /* buildtrail failed (runs.failure says how); incomplete */

/* Create a fresh trace database at `path`, readable and writable as `mode` says (its -wal and
 * -shm get the same), whatever the umask.  What may be replaced there: nothing, an empty
 * regular file, or a buildtrail trace that no running buildtrail holds, together with its own
 * -wal/-shm/-journal files (regular files with SQLite's magic); anything else (a device, a
 * FIFO, a symlink, another file, a side file that is not SQLite's) is -EEXIST, never opened
 * for writing and never waited on; a trace being recorded is -EBUSY ("another buildtrail run
 * (pid N) is recording it").  The new trace is built under a temporary name in the same
 * directory and renamed into place (tracedb_create_pending + tracedb_publish, below), with
 * the directory flock()ed meanwhile, so two runs creating one trace take turns and `path` is
 * never a partial file; a failure leaves nothing behind.  The path may be as long as the kernel accepts (longpath.h).  Returns 0 and sets
 * *out (WAL mode); *lock_fd (if given) receives an fd holding an exclusive flock on the trace
 * (keep it open while recording; another run then gets -EBUSY), to be closed only after
 * sqlite3_close(): closing any fd of the file drops SQLite's POSIX locks on it.
 * meta('recorder_pid') names the creating process. */
int tracedb_create(const char *path, mode_t mode, sqlite3 **out, int *lock_fd,
                   char **err_detail);

/* A new trace not yet in place: tracedb_create in two steps, so that `buildtrail run` replaces
 * the old trace only once its build command has started.  tracedb_create_pending() checks
 * what is at `path` as tracedb_create does (-EEXIST, -EBUSY), also -EBUSY when another run is
 * about to publish a trace there, removes the temporary files of runs killed before they
 * published theirs (ours, unlocked), and builds the schema at a temporary name beside `path`
 * (".buildtrail-new-HASH-RANDOM.db", HASH naming `path`'s base name), flock()ed through
 * p->lock_fd; *out is it opened read-write (already WAL: publishing writes nothing to the
 * trace in place) for the run's first rows: close it before publishing.  tracedb_publish()
 * first checkpoints into the file what a close left in the temporary name's -wal (another run
 * reading the trace as it closed), then checks `path` again, puts the new trace in
 * its place (swapping the two where the filesystem can, so that a failure to open it puts the
 * old one back, with its -wal and -shm, which moved with it) and opens it as tracedb_create
 * does (WAL); *old (if given) says what it
 * replaced (tracedb_replaced_clear it).  tracedb_pending_discard() removes a trace never
 * published (a run whose build did not start) and closes the lock fd.  After a successful
 * publish p->lock_fd holds the trace's flock as tracedb_create's *lock_fd does (close it with
 * tracedb_pending_discard, after sqlite3_close). */
struct tracedb_pending {
    char *path;     /* where it goes */
    char *tmp_path; /* where it is until published (NULL after) */
    int lock_fd;
    bool drop_lock; /* close lock_fd once in place, before SQLite opens it there */
};
struct tracedb_replaced {
    bool existed, empty; /* a file was replaced; it was an empty one */
    void *argv;          /* the old run's command, NUL-separated (NULL: not recorded) */
    size_t argv_len;
    int64_t start_realtime_ns;
    char *state;         /* runs.state, NULL if not recorded */
    int exit_status;     /* -1: none */
};
int tracedb_create_pending(const char *path, mode_t mode, struct tracedb_pending *p,
                           sqlite3 **out, char **err_detail);
int tracedb_publish(struct tracedb_pending *p, sqlite3 **out, struct tracedb_replaced *old,
                    char **err_detail);
void tracedb_pending_discard(struct tracedb_pending *p);
void tracedb_replaced_clear(struct tracedb_replaced *old);

/* Remove a trace this process created and that records nothing (a run that never started its
 * build), with its -wal, -shm and -journal files.  Never for a trace of another run. */
void tracedb_discard(const char *path);

/* The directory the build could not remove because the trace `trace_path` (absolute, as the
 * build saw it) lay in it: the highest ancestor of it whose rmdir failed as not empty
 * (ENOTEMPTY or EEXIST).  0 with *dir NULL when there is none, or a newly allocated path;
 * -EIO with SQLite's message in *err. */
int tracedb_removal_blocked(sqlite3 *db, const char *trace_path, char **dir, char **err);
/* Is `path` strictly below the absolute directory `dir` (by name)? */
bool tracedb_path_below(const char *dir, const char *path);

/* "a regular file", "a FIFO", "a character device", ... for a stat mode. */
const char *tracedb_file_kind(mode_t mode);

/* The run row (table runs, id 1) and its trees, written by `buildtrail run` at the start and
 * at the end.  Each returns 0 or -EIO with SQLite's message in *err (g_free it). */
struct tracedb_tree {
    const char *path;
    const char *role; /* "workspace", "trace", "tmp", "system" */
};
struct tracedb_variation {
    const char *name, *side, *value; /* side: "control" or "experiment" */
    bool applied;
    const char *why_not;             /* may be NULL */
};
struct tracedb_run_start {
    const void *argv;       /* the build command, NUL-separated */
    size_t argv_len;
    const char *cwd;
    int64_t start_realtime_ns, start_ns; /* CLOCK_REALTIME and CLOCK_BOOTTIME */
    int64_t uid, gid;
    const char *hostname, *version;
    const char *options;    /* buildtrail's own options, as a shell would quote them */
    const struct tracedb_tree *trees;
    int n_trees;
    const struct tracedb_variation *variations; /* run --vary, --vary-control */
    int n_variations;
};
int tracedb_write_run_start(sqlite3 *db, const struct tracedb_run_start *r, char **err);
struct tracedb_run_end {
    int64_t end_ns;          /* CLOCK_BOOTTIME */
    int exit_status;         /* like $?; < 0: none */
    int term_signal;         /* 0: none */
    const char *state;       /* TRACEDB_RUN_* */
    int64_t root_process_id; /* 0: none */
    const char *notes, *process_tree, *failure; /* failure may be NULL */
};
int tracedb_write_run_end(sqlite3 *db, const struct tracedb_run_end *r, char **err);
/* Whether a process_tree note says the tree is whole: "complete" (alone, or followed by ", "
 * and a remark); "partial: …", "incomplete: …", anything else and a missing note (NULL) are
 * not. */
bool tracedb_tree_complete(const char *process_tree);

/* runs.notes may begin with "unseen=WHY; " (WHY holds no "; "): the build did something that hid accesses from the
 * recorder (a watched build's own mount namespace or mount, launcher/nsguard.h); the trace is
 * then incomplete.  WHY (newly allocated), or NULL when the notes hold none. */
char *tracedb_notes_unseen(const char *notes);

/* What a trace holds, counted (run's summary line, `info`).  processes are tasks (a fork is
 * one, an exec is not); images are programs run (each exec, and each image with no parent:
 * the build's command and orphans); files_read are files
 * found before the build that it read or executed; files_written the paths it left a
 * version at (temporaries included); versions_written the contents it made; output_bytes its
 * stdout and stderr.  A trace of `schema_version` 1 or 2 has no versions: its files read are
 * those read and not written, and versions_written is 0.  Returns 0 or a SQLite result code
 * (*err: its message; g_free it). */
struct tracedb_counts {
    int64_t processes, images, files_read, files_written, versions_written, output_bytes;
};
int tracedb_count(sqlite3 *db, int schema_version, struct tracedb_counts *c, char **err);

/* Whether SQLite result `rc` says the file's content is wrong (corrupt, not a database, a short
 * read of a truncated file), rather than a lock, memory or permissions. */
bool tracedb_rc_is_damage(int rc);

/* The longest value (a blob or text: argv, an environment, a path, an output chunk) a trace
 * holds: the kernel gives a program at most 6 MiB of arguments and environment together.  A
 * reader's connection refuses a longer one (SQLITE_TOOBIG) instead of loading it. */
#define TRACEDB_VALUE_MAX (16 << 20)

/* Open an existing trace read-only (a symlink is followed; nothing blocks on a FIFO or device).
 * -ENOENT: no such file; -EINVAL: not a buildtrail trace (not a regular file, empty, not
 * SQLite, or SQLite without buildtrail's meta); -EBADMSG: a trace whose content is damaged
 * (SQLite reports corruption, meta has no schema version, or a table of its schema version is
 * missing, is not a plain table (a view, a virtual table) or does not have exactly the columns
 * buildtrail made: a crafted view could run forever); -EPROTO: written by a newer buildtrail
 * (schema version above ours); -EROFS: a trace left with a -wal (its run did not finish)
 * whose -shm file cannot be made (its directory is not writable); -EIO: a side file (-wal,
 * -shm, -journal beside it) that is not SQLite's (a FIFO, a link, a device: refused before
 * SQLite opens it; a file without SQLite's magic, which SQLite would take for its own), or
 * another SQLite failure.  *err_detail gets the sentence
 * in every case.  The connection refuses values longer than TRACEDB_VALUE_MAX. */
int tracedb_open_readonly(const char *path, sqlite3 **out, char **err_detail);

/* The schema of a trace of `version` (0: meta alone; 1 .. TRACEDB_SCHEMA_VERSION: as the
 * migrations make it), with no rows, in a new in-memory database: NULL when it cannot be made
 * (out of memory).  Close it with sqlite3_close().  The one description of the tables that
 * others derive theirs from: tracedb_open_readonly compares a trace with it, tests prepare
 * statements against it, the SQL dump reads its columns (pragma_table_info). */
sqlite3 *tracedb_reference_schema(int version);

/* Is the file at `path` a buildtrail trace (or an empty regular file)?  1 yes, 0 no (anything
 * not a regular file, without opening it), <0 errno. */
int tracedb_is_trace(const char *path);

/* Is a buildtrail run recording the trace at `path` now (does a live process hold its lock)?
 * 1 yes, 0 no, <0 errno.  Call it before opening the trace with SQLite: it opens and closes a
 * descriptor of the file, which would drop this process's SQLite locks on it. */
int tracedb_is_recording(const char *path);

/* Execute SQL that returns no rows.  Returns 0 or -EIO with *err_detail set. */
int tracedb_exec(sqlite3 *db, const char *sql, char **err_detail);

/* The recording is over: make the trace one self-contained file (rollback journal instead of
 * WAL), so that readers need no -wal/-shm files beside it and can read it from read-only
 * media.  -EBUSY (the trace stays in WAL mode, still complete) if a reader has it open. */
int tracedb_seal(sqlite3 *db);
