/* common — pieces shared by the query commands (internal to query/).
 *
 * Contract: main-level helpers.  query_open() prints the one-line error itself and returns
 * NULL; process formatting appends to a caller-owned GString.
 */
#pragma once

#include "qdb.h"

#include <glib.h>
#include <stdbool.h>

#define QUERY_DEFAULT_DB "buildtrail.db"

/* Options every query takes: -d/--db FILE, --json, -h/--help. */
struct query_opts {
    const char *db_path; /* NULL: ./buildtrail.db */
    bool json;
};
#define QUERY_COMMON_LONGOPTS                                                                      \
    {"db", required_argument, NULL, 'd'}, {"json", no_argument, NULL, 'j'},                        \
        {"help", no_argument, NULL, 'h'}
#define QUERY_COMMON_SHORTOPTS "d:h"

/* Store a common option (getopt_long's `c` and optarg): true if it was one. */
bool query_common_option(int c, const char *arg, struct query_opts *o);

/* For commands that take no operands: 0 if none are left after the options, else a usage
 * error is printed and 2 returned. */
int query_no_operands(const char *cmd, int argc, char **argv);

/* Open the trace for `cmd`, or print why not (with the fix) and return NULL. */
struct qdb *query_open(const char *cmd, const char *db_path);

/* "[ID] argv…" for people. */
void query_text_process(GString *out, const struct qdb_process *p);
/* "  [exit N]" / "  [killed by signal N]" when the process failed (nothing for exit 0). */
void query_text_exit(GString *out, const struct qdb_process *p);
/* {"id":…, "pid":…, "exe":…, "argv":[…], "cwd":…, "parent":…} */
void query_json_process(GString *out, const struct qdb_process *p);

/* Write a GString to stdout in full; returns 0 or 1 (for an exit status). */
int query_emit(GString *out);
