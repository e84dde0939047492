/* driver — what every query command shares: options and help (query_parse), opening the trace
 * and saying what it stands on (query_open_for), reporting a damaged trace (query_failed,
 * query_emit), and the text and JSON shapes of processes and versions.
 *
 * Contract: main-level code (it prints; the reader library under lib/ does not).
 *   - query_parse and query_open_for print one line for every error, naming the fix.
 *   - Nothing is written to stdout before query_emit (or an exporter's stream) has checked
 *     that the trace read without error: a damaged trace gives no answer, only its line.
 *   - Formatting helpers append to a caller-owned GString.
 *   - driver.c holds all of it but the path operands (query_path_*), which are pathop.c's.
 */
#pragma once

#include "prov.h"
#include "qdb.h"

#include <glib.h>
#include <stdbool.h>
#include <sys/types.h>

#define QUERY_DEFAULT_DB "buildtrail.db"

/* Options every query takes: -d/--db FILE, --json, --no-pager, -h/--help (and, where a
 * command says so, --allow-incomplete, --full). */
struct query_opts {
    const char *db_path; /* NULL: $BUILDTRAIL_DB, else the nearest buildtrail.db upwards */
    bool json;
    bool allow_incomplete; /* --allow-incomplete (verdicts and attestations only) */
};

/* A command, as the driver sees it: its name, operands, help and own options. */
struct query_command {
    const char *name;          /* "who-wrote" */
    const char *operands;      /* after the options in the usage line: "PATH...", "ID...", "" */
    int min_operands;          /* how many it needs ... */
    int max_operands;          /* ... and takes at most (-1: any number) */
    const char *about;         /* what it does: lines ending in \n */
    void (*more_about)(void);  /* prints more of it (a list built at run time), or NULL */
    const char *options_help;  /* its own options, one "  -x, --long ARG   what\n" each, or NULL */
    const char *exit_help;     /* its exit statuses, if not the queries' usual ones, or NULL */
    const struct option *options; /* its own long options, {0}-terminated, or NULL */
    const char *shortopts;     /* its own short options ("lp:"), or NULL */
    unsigned flags;            /* QUERY_NO_JSON, QUERY_ALLOW_INCOMPLETE */
    /* Store one of its own options in ctx: 0, or 2 after printing a usage error. */
    int (*option)(void *ctx, int c, const char *arg);
};
#define QUERY_NO_JSON 1u          /* takes no --json (its output is another format) */
#define QUERY_ALLOW_INCOMPLETE 2u /* takes --allow-incomplete */
#define QUERY_CUT_ARGV 4u         /* on a terminal, argv lines are cut to its width (--full) */

/* Parse argv for `cmd`: the shared options into *o, its own through cmd->option(ctx, …).
 * Returns -1 to go on (the operands are argv[optind..argc-1], their count checked), 0 after
 * printing --help on stdout, or 2 after printing a usage error (one line, naming the fix). */
int query_parse(const struct query_command *cmd, int argc, char **argv, struct query_opts *o,
                void *ctx);

/* A process id operand or option value ("--process" or NULL for an operand): true, or false
 * after printing a usage error. */
bool query_parse_id(const char *cmd, const char *what, const char *arg, int64_t *id);

/* An --output-mode value (octal permissions, 0 to 0777): true, or false after printing a usage
 * error. */
bool query_parse_mode(const char *cmd, const char *arg, mode_t *mode);
/* The permissions of the trace q was read from (what an -o file of it gets unless
 * --output-mode says otherwise), or 0600 when they cannot be read. */
mode_t query_trace_mode(const struct qdb *q);
/* The help line of --output-mode for a command whose -o document comes from the trace. */
#define QUERY_OUTPUT_MODE_HELP \
    "      --output-mode MODE  the -o file's permissions, in octal (default: the\n" \
    "                        trace's, 0600 unless it was recorded with another)\n"

/* What a command needs of the trace it answers on. */
enum query_need {
    QUERY_ANY_TRACE,      /* any readable trace; an incomplete one gets a note on stderr */
    QUERY_COMPLETE_TRACE, /* a verdict or an attestation: an incomplete trace is refused */
};
/* Open the trace for `cmd` (db_path, or when NULL $BUILDTRAIL_DB, else the nearest
 * buildtrail.db in the current directory or above, as git finds .git: the first that exists
 * is taken, a foreign or damaged one is reported, never skipped; one found so is refused unless
 * it, its directory and, for a link, the file it leads to are the caller's or root's, or the
 * directory is listed in $BUILDTRAIL_SAFE_DIRS), or print why not (with the fix) and return
 * NULL.  A damaged trace
 * is refused; a run that did not end cleanly or an incomplete trace gets one line on stderr
 * (or, with QUERY_COMPLETE_TRACE, is refused in one line that names --allow-incomplete). */
struct qdb *query_open_for(const char *cmd, const char *db_path, enum query_need need);
/* query_open_for(cmd, db_path, QUERY_ANY_TRACE) */
struct qdb *query_open(const char *cmd, const char *db_path);
/* The trace's state as a JSON member, for every --json document:
 * "trace":{"path":…,"state":"finished|recording|killed|interrupted|failed","complete":bool,
 *          "incomplete":why|null,"process_tree":…,"failure":…,"started":ISO,"finished":ISO|null,
 *          "exit_status":N|null} */
void query_json_trace(GString *out, struct qdb *q);
/* The version of every --json document's shape (docs/json.md): a change that could break a
 * reader (a member removed, renamed or retyped) raises it; a member added does not. */
#define QUERY_JSON_VERSION 1
/* Open a --json document: `{"json_version":N,"trace":{…}` then, if key is given, `,"KEY":`
 * (the caller appends the value and the closing brace). */
void query_json_begin(GString *out, struct qdb *q, const char *key);
/* The same with a jsonw: `{"json_version":N,"trace":{…}` opened in w (jsonw_init'ed on out);
 * the caller adds its members and jsonw_object_end()s it. */
struct jsonw;
void query_jsonw_begin(struct jsonw *w, GString *out, struct qdb *q);
/* `,"KEY":"RFC 3339 wall-clock time"` (or null) for a time on the trace's clock: the clock
 * of the trace opened last (query_open*), or of the one query_json_clock() named. */
void query_json_time(GString *out, const char *key, int64_t boot_ns);
/* The trace whose clock query_json_time (and query_json_process) reads from now on: a
 * command that holds several traces names the one a process belongs to before rendering
 * it, since the trace opened last may be another, or closed since. */
void query_json_clock(const struct qdb *q);

/* "[ID] argv…" for people. */
void query_text_process(GString *out, const struct qdb_process *p);
/* "  [exit N]" / "  [killed by signal N]" when the process failed (nothing for exit 0). */
void query_text_exit(GString *out, const struct qdb_process *p);
/* p's ancestors (parent, its parent, ... up to the build's root), one "[ID] argv" line each:
 * the first after `first`, the others after `rest`. */
void query_text_ancestors(GString *out, struct qdb *q, const struct qdb_process *p,
                          const char *first, const char *rest);
/* The same as a JSON array of processes (query_json_process). */
void query_json_ancestors(GString *out, struct qdb *q, const struct qdb_process *p);
/* {"id":…, "pid":…, "exe":…, "argv":[…], "cwd":…, "parent":…} */
void query_json_process(GString *out, const struct qdb_process *p);

/* The answer's last step: if q met an error (a damaged trace), say so in one line and return
 * 1 without writing anything; else write `out` to stdout in full and return 0, or 1 if the
 * write failed.  q may be NULL (nothing to check). */
int query_emit(struct qdb *q, GString *out);
/* If q met an error, say so in one line on stderr ("buildtrail CMD: the trace FILE is
 * damaged: ...") and return true.  Call it before any conclusion drawn from an absence. */
bool query_failed(struct qdb *q);

/* The environment of image `id`, one entry at a time: fn(name, value or NULL when redacted,
 * data); false when the trace does not have it. */
bool query_each_env(struct qdb *q, int64_t id,
                    void (*fn)(const char *name, const char *value, void *data), void *data);
/* The same as a JSON object {"NAME":"VALUE" or null (redacted), ...}, or null. */
void query_json_env(GString *out, struct qdb *q, int64_t id);

/* What a read or write access moved, saying only what is known: a write's count is exact
 * (every write goes through the daemon); a read's is a floor (pages the kernel already had
 * are served without the daemon), so a read that moved nothing through it was "opened for
 * reading" and one that did "read at least N bytes".  Text: the phrase, with a leading
 * space, for kinds read and write (nothing for other kinds).  JSON: `,"bytes":N,
 * "bytes_exact":bool`. */
void query_text_access(GString *out, int kind, int64_t bytes);
/* An access kind in words ("renamed into place" for rename_to): text answers say these, JSON
 * the kind names. */
const char *query_access_phrase(int kind);
void query_json_bytes(GString *out, int kind, int64_t bytes);

/* Provenance helpers. */
/* The provenance view of a trace, or NULL after printing why not (trace older than schema 3). */
struct prov *query_open_prov(const char *cmd, struct qdb *q);
/* A path operand as the trace knows it (query_path_lookup). */
enum query_disk {
    QUERY_DISK_UNKNOWN, /* not compared (no versions, not a file, the private /tmp, unreadable) */
    QUERY_DISK_SAME,    /* the file on disk is the trace's last version (or both are gone) */
    QUERY_DISK_CHANGED, /* another content, another kind of file, or back after the build
                         * removed it */
    QUERY_DISK_REMOVED, /* the build left a file there; there is none now */
};
struct query_path {
    int64_t file_id;
    char *asked;   /* the operand made absolute (lexically) */
    char *path;    /* the path answered for: `asked`, or its symlinks' target */
    bool via_link; /* asked is (or passes through) a symlink on disk; path is where it leads */
    enum query_disk disk;
};
/* Find a path operand in the trace: made absolute; when it is a symlink on disk (or, not
 * traced as given, passes through one), the target the links lead to, if the trace has it —
 * the build's reads through the link are the target's (ld linking through libfoo.so); when
 * no link is there now, where the build's own link pointed, by the `ln -s` (or `cmake -E
 * create_symlink`) that made it.  On
 * success, compares the file on disk with the trace's last version there (size, then mtime
 * against the run's end, then SHA-256) and prints "PATH: changed|removed since the trace" on
 * stderr when it differs.  On failure prints that the build never touched it, suggesting
 * the traced paths of the same name (and, for a relative operand, the path relative to the
 * build's directory), unless q failed (query_failed says so); false.  Clear with
 * query_path_clear. */
bool query_path_lookup(const char *cmd, struct qdb *q, const char *arg, struct query_path *qp);
void query_path_clear(struct query_path *qp);
/* "ASKED → PATH" through a symlink, else "PATH" (escaped). */
void query_text_path(GString *out, const struct query_path *qp);
/* `,"symlink":ASKED` (through a symlink only), `,"changed_since_trace":bool,
 * "removed_since_trace":bool`. */
void query_json_path_state(GString *out, const struct query_path *qp);
/* query_path_lookup for commands that show only the path: the file id (0 after printing why
 * not), *abs_out the path answered for (g_free it); through a symlink, one stderr line
 * "ASKED → PATH (a symlink: answering for its target)". */
int64_t query_path_file_id(const char *cmd, struct qdb *q, const char *arg, char **abs_out);
/* A version as JSON members, leaving the object open: {"version":…,"path":…,"origin":…, … */
void query_json_version(GString *out, const struct prov_version *v);
/* "version N (made by the build, S bytes, sha256 H)" */
void query_text_version(GString *out, const struct prov_version *v);

/* The directory the (first) run of the trace was started in (g_free it); the current
 * directory if the trace does not say. */
char *query_run_cwd(struct qdb *q);

/* Process `id` in a few words, as a denial names it: "12 cc1" (its program's base name), "?"
 * when the trace does not have it, "an unknown process" for 0. */
void query_append_short_process(GString *out, struct qdb *q, int64_t id);
