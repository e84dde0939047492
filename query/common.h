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

/* Open the trace for `cmd`, or print why not (with the fix) and return NULL. */
struct qdb *query_open(const char *cmd, const char *db_path);

/* "[ID] argv…" for people. */
void query_text_process(GString *out, const struct qdb_process *p);
/* {"id":…, "pid":…, "exe":…, "argv":[…], "cwd":…, "parent":…} */
void query_json_process(GString *out, const struct qdb_process *p);

/* Write a GString to stdout in full; returns 0 or 1 (for an exit status). */
int query_emit(GString *out);
