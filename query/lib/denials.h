/* denials — what the build was refused (`run --only-inputs`): the trace's denials table read
 * grouped, for `files --denied`, `show`, `verify` and their JSON.  Prints nothing.
 *
 * denials_load(): every (file, process, how, reason) with how many times and the package, by
 * path then process; of image `process` only when it is non-zero.  A trace older than schema 8
 * recorded none: an empty array and *recorded false.  NULL on a database error (qdb has it).
 */
#pragma once

#include "qdb.h"

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

struct denial {
    char *path;
    int64_t process_id; /* 0: unknown caller */
    int how;            /* enum tracedb_denial_how */
    int reason;         /* enum tracedb_denial_reason */
    char *package;      /* NULL: not known */
    unsigned count;
};

GArray *denials_load(struct qdb *q, int64_t process, bool *recorded);
void denials_free(GArray *d);

/* How many distinct files `d` names. */
unsigned denials_n_files(const GArray *d);

/* "lookup", "listing"; "undeclared" (and "?" for a code this buildtrail does not know). */
const char *denial_how_name(int how);
const char *denial_reason_name(int reason);
