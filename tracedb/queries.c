/* queries — see queries.h. */
#include "queries.h"

#include "tracedb.h"

#include <glib.h>

static const char *const sql[TQ_COUNT] = {
    /* The recorder's writes (fusefs/recorder.c) and the run's end */
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
    [TQ_CHECKPOINT] = "PRAGMA wal_checkpoint(TRUNCATE)",
    /* Opening a trace (query/lib/qdb.c) */
    [TQ_READ_SETUP] = "PRAGMA mmap_size=4294967296; PRAGMA cache_size=-65536; BEGIN",
    [TQ_SCHEMA_VERSION] = "SELECT CAST(value AS INTEGER) FROM meta WHERE key='schema_version'",
    /* (SQLite takes "x IS NULL" to be false for a NOT NULL column: the first entry of the
     * column's index, where NULLs sort first, is looked at instead) */
    [TQ_NULL_WHERE_NOT_NULL] =
        "SELECT CASE WHEN (SELECT typeof(path) FROM files ORDER BY path LIMIT 1) = 'null' "
        "THEN 'files.path' WHEN (SELECT typeof(file_id) FROM accesses ORDER BY file_id LIMIT 1) "
        "= 'null' THEN 'accesses.file_id' WHEN EXISTS (SELECT 1 FROM runs WHERE typeof(argv) = "
        "'null' OR typeof(cwd) = 'null' OR typeof(state) = 'null' OR typeof(version) = 'null') "
        "THEN 'runs' END",
    [TQ_RUN_STATE] =
        "SELECT state, process_tree, start_realtime_ns, start_ns, end_ns, exit_status, "
        "failure, cwd, root_process_id, notes FROM runs ORDER BY id LIMIT 1",
    [TQ_RUN_STATE_V2] =
        "SELECT state, process_tree, start_realtime_ns, start_ns, end_ns, exit_status, NULL, "
        "cwd, root_process_id, notes FROM runs ORDER BY id LIMIT 1",
    [TQ_RUN_STATE_V1] =
        "SELECT state, NULL, start_realtime_ns, start_ns, end_ns, exit_status, NULL, cwd, "
        "root_process_id, notes FROM runs ORDER BY id LIMIT 1",
    [TQ_RUN_INFO] =
        "SELECT argv, cwd, hostname, version, state, start_realtime_ns, start_ns, end_ns, "
        "exit_status FROM runs ORDER BY id LIMIT 1",
    [TQ_RUN_OPTIONS] = "SELECT options FROM runs ORDER BY id LIMIT 1",
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
    [TQ_EXECUTABLES] = "SELECT DISTINCT exe FROM processes WHERE exe IS NOT NULL ORDER BY exe",
    [TQ_FAILED_RMDIRS] = "SELECT DISTINCT f.path FROM accesses a JOIN files f ON f.id = a.file_id "
                         "WHERE a.kind IN " TRACEDB_KINDS_RMDIR " AND a.result IN (39, 17) "
                         "ORDER BY length(f.path)",
    /* Processes */
    [TQ_PROCESSES] =
        "SELECT p.id, p.parent_id, p.prev_image_id, p.pid, p.exec_seq, p.orphan, p.start_ns, "
        "p.comm, p.exe, p.cwd, p.argv, e.end_ns, e.exit_code, e.exit_signal, e.killed_at_end "
        "FROM processes p LEFT JOIN exits e ON e.process_id = p.id",
    [TQ_PROCESS] =
        "SELECT p.id, p.parent_id, p.prev_image_id, p.pid, p.exec_seq, p.orphan, p.start_ns, "
        "p.comm, p.exe, p.cwd, p.argv, e.end_ns, e.exit_code, e.exit_signal, e.killed_at_end "
        "FROM processes p LEFT JOIN exits e ON e.process_id = p.id WHERE p.id=?",
    [TQ_PROCESSES_V1] =
        "SELECT p.id, p.parent_id, p.prev_image_id, p.pid, p.exec_seq, p.orphan, p.start_ns, "
        "p.comm, p.exe, p.cwd, p.argv, NULL, NULL, NULL, 0 FROM processes p",
    [TQ_PROCESS_V1] =
        "SELECT p.id, p.parent_id, p.prev_image_id, p.pid, p.exec_seq, p.orphan, p.start_ns, "
        "p.comm, p.exe, p.cwd, p.argv, NULL, NULL, NULL, 0 FROM processes p WHERE p.id=?",
    [TQ_PROCESSES_V2] =
        "SELECT p.id, p.parent_id, p.prev_image_id, p.pid, p.exec_seq, p.orphan, p.start_ns, "
        "p.comm, p.exe, p.cwd, p.argv, e.end_ns, e.exit_code, e.exit_signal, 0 FROM processes p "
        "LEFT JOIN exits e ON e.process_id = p.id",
    [TQ_PROCESS_V2] =
        "SELECT p.id, p.parent_id, p.prev_image_id, p.pid, p.exec_seq, p.orphan, p.start_ns, "
        "p.comm, p.exe, p.cwd, p.argv, e.end_ns, e.exit_code, e.exit_signal, 0 FROM processes p "
        "LEFT JOIN exits e ON e.process_id = p.id WHERE p.id=?",
    [TQ_KILLED_AT_END] =
        "SELECT p.id, p.argv FROM exits e JOIN processes p ON p.id = e.process_id "
        "WHERE e.killed_at_end ORDER BY p.id",
    [TQ_MARK_KILLED_AT_END] =
        "UPDATE exits SET killed_at_end = 1 WHERE exit_signal = 9 AND end_ns >= ?1",
    [TQ_CHILD_IMAGES] =
        "SELECT id FROM processes WHERE parent_id = ?1 AND (prev_image_id IS NULL OR "
        "prev_image_id NOT IN (SELECT id FROM processes WHERE parent_id = ?1)) ORDER BY id",
    [TQ_PROCESS_ENV] = "SELECT e.env FROM processes p JOIN environments e ON e.id = p.env_id "
                       "WHERE p.id = ?1",
    [TQ_NEXT_IMAGE] = "SELECT id FROM processes WHERE prev_image_id = ?1 LIMIT 1",
    [TQ_MAX_PROCESS_ID] = "SELECT COALESCE(MAX(id), 0) FROM processes",
    /* Files and paths */
    [TQ_FILE_ID_BY_PATH] = "SELECT id FROM files WHERE path=?",
    [TQ_FILE_PATH] = "SELECT path FROM files WHERE id = ?",
    [TQ_FILE_PATHS] = "SELECT id, path FROM files",
    [TQ_FILES_NAMED] = "SELECT path FROM files WHERE length(path) > length(?1) "
                       "AND substr(path, -length(?1)) = ?1 AND EXISTS (SELECT 1 FROM accesses a "
                       "WHERE a.file_id = files.id AND a.result = 0) ORDER BY path LIMIT ?2",
    [TQ_MAX_FILE_ID] = "SELECT COALESCE(MAX(id), 0) FROM files",
    [TQ_TREES] = "SELECT path, role FROM trees",
    [TQ_SYSTEM_TREES_TRACED] = "SELECT count(*) FROM trees WHERE path IN ('/usr', '/') AND ?1 = ?1",
    /* Accesses */
    [TQ_WRITERS_OF_FILE] =
        "SELECT process_id, kind, SUM(COALESCE(bytes,0)), COUNT(*), MIN(first_ns) AS t FROM "
        "accesses WHERE file_id=? AND result=0 AND kind IN " TRACEDB_KINDS_WROTE_PATH
        " AND (kind != 2 OR bytes > 0) GROUP BY process_id, kind ORDER BY t, process_id, kind",
    [TQ_READERS_OF_FILE] =
        "SELECT process_id, kind, SUM(COALESCE(bytes,0)), COUNT(*), MIN(first_ns) AS t FROM "
        "accesses WHERE file_id=? AND result=0 AND kind IN " TRACEDB_KINDS_READ
        " GROUP BY process_id, kind ORDER BY t, process_id, kind",
    [TQ_FILE_USES_OF_PROCESS] =
        "SELECT f.path, a.kind, SUM(COALESCE(a.bytes, 0)), COUNT(*), MIN(a.result), "
        "MAX(a.version_id), MIN(a.first_ns) AS t FROM accesses a JOIN files f ON f.id = "
        "a.file_id WHERE a.process_id = ? GROUP BY a.file_id, a.kind, a.version_id ORDER BY "
        "t, a.kind",
    [TQ_FILE_USES_OF_PROCESS_V1] =
        "SELECT f.path, a.kind, SUM(COALESCE(a.bytes, 0)), COUNT(*), MIN(a.result), "
        "MAX(NULL), MIN(a.first_ns) AS t FROM accesses a JOIN files f ON f.id = a.file_id "
        "WHERE a.process_id = ? GROUP BY a.file_id, a.kind ORDER BY t, a.kind",
    [TQ_ACCESS_MARKS] =
        "SELECT file_id, kind, result, bytes, first_ns FROM accesses NOT INDEXED "
        "WHERE ?1 = 0 OR process_id = ?1",
    [TQ_BINDINGS] = "SELECT file_id, version_id, kind, first_ns, id FROM accesses NOT INDEXED "
                    "WHERE result = 0",
    [TQ_LAST_BINDING_KIND] =
        "SELECT kind FROM accesses WHERE file_id = ?1 AND result = 0 AND kind IN "
        TRACEDB_KINDS_BOUND " ORDER BY first_ns DESC, id DESC LIMIT 1",
    /* Versions and provenance (query/lib/prov.c and the exports) */
    [TQ_VERSION_BY_ID] = "SELECT v.id, v.file_id, v.origin, v.base_id, v.size, hex(v.sha256), "
        "hex(v.git_sha1),  v.hash_error, hex(v.sha1), (SELECT a.file_id FROM accesses a "
        "WHERE a.version_id = v.id AND  a.kind IN " TRACEDB_KINDS_PLACED
        " AND a.result = 0 ORDER BY a.first_ns DESC, a.id DESC LIMIT 1) FROM versions v "
        "WHERE v.id = ?",
    [TQ_VERSIONS] =
        "SELECT id, file_id, origin, base_id, size, hex(sha256), hex(git_sha1), hash_error, "
        "hex(sha1) FROM versions",
    [TQ_MAX_ACCESS_ID] = "SELECT COALESCE(MAX(id), 0) FROM accesses",
    [TQ_PLACEMENTS] =
        "SELECT version_id, file_id, first_ns FROM accesses WHERE kind IN " TRACEDB_KINDS_PLACED
        " AND result = 0 AND version_id IS NOT NULL ORDER BY id",
    [TQ_MAX_VERSION_ID] = "SELECT COALESCE(MAX(id), 0) FROM versions",
    [TQ_VERSION_AT_FILE] =
        "SELECT version_id FROM accesses WHERE file_id = ? AND version_id IS NOT NULL AND "
        "result = 0 AND kind NOT IN " TRACEDB_KINDS_GONE
        " ORDER BY first_ns DESC, id DESC LIMIT 1",
    [TQ_VERSIONS_OF_FILE] =
        "SELECT version_id FROM accesses WHERE file_id = ?1 AND version_id IS NOT NULL AND "
        "result = 0 UNION SELECT id FROM versions WHERE file_id = ?1 ORDER BY 1",
    [TQ_VERSIONS_BASED_ON] = "SELECT id FROM versions WHERE base_id = ?",
    [TQ_SUCCESSFUL_ACCESSES] =
        "SELECT process_id, version_id, kind, first_ns, last_ns, file_id, id, "
        "COALESCE(open_flags, -1) FROM accesses NOT INDEXED WHERE result = 0",
    [TQ_WRITERS_OF_VERSION] =
        "SELECT process_id, MAX(last_ns) FROM accesses WHERE version_id = ? AND kind IN "
        TRACEDB_KINDS_MADE " AND result = 0 AND process_id IS NOT NULL GROUP BY process_id",
    [TQ_READS_OF_PROCESS] =
        "SELECT version_id, first_ns, file_id, kind, COALESCE(open_flags, -1) FROM accesses "
        "WHERE process_id = ? AND kind IN " TRACEDB_KINDS_READ
        " AND result = 0 AND version_id IS NOT NULL AND first_ns >= ? AND first_ns <= ?",
    [TQ_READERS_OF_VERSION] =
        "SELECT process_id, MIN(first_ns) FROM accesses WHERE version_id = ? AND kind IN "
        TRACEDB_KINDS_READ " AND result = 0 AND process_id IS NOT NULL GROUP BY process_id",
    [TQ_WRITES_OF_PROCESS] =
        "SELECT version_id, MAX(last_ns) FROM accesses WHERE process_id = ? AND kind IN "
        TRACEDB_KINDS_MADE
        " AND result = 0 AND version_id IS NOT NULL AND last_ns >= ? AND last_ns <= ? GROUP "
        "BY version_id",
    [TQ_MAKERS_OF_VERSION] =
        "SELECT DISTINCT process_id FROM accesses WHERE version_id = ?1 AND kind IN "
        TRACEDB_KINDS_MADE " AND result = 0 AND process_id IS NOT NULL",
    [TQ_USERS_OF_VERSION] =
        "SELECT process_id, kind FROM accesses WHERE version_id = ? AND result = 0 AND "
        "process_id IS NOT NULL AND kind IN " TRACEDB_KINDS_USED,
    [TQ_USES] =
        "SELECT process_id, version_id, kind, first_ns, last_ns FROM accesses NOT INDEXED "
        "WHERE version_id IS NOT NULL AND process_id IS NOT NULL AND result = 0 AND kind IN "
        TRACEDB_KINDS_USED,
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
    [TQ_SYMLINKS_FOLLOWED] =
        "SELECT DISTINCT f.path FROM accesses a JOIN files f ON f.id = a.file_id WHERE a.kind IN "
        TRACEDB_KINDS_FOLLOWED " AND a.result = 0 AND ?1 = ?1",
    [TQ_BINDINGS_BY_FILE] = /* (only where the build wrote or placed a version: products) */
        "SELECT a.file_id, a.kind, a.version_id FROM accesses a WHERE (a.file_id IN (SELECT "
        "file_id FROM versions WHERE origin = 2) OR a.file_id IN (SELECT file_id FROM accesses "
        "WHERE kind IN " TRACEDB_KINDS_PLACED " AND result = 0)) AND a.result = 0 AND a.kind IN "
        TRACEDB_KINDS_BOUND " ORDER BY a.file_id, a.first_ns, a.id",
    [TQ_WRITER_OF_VERSION] =
        "SELECT process_id FROM accesses WHERE version_id = ?1 AND kind IN " TRACEDB_KINDS_MADE
        " AND result = 0 AND process_id IS NOT NULL ORDER BY (kind = 2 AND bytes > 0) DESC, "
        "last_ns DESC LIMIT 1",
    [TQ_DIRS_LISTED_BY_PROCESS] =
        "SELECT count(*) FROM accesses WHERE process_id = ?1 AND kind IN " TRACEDB_KINDS_LISTED,
    [TQ_ENVIRONMENTS] = "SELECT env FROM environments WHERE ?1 = ?1 ORDER BY id",
    [TQ_FOUND_INPUTS] =
        "SELECT DISTINCT f.path, lower(hex(v.sha256)) FROM accesses a JOIN versions v ON "
        "v.id = a.version_id JOIN files f ON f.id = a.file_id WHERE a.kind IN " TRACEDB_KINDS_READ
        " AND a.result = 0 AND v.origin = 1 ORDER BY f.path",
    /* Output */
    [TQ_OUTPUT_CHUNKS] =
        "SELECT seq, COALESCE(process_id, 0), stream, time_ns, data FROM output WHERE (?1 = "
        "0 OR process_id = ?1) AND (?2 = 0 OR stream = ?2) ORDER BY seq",
    [TQ_OUTPUT_OF_PROCESS] = "SELECT stream, data FROM output WHERE process_id = ? ORDER BY seq",
};

const char *tracedb_sql(enum tracedb_query q)
{
    return (unsigned)q < TQ_COUNT ? sql[q] : NULL;
}
