/* queries — the statements on a trace that belong to no one reader, by name: the recorder's
 * writes, and the reads several modules share.  A statement with one reader is declared beside
 * it instead (TRACEDB_STATEMENT, stmt.h), with an enum naming its columns.
 *
 * Contract
 *   - tracedb_sql(TQ_X) is the SQL text of statement X (static storage); each name's comment
 *     says what a row holds and what ?N binds, never who asks.  Callers prepare it on their
 *     handle (the reader library checks every result: query/lib/qdb.h).
 *   - tracedb_sql_schemas(TQ_X, &min, &max): the schema versions X is written for (the _V1/_V2
 *     variants are for traces of older schema versions: the caller picks by meta
 *     schema_version; the recorder's writes only for the current one).
 *     tests/unit/test-statements prepares each against a trace of every version in its range.
 *   - Access kinds are the named sets of tracedb.h, never numbers.
 *   - A schema change touches schema.c's migrations, the statements here and the
 *     TRACEDB_STATEMENTs beside their readers that name what changed (tracedb_statements()
 *     lists them; the unit test above finds each one that no longer prepares).
 */
#pragma once

#include <stdbool.h>

enum tracedb_query {
    /* Writes: the recorder's rows and the run's end (the current schema only) */
    TQ_INSERT_PROCESS, /* one process image */
    TQ_INSERT_FILE, /* a path and its id */
    TQ_INSERT_ACCESS, /* one access */
    TQ_INSERT_VERSION, /* one file version */
    TQ_INSERT_OUTPUT, /* one chunk of stdout/stderr */
    TQ_INSERT_EXIT, /* a process exit */
    TQ_INSERT_ENV, /* an environment and its id */
    TQ_INSERT_DENIAL, /* a file hidden from a process (schema 8) */

    /* The run and the trace as a whole */
    TQ_COUNTS, /* processes, images, files read, written, versions, output bytes (schema 3 on) */
    /* TQ_COUNTS for schemas 1 and 2 (no versions): files read are the files read and not
     * written, files written those written, versions 0 */
    TQ_COUNTS_V2,
    /* every distinct directory whose removal failed as not empty (ENOTEMPTY, or EEXIST as
     * POSIX allows), shortest first */
    TQ_FAILED_RMDIRS,

    /* Processes */
    TQ_KILLED_AT_END, /* (id, argv) of every process killed at the end, by id (schema 7) */
    TQ_MAX_PROCESS_ID, /* the largest image id */

    /* Files and paths */
    TQ_FILE_PATHS, /* every (id, path) */
    TQ_TREES, /* the traced trees: (path, role) */
    TQ_SYSTEM_TREES_TRACED, /* how many of / and /usr were traced (?1 unused) */
    /* the variations the run made (run --vary, --vary-control), in the order recorded:
     * columns enum tq_variations (schema 9) */
    TQ_VARIATIONS,

    /* Accesses */
    /* (process, kind, bytes, count, first time) of every image that wrote file ?1 (a kind of
     * TRACEDB_KINDS_WROTE_PATH; a write only with bytes), by time */
    TQ_WRITERS_OF_FILE,
    TQ_ACTIVITY,    /* every access, a scan: columns enum tq_activity */
    TQ_LAST_OUTPUT, /* each process's last output time, a scan: columns enum tq_last_output */

    /* Versions and provenance */
    TQ_VERSIONS_READ_BY_PROCESS, /* the versions image ?1 read or executed */
    TQ_VERSIONS_MADE_BY_PROCESS, /* the versions image ?1 made */
    TQ_VERSIONS_OPENED_BY_PROCESS, /* the versions image ?1 opened for reading */
    TQ_VERSIONS_EXECUTED_BY_PROCESS, /* the versions image ?1 executed */
    /* (path, kind, version, image) of every found file read or executed, by path, kind,
     * version */
    TQ_FOUND_READS_WITH_PATHS,
    TQ_SYMLINKS_FOLLOWED, /* the paths of symlinks the build read (?1 unused) */
    TQ_COUNT
};

/* The columns of TQ_ACTIVITY and TQ_LAST_OUTPUT, in order. */
enum tq_activity {
    TQ_ACTIVITY_PROCESS, TQ_ACTIVITY_KIND, TQ_ACTIVITY_FILE, TQ_ACTIVITY_BYTES,
    TQ_ACTIVITY_LAST, TQ_ACTIVITY_RESULT
};
enum tq_last_output { TQ_LAST_OUTPUT_PROCESS, TQ_LAST_OUTPUT_TIME };
enum tq_variations {
    TQ_VARIATIONS_NAME, TQ_VARIATIONS_SIDE, TQ_VARIATIONS_VALUE, TQ_VARIATIONS_APPLIED,
    TQ_VARIATIONS_WHY_NOT
};

const char *tracedb_sql(enum tracedb_query q);

/* The schema versions statement q is written for, in *min and *max (both from 1 to
 * TRACEDB_SCHEMA_VERSION); false for a q that is not a statement. */
bool tracedb_sql_schemas(enum tracedb_query q, int *min, int *max);
