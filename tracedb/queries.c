/* queries — see queries.h. */
#include "queries.h"

#include "tracedb.h"

#include <glib.h>

static const char *const sql[TQ_COUNT] = {
    /* Writes: the recorder's rows and the run's end */
    [TQ_INSERT_PROCESS] =
        "INSERT INTO processes (id, pid, start_ticks, exec_seq, parent_id, prev_image_id, "
        "orphan, start_ns, first_seen_ns, comm, exe, cwd, argv, env_id) VALUES "
        "(?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [TQ_INSERT_FILE] = "INSERT INTO files (id, path) VALUES (?, ?)",
    [TQ_INSERT_ACCESS] =
        "INSERT INTO accesses (process_id, file_id, kind, open_flags, bytes, first_ns, "
        "last_ns, result, version_id) VALUES (?,?,?,?,?,?,?,?,?)",
    [TQ_INSERT_VERSION] =
        "INSERT INTO versions (id, file_id, origin, base_id, begin_ns, end_ns, size, sha256, "
        "git_sha1, hash_error, sha1) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
    [TQ_INSERT_OUTPUT] = "INSERT INTO output (process_id, stream, time_ns, data) VALUES (?,?,?,?)",
    [TQ_INSERT_EXIT] =
        "INSERT OR REPLACE INTO exits (process_id, end_ns, exit_code, exit_signal) VALUES "
        "(?,?,?,?)",
    [TQ_INSERT_ENV] = "INSERT INTO environments (id, env) VALUES (?, ?)",
    [TQ_INSERT_DENIAL] = "INSERT INTO denials (process_id, file_id, how, reason, package, "
                         "time_ns) VALUES (?,?,?,?,?,?)",
    /* The run and the trace as a whole */
    [TQ_COUNTS] =
        "SELECT (SELECT count(*) FROM (SELECT DISTINCT pid, start_ticks FROM processes)), "
        "(SELECT count(*) FROM processes WHERE exec_seq > 0 OR parent_id IS NULL), "
        "(SELECT count(DISTINCT a.file_id) FROM accesses a JOIN versions v ON v.id = "
        "a.version_id WHERE a.kind IN " TRACEDB_KINDS_READ " AND a.result = 0 AND v.origin = 1), "
        "(SELECT count(DISTINCT file_id) FROM accesses WHERE kind IN " TRACEDB_KINDS_PRODUCED
        " AND result = 0 AND version_id IS NOT NULL), "
        "(SELECT count(*) FROM versions WHERE origin = 2), "
        "(SELECT COALESCE(sum(length(data)), 0) FROM output)",
    [TQ_COUNTS_V2] =
        "SELECT (SELECT count(*) FROM (SELECT DISTINCT pid, start_ticks FROM processes)), "
        "(SELECT count(*) FROM processes WHERE exec_seq > 0 OR parent_id IS NULL), "
        "(SELECT count(DISTINCT file_id) FROM accesses WHERE kind IN " TRACEDB_KINDS_READ
        " AND result = 0 AND file_id NOT IN (SELECT file_id FROM accesses WHERE kind IN "
        TRACEDB_KINDS_PRODUCED " AND result = 0)), "
        "(SELECT count(DISTINCT file_id) FROM accesses WHERE kind IN " TRACEDB_KINDS_PRODUCED
        " AND result = 0), 0, "
        "(SELECT COALESCE(sum(length(data)), 0) FROM output)",
    [TQ_FAILED_RMDIRS] = "SELECT DISTINCT f.path FROM accesses a JOIN files f ON f.id = a.file_id "
                         "WHERE a.kind IN " TRACEDB_KINDS_RMDIR " AND a.result IN (39, 17) "
                         "ORDER BY length(f.path)",
    /* Processes */
    [TQ_KILLED_AT_END] =
        "SELECT p.id, p.argv FROM exits e JOIN processes p ON p.id = e.process_id "
        "WHERE e.killed_at_end ORDER BY p.id",
    [TQ_MAX_PROCESS_ID] = "SELECT COALESCE(MAX(id), 0) FROM processes",
    /* Files and paths */
    [TQ_FILE_PATHS] = "SELECT id, path FROM files",
    [TQ_TREES] = "SELECT path, role FROM trees",
    [TQ_SYSTEM_TREES_TRACED] = "SELECT count(*) FROM trees WHERE path IN ('/usr', '/') AND ?1 = ?1",
    [TQ_VARIATIONS] = "SELECT name, side, value, applied, why_not FROM variations ORDER BY rowid",
    /* Accesses */
    [TQ_WRITERS_OF_FILE] =
        "SELECT process_id, kind, SUM(COALESCE(bytes,0)), COUNT(*), MIN(first_ns) AS t FROM "
        "accesses WHERE file_id=? AND result=0 AND kind IN " TRACEDB_KINDS_WROTE_PATH
        " AND (kind != 2 OR bytes > 0) GROUP BY process_id, kind ORDER BY t, process_id, kind",
    /* Versions and provenance */
    [TQ_VERSIONS_READ_BY_PROCESS] =
        "SELECT DISTINCT version_id FROM accesses WHERE process_id = ?1 AND kind IN "
        TRACEDB_KINDS_READ " AND result = 0 AND version_id IS NOT NULL",
    [TQ_VERSIONS_MADE_BY_PROCESS] =
        "SELECT DISTINCT version_id FROM accesses WHERE process_id = ?1 AND kind IN "
        TRACEDB_KINDS_MADE " AND result = 0 AND version_id IS NOT NULL",
    [TQ_VERSIONS_OPENED_BY_PROCESS] =
        "SELECT DISTINCT version_id FROM accesses WHERE process_id = ?1 AND kind IN "
        TRACEDB_KINDS_OPENED_READ " AND result = 0 AND version_id IS NOT NULL",
    [TQ_VERSIONS_EXECUTED_BY_PROCESS] =
        "SELECT DISTINCT version_id FROM accesses WHERE process_id = ?1 AND kind IN "
        TRACEDB_KINDS_EXEC " AND result = 0 AND version_id IS NOT NULL",
    [TQ_FOUND_READS_WITH_PATHS] =
        "SELECT DISTINCT f.path, a.kind, a.version_id, a.process_id FROM accesses a JOIN files f "
        "ON f.id = a.file_id JOIN versions v ON v.id = a.version_id WHERE a.kind IN "
        TRACEDB_KINDS_READ " AND a.result = 0 AND v.origin = 1 ORDER BY f.path, a.kind, "
        "a.version_id",
    [TQ_ACTIVITY] = "SELECT process_id, kind, file_id, bytes, last_ns, result FROM accesses "
                    "NOT INDEXED",
    [TQ_LAST_OUTPUT] = "SELECT process_id, MAX(time_ns) FROM output GROUP BY process_id",
    [TQ_SYMLINKS_FOLLOWED] =
        "SELECT DISTINCT f.path FROM accesses a JOIN files f ON f.id = a.file_id WHERE a.kind IN "
        TRACEDB_KINDS_FOLLOWED " AND a.result = 0 AND ?1 = ?1",
};

const char *tracedb_sql(enum tracedb_query q)
{
    return (unsigned)q < TQ_COUNT ? sql[q] : NULL;
}

/* The schema versions a statement is written for, where that is not every version: what
 * came later (accesses.version_id and versions 3, environments 5, exits.killed_at_end 7,
 * denials 8, variations 9), and
 * the recorder's writes, which are for the current schema only. */
#define NOW TRACEDB_SCHEMA_VERSION
static const struct {
    int min, max;
} schemas[TQ_COUNT] = {
    [TQ_INSERT_PROCESS] = {NOW, NOW},
    [TQ_INSERT_FILE] = {NOW, NOW},
    [TQ_INSERT_ACCESS] = {NOW, NOW},
    [TQ_INSERT_VERSION] = {NOW, NOW},
    [TQ_INSERT_OUTPUT] = {NOW, NOW},
    [TQ_INSERT_EXIT] = {NOW, NOW},
    [TQ_INSERT_ENV] = {NOW, NOW},
    [TQ_INSERT_DENIAL] = {NOW, NOW},
    [TQ_COUNTS] = {3, NOW},
    [TQ_COUNTS_V2] = {1, 2},
    [TQ_KILLED_AT_END] = {7, NOW},
    [TQ_VARIATIONS] = {9, NOW},
    [TQ_VERSIONS_READ_BY_PROCESS] = {3, NOW},
    [TQ_VERSIONS_MADE_BY_PROCESS] = {3, NOW},
    [TQ_VERSIONS_OPENED_BY_PROCESS] = {3, NOW},
    [TQ_VERSIONS_EXECUTED_BY_PROCESS] = {3, NOW},
    [TQ_FOUND_READS_WITH_PATHS] = {3, NOW},
    [TQ_ACTIVITY] = {1, NOW},
    [TQ_LAST_OUTPUT] = {1, NOW},
};

bool tracedb_sql_schemas(enum tracedb_query q, int *min, int *max)
{
    if ((unsigned)q >= TQ_COUNT)
        return false;
    *min = schemas[q].min ? schemas[q].min : 1;
    *max = schemas[q].max ? schemas[q].max : NOW;
    return true;
}
