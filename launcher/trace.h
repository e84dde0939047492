/* trace — the life of `buildtrail run`'s trace: created at a temporary name with its run row,
 * put in place once the build's command has started and handed to the recorder, watched while
 * the build runs, taken back from the recorder, its run's end written, sealed, summed up in
 * one line; or, when the command never started, discarded with the old trace left as it was.
 * docs/architecture.md, "The trace file", says why each step is as it is.
 *
 * The only launcher code that touches the trace: its SQL is here (TRACEDB_STATEMENT) or in
 * tracedb/ (tracedb.h, queries.h).
 *
 * Contract
 *   - Main-level code of `run`: a failure is one line on stderr ("buildtrail run: ...; the
 *     fix") and -1; nothing else is printed but the summary (trace_print_summary).
 *   - The stages, in order: trace_init, trace_resolve_path (-o as given, or the default,
 *     made absolute against the run's directory; -o DIR names DIR/buildtrail.db), trace_create,
 *     then while the build runs trace_publish (once, from the main loop) and trace_problem;
 *     at the end trace_take_back, trace_write_end, trace_print_summary; trace_close always.
 *   - Between trace_create and trace_take_back the trace's handle is the recorder's (or
 *     closed, before publishing): `db` is NULL then, but for a publish whose hand-off failed.
 *   - Main thread only.  trace->path is stable from trace_resolve_path to trace_close (the
 *     recorder's hooks print it from the writer thread).
 */
#pragma once

#include "plan.h"
#include "tracedb.h"
#include "vary.h"

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#define TRACE_DEFAULT_NAME "buildtrail.db"

struct rec;

struct trace {
    char *shown;          /* the name as the user gave it (-o), for messages and the summary */
    char *path, *dir, *base; /* where it lies, absolute */
    char *pending_base;   /* the new trace's temporary name (hidden from the build) */
    sqlite3 *db;
    int lock_fd;          /* pending's: held until the run ends */
    struct tracedb_pending pending; /* at a temporary name until published */
    bool published;       /* in place at path: the build's command started */
    struct tracedb_replaced replaced; /* what publishing it replaced */
    struct stat dir_st, st; /* its directory and itself, for hiding and watching */
};

struct trace_start {
    char **argv;                 /* the build's command */
    char *const *argv_redact;    /* --argv-redact, NULL-terminated */
    const char *cwd;
    const char *options;         /* runs.options */
    mode_t mode;                 /* --output-mode */
    const struct plan *plan;     /* the trees rows */
    const struct vary_plan *vary; /* the variations rows, or NULL */
};

void trace_init(struct trace *t);
/* `given`: -o's FILE, or NULL. */
void trace_resolve_path(struct trace *t, const char *given, const char *cwd);
/* The trace at its temporary name, with its run row (tracedb_create_pending: never replacing
 * what is not a trace), then closed.  0 or -1 (said). */
int trace_create(struct trace *t, const struct trace_start *s);
/* The build's command has started: in place, handed to `rec`.  0, or -1 (said) with *why (g_free
 * it) the reason to stop the build, which would run unrecorded. */
int trace_publish(struct trace *t, struct rec *rec, char **why);
/* Is the trace still the file at its path?  NULL, or what happened to it (g_free it). */
char *trace_problem(const struct trace *t);
/* The handle back from the recorder (rec_stop); after a failure the WAL is moved into the trace
 * to make room for the end; exits by SIGKILL at or after kill_left_ns (BOOTTIME; 0: none) are
 * marked killed at the end.  0, or the first write error (negative errno). */
int trace_take_back(struct trace *t, struct rec *rec, int64_t kill_left_ns);

struct trace_end {
    int64_t end_ns;
    int exit_status, term_signal;
    bool interrupted;
    int64_t root_process_id;
    const char *notes, *process_tree, *failure; /* failure: not NULL for a failed run */
};
/* The run's end, then sealed (one self-contained file).  0, or -EIO when it was not written
 * (nothing to write to is not a failure). */
int trace_write_end(struct trace *t, const struct trace_end *e);

/* The process tree's note when accesses were `lost`: "incomplete: LOST[; NOTE]" (NOTE when the
 * tree itself is not complete).  Takes `note`; g_free the result. */
char *trace_note_lost(char *note, const char *lost);

/* "no trace kept: the previous trace FILE is left as it was" (or "no trace written to FILE");
 * g_free it. */
char *trace_not_replaced(const struct trace *t);

struct trace_summary {
    const struct plan *plan;
    const char *cwd;
    bool failed;                  /* the run failed (said above the summary) */
    bool lost;                    /* the trace's file went away (said above) */
    bool interrupted;
    const char *tree_note;        /* runs.process_tree */
    const char *unseen;           /* what the trace misses, seen by the mount-call guard */
    const char *unmapped_groups;  /* groups not mapped inside, or NULL */
};
/* One line on stderr: what the trace holds, where, how complete, what the build left running
 * (killed), what the build used that was not traced; then which trace it replaced. */
void trace_print_summary(struct trace *t, const struct trace_summary *s);

/* Closes the handle, then removes a trace never published and forgets the rest. */
void trace_close(struct trace *t);
