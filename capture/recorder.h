/* recorder — moves trace events from FUSE worker threads into the SQLite trace, losslessly.
 *
 * Contract
 *   - Producers (any thread) call rec_add_*(); each call copies what it is given, so the caller
 *     keeps ownership of its arguments.  An event is never dropped: when the queue holds
 *     REC_QUEUE_MAX events the producer waits until the writer has taken them (backpressure
 *     slows the build down; it never loses an event).
 *   - One writer thread owns the sqlite3 handle after rec_start() (or rec_attach()): it takes everything queued,
 *     writes it in one transaction, commits, and repeats.  A batch is committed at most
 *     REC_COMMIT_INTERVAL_MS after its first event was queued, so a trace being read during the
 *     build (WAL) is at most that far behind.
 *   - rec_stop() drains the queue, commits, and returns the writer's first error (0 or -errno).
 *     After it the handle belongs to the caller again (the launcher writes the run's end).
 *   - Out of space (ENOSPC, EDQUOT): the writer keeps the batch and retries it every 0.5 s; the
 *     queue fills and producers wait, so the build pauses and nothing is lost.  hooks.disk_full
 *     says when that starts and ends.  rec_abandon() makes it give up (the user stopped the
 *     run): the error is then kept as for any other failure.
 *   - Any other failure (EIO, EROFS, ...): the writer remembers the first error, calls
 *     hooks.failed at once, and keeps taking events without writing them, so that the build
 *     is not blocked while the launcher stops it; rec_error() reports it and the run is marked
 *     failed.  This is the only way events can be lost, and it is never silent.
 *   - The hooks run on the writer thread with no lock held; they must not call back in.
 *
 * Locking: queue_lock protects the queue and its counters; files_lock protects the path→id
 * table; envs_lock the environment→id table.  No two are held together (rec_file_id and
 * rec_env_id push their event after releasing theirs).  The writer holds none while it talks
 * to SQLite.
 */
#pragma once

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define REC_QUEUE_MAX 65536
#define REC_COMMIT_INTERVAL_MS 200

struct rec;

struct rec_process {
    int64_t id;
    int64_t parent_id;     /* 0: none */
    int64_t prev_image_id; /* 0: none */
    pid_t pid;
    uint64_t start_ticks;
    int exec_seq;
    bool orphan;
    int64_t start_ns;
    int64_t first_seen_ns;
    const char *comm, *exe, *cwd; /* may be NULL when /proc would not say */
    const char *argv;             /* NUL-separated; argv_len bytes */
    size_t argv_len;
    int64_t env_id;               /* rec_env_id of its environment; 0: unknown */
};

struct rec_access {
    int64_t process_id; /* 0: unknown caller */
    int64_t file_id;
    int kind;           /* enum tracedb_access_kind */
    int open_flags;     /* -1: not an open */
    int64_t bytes;      /* -1: not applicable */
    int64_t first_ns, last_ns;
    int result;         /* 0 or a positive errno */
    int64_t version_id; /* 0: none; else the version read, produced, moved or removed */
};

/* A file hidden from a process (denials table: enum tracedb_denial_how, _reason). */
struct rec_denial {
    int64_t process_id; /* 0: unknown caller */
    int64_t file_id;
    int how;
    int reason;
    const char *package; /* NULL: not known; copied */
    int64_t time_ns;
};

/* A file version whose content is final and hashed (versions table). */
struct rec_version {
    int64_t id;
    int64_t file_id;
    int origin;         /* enum tracedb_version_origin */
    int64_t base_id;    /* 0: none */
    int64_t begin_ns, end_ns;
    int64_t size;       /* -1: unknown */
    bool hashed;
    uint8_t sha256[32];
    uint8_t sha1[20];
    uint8_t git_sha1[20];
    int hash_error;     /* 0, or the errno that stopped hashing */
};

/* Takes over `db` (made by tracedb_create, with the runs row written).  With db NULL, events
 * are queued (up to REC_QUEUE_MAX, then producers wait) and nothing is written until
 * rec_attach(); stopped before that, they are dropped. */
int rec_start(struct rec **out, sqlite3 *db);

/* Give a writer started without a trace its trace (once): it takes over `db` and writes what
 * was queued.  0, or -EIO when the writer's statements cannot be prepared on it (`db` stays the
 * caller's). */
int rec_attach(struct rec *r, sqlite3 *db);

/* The id of a file path, assigned on first use (and queued for the files table). */
int64_t rec_file_id(struct rec *r, const char *path);
/* The id of an environment (NUL-separated entries, as recorded: redacted already), assigned on
 * first use of that exact content (and queued for the environments table): a build's thousands
 * of processes share a few environments. */
int64_t rec_env_id(struct rec *r, const void *env, size_t len);

void rec_add_process(struct rec *r, const struct rec_process *p);
void rec_add_access(struct rec *r, const struct rec_access *a);
void rec_add_version(struct rec *r, const struct rec_version *v);
void rec_add_denial(struct rec *r, const struct rec_denial *d);
void rec_add_output(struct rec *r, int64_t process_id, int stream, int64_t time_ns,
                    const void *data, size_t len);

/* A process image ended: `status` is the wait status (exit code or terminating signal). */
void rec_add_exit(struct rec *r, int64_t process_id, int64_t end_ns, int status);

struct rec_hooks {
    void (*disk_full)(void *arg, int err, bool full); /* full=true: waiting for space (err) */
    void (*failed)(void *arg, int err);                /* a write failed with errno err */
    void *arg;
};

/* Set the hooks (before the first event is queued). */
void rec_set_hooks(struct rec *r, const struct rec_hooks *hooks);

/* Stop waiting for disk space: the events that could not be written are lost (and said). */
void rec_abandon(struct rec *r);

/* First error the writer met, 0 if none. */
int rec_error(struct rec *r);

/* Events queued so far (a statistic for the run's notes). */
uint64_t rec_event_count(struct rec *r);

/* Drain, commit, join the writer; returns its first error.  *db_out gets the handle back. */
int rec_stop(struct rec *r, sqlite3 **db_out);

/* Free what rec_start made (after rec_stop). */
void rec_free(struct rec *r);

/* CLOCK_BOOTTIME now, in ns. */
int64_t rec_now_ns(void);
