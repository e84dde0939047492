/* queries — every statement on a trace, by name: with tracedb.c, the only code that names the
 * trace's tables and columns.  A schema change is made here and in tracedb.c's migrations,
 * and nowhere else.
 *
 * Contract
 *   - tracedb_sql(TQ_X) is the SQL text of statement X (static storage); each name's comment
 *     says what a row holds and what ?N binds.  Callers prepare it on their handle (the
 *     reader library checks every result: query/lib/qdb.h).
 *   - Statements named _V1/_V2 are for traces of older schema versions; the caller picks by
 *     meta schema_version.
 *   - Access kinds are the named sets of tracedb.h, never numbers.
 */
#pragma once

enum tracedb_query {
    /* The recorder's writes (fusefs/recorder.c) and the run's end */
    TQ_INSERT_PROCESS, /* one process image */
    TQ_INSERT_FILE, /* a path and its id */
    TQ_INSERT_ACCESS, /* one access */
    TQ_INSERT_VERSION, /* one file version */
    TQ_INSERT_OUTPUT, /* one chunk of stdout/stderr */
    TQ_INSERT_EXIT, /* a process exit */
    TQ_INSERT_ENV, /* an environment and its id */
    TQ_CHECKPOINT, /* move the WAL into the trace (before writing the run's end after a failure) */

    /* Opening a trace (query/lib/qdb.c) */
    TQ_READ_SETUP, /* memory-mapped reads, a large cache, one read transaction */
    TQ_SCHEMA_VERSION, /* meta schema_version */
    /* the first of files.path, accesses.file_id and the runs row that has a NULL where its
     * column is NOT NULL (a crafted file: SQLite checks only what it writes), or NULL */
    TQ_NULL_WHERE_NOT_NULL,
    /* state, process_tree, start_realtime_ns, start_ns, end_ns, exit_status, failure, cwd
     * (schema 4) */
    TQ_RUN_STATE,
    TQ_RUN_STATE_V2, /* the same for schema 2 and 3 (no failure) */
    TQ_RUN_STATE_V1, /* the same for schema 1 (no process_tree) */
    /* argv, cwd, hostname, version, state, start_realtime_ns, start_ns, end_ns, exit_status */
    TQ_RUN_INFO,
    TQ_RUN_OPTIONS, /* runs.options (schema 6) */
    TQ_COUNTS, /* tracedb_count: processes, images, files read, written, versions, output */
    /* TQ_COUNTS for schemas 1 and 2 (no versions): files read are the files read and not
     * written, files written those written, versions 0 */
    TQ_COUNTS_V2,
    TQ_EXECUTABLES, /* every distinct executable path the build ran */
    /* every distinct directory whose removal failed as not empty (ENOTEMPTY, or EEXIST as
     * POSIX allows): tracedb_removal_blocked */
    TQ_FAILED_RMDIRS,

    /* Processes */
    /* every image: id, parent, prev image, pid, exec_seq, orphan, start_ns, comm, exe, cwd,
     * argv, end_ns, exit_code, exit_signal, killed_at_end */
    TQ_PROCESSES,
    TQ_PROCESS, /* the same for image ?1 */
    TQ_PROCESSES_V1, /* TQ_PROCESSES for schema 1 (no exits) */
    TQ_PROCESS_V1, /* TQ_PROCESS for schema 1 */
    TQ_PROCESSES_V2, /* TQ_PROCESSES for schemas 2-6 (no killed_at_end) */
    TQ_PROCESS_V2, /* TQ_PROCESS for schemas 2-6 */
    TQ_KILLED_AT_END, /* (id, argv) of every process killed at the end, by id (schema 7) */
    TQ_MARK_KILLED_AT_END, /* run: the exits by SIGKILL at or after ?1 (ns) were killed at the end */
    TQ_CHILD_IMAGES, /* ?1's children (forks, not the exec chain) */
    TQ_NEXT_IMAGE, /* the image that replaced ?1 by exec */
    TQ_PROCESS_ENV, /* the environment of image ?1 (schema 5) */
    TQ_MAX_PROCESS_ID, /* the largest image id */

    /* Files and paths */
    TQ_FILE_ID_BY_PATH, /* ?1: a path */
    TQ_FILE_PATH, /* the path of file ?1 */
    TQ_FILE_PATHS, /* every (id, path) */
    TQ_FILES_NAMED, /* the paths ending in ?1 ("/NAME") that an access found, sorted, at most ?2 */
    TQ_MAX_FILE_ID, /* the largest file id */
    TQ_TREES, /* the traced trees: (path, role) */
    TQ_SYSTEM_TREES_TRACED, /* how many of / and /usr were traced (?1 unused) */

    /* Accesses */
    TQ_WRITERS_OF_FILE, /* who-wrote ?1: (process, kind, bytes, count, first time) */
    TQ_READERS_OF_FILE, /* who-read ?1: the same */
    TQ_FILE_USES_OF_PROCESS, /* show: what image ?1 did to each file, with versions */
    TQ_FILE_USES_OF_PROCESS_V1, /* the same before schema 3 */
    TQ_ACCESS_MARKS, /* files: (file, kind, result, bytes, first) of every access, or ?1's */
    TQ_BINDINGS, /* every successful access: file, version, kind, time, id (a scan) */
    TQ_LAST_BINDING_KIND, /* the kind of the last access that bound a version at file ?1 */

    /* Versions and provenance (query/lib/prov.c and the exports) */
    TQ_VERSION_BY_ID, /* version ?1 with its hashes and where it was last moved to */
    TQ_VERSIONS, /* every version with its hashes */
    TQ_MAX_ACCESS_ID, /* the largest access id (0: none): an upper bound on their number */
    TQ_PLACEMENTS, /* every rename_to/link that put a version at a path: (version, file,
                    * first_ns), in id order */
    TQ_MAX_VERSION_ID, /* the largest version id */
    TQ_VERSION_AT_FILE, /* the version file ?1 held last */
    TQ_VERSIONS_OF_FILE, /* every version seen at file ?1 */
    TQ_VERSIONS_BASED_ON, /* versions written on top of ?1 */
    TQ_SUCCESSFUL_ACCESSES, /* every successful access: the provenance graph (those bound to a
                             * version) and the bindings in one scan */
    TQ_WRITERS_OF_VERSION, /* (process, last write) of the images that made version ?1 */
    TQ_READS_OF_PROCESS, /* (version, first, file, kind) image ?1 read with a start in [?2, ?3] */
    TQ_READERS_OF_VERSION, /* (process, first read) of the images that read version ?1 */
    TQ_WRITES_OF_PROCESS, /* (version, last write) image ?1 made with an end in [?2, ?3] */
    TQ_MAKERS_OF_VERSION, /* the images that made version ?1 */
    TQ_USERS_OF_VERSION, /* (process, kind) of every image that read or made version ?1 */
    TQ_USES, /* prov: (process, version, kind, first, last) of every successful use (a scan) */
    TQ_VERSIONS_READ_BY_PROCESS, /* the versions image ?1 read or executed */
    TQ_VERSIONS_MADE_BY_PROCESS, /* the versions image ?1 made */
    TQ_VERSIONS_OPENED_BY_PROCESS, /* the versions image ?1 opened for reading */
    TQ_VERSIONS_EXECUTED_BY_PROCESS, /* the versions image ?1 executed */
    /* packages: (path, kind, version, image) of every found file read or executed, by path,
     * kind, version */
    TQ_FOUND_READS_WITH_PATHS,
    TQ_SYMLINKS_FOLLOWED, /* packages: the paths of symlinks the build read (?1 unused) */
    TQ_ENVIRONMENTS,
    TQ_BINDINGS_BY_FILE, /* prov_products: (file, kind, version) of every binding of the
                          * files the build wrote, by file then time */
    TQ_WRITER_OF_VERSION, /* diff: the image that wrote version ?1's bytes (else made it) */
    TQ_DIRS_LISTED_BY_PROCESS, /* diff: how many directories image ?1 listed */ /* every recorded environment, in the order first seen (schema 5; ?1 unused) */
    TQ_FOUND_INPUTS, /* verify: (path, sha256) of every found file read or executed, by path */

    /* Output */
    /* log: (seq, process, stream, time, data), filtered by ?1 process and ?2 stream (0: all) */
    TQ_OUTPUT_CHUNKS,
    TQ_OUTPUT_OF_PROCESS, /* show: (stream, data) image ?1 wrote */

    TQ_COUNT
};

const char *tracedb_sql(enum tracedb_query q);
