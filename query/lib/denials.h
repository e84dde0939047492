/* denials — what the build was refused (`run --only-inputs`, `--only-packages`): the trace's
 * denials table read grouped, for `files --denied`, `packages --denied`, `show`, `verify` and
 * their JSON.  Prints nothing.
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

/* A package the build reached for and did not get (run --only-packages): its files hidden
 * (sorted, each once) and the processes that asked (sorted; 0 unknown). */
struct denied_package {
    char *name;
    GPtrArray *paths;    /* char* (owned) */
    GArray *processes;   /* int64_t */
};

/* The packages of `d`'s denials that name one, by name (pure).  Free with g_ptr_array_unref. */
GPtrArray *denials_by_package(const GArray *d);

/* "lookup", "listing"; "undeclared", "package-not-allowed" (and "?" for a code this
 * buildtrail does not know). */
const char *denial_how_name(int how);
const char *denial_reason_name(int reason);
/* Why, in words: "undeclared", "package zlib1g-dev not allowed" (g_free). */
char *denial_why(const struct denial *d);
