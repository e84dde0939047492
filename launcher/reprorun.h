/* reprorun — the builds of `buildtrail repro`: the output directory, a copy of the source tree
 * per build, and each build traced by this same binary's `run` (a child process), with the
 * signals that stop it passed on.  Prints nothing; `query/cmd/repro.c` says what happened.
 *
 * Layout of the output directory OUT (each copy has its own parent, since a Debian source
 * tree's packages land in `..`):
 *     OUT/build/NAME          where a build runs at the control's path (renamed afterwards)
 *     OUT/build-at-another-path/NAME   where a build runs when build_path is varied (a
 *                             different path, and a different length)
 *     OUT/SLOT/NAME           the copy once built (SLOT: control, experiment, bisect-N);
 *                             what the build left in `..` beside it, in OUT/SLOT
 *     OUT/SLOT.db, OUT/SLOT.log   its trace and the build's output (stdout and stderr)
 * So two builds without build_path ran at one path, as reprotest does; every copy and trace
 * is kept.
 *
 * Contract
 *   - reprorun_outdir checks -o DIR (absent, or an empty directory the caller can write in;
 *     never a file or a directory with entries, never inside `src`, a real path, once DIR's
 *     parent's symbolic links are resolved), creating nothing (reprorun_outdir_make does, once every other
 *     check passed); or, with NULL, makes a new directory beside the source tree, NAME.repro
 *     or the first NAME.repro-N free (made at once: two repro started together in one tree
 *     never share one).
 *   - reprorun_signals_begin installs handlers for SIGINT, SIGTERM, SIGHUP and SIGQUIT that
 *     remember the first signal and pass a signal sent by a process (kill, not the terminal,
 *     which reaches the whole process group already) on to the current child; between
 *     children reprorun_stopped() says a signal came.  The children are waited for: nothing
 *     is left running.
 *   - reprorun_build copies SRC, runs `buildtrail run -q -o OUT/SLOT.db RUN_ARGS... -- CMD`
 *     in the copy and renames the copy into OUT/SLOT.  Returns 0 (b->status is run's exit
 *     status: the build's, or 128+signal), or a negative errno with *err saying what failed
 *     (g_free it); -EINTR when a signal stopped it (the copy left where it was, b->copy says
 *     where).  b's strings are the caller's to free (reprorun_build_clear).
 */
#pragma once

#include <signal.h>
#include <stdbool.h>

struct reprorun_build {
    char *slot;     /* "control", "experiment", "bisect-3" */
    char *built_at; /* the copy's path while it was built (what the trace says) */
    char *copy;     /* where the copy is now */
    char *trace;    /* OUT/SLOT.db */
    char *log;      /* OUT/SLOT.log */
    int status;     /* run's exit status */
};

/* -o DIR (or NULL: a new name beside `src`) into *out (g_free it); 0, or -errno with *err. */
int reprorun_outdir(const char *arg, const char *src, char **out, char **err);
/* Create OUT (mode 0755 as the umask allows); 0 or -errno. */
int reprorun_outdir_make(const char *out);

void reprorun_signals_begin(void);
void reprorun_signals_end(void);
/* The signal that came since reprorun_signals_begin, or 0. */
int reprorun_stopped(void);
/* The flag behind it, for a reader to check as it goes (archive_limits.cancel). */
const volatile sig_atomic_t *reprorun_stop_flag(void);

/* The build `slot`: a copy of `src` built at the control's path, or (other_path) at another. */
int reprorun_build(const char *out, const char *src, const char *slot, bool other_path,
                   const char *const *run_args, const char *const *cmd,
                   struct reprorun_build *b, char **err);
void reprorun_build_clear(struct reprorun_build *b);
