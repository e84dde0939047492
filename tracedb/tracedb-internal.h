/* tracedb-internal — what tracedb.c (creating, opening, the run rows), schema.c (the schema,
 * its migrations and its check) and sides.c (a trace's side files, before a reader opens it)
 * share; not for use outside tracedb/.
 *
 * Contract: as tracedb.h's (negative errno, a sentence for the caller, no logging). */
#pragma once

#include <glib.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <sys/stat.h>

/* The table every trace has had since the first, before any migration. */
#define META_SCHEMA "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"

/* Set *err_detail to `msg` (or free it when err_detail is NULL); returns `e`. */
int tdb_set_err(char **err_detail, int e, char *msg);

/* Append the migrations that take a trace from version 0 (meta alone) to `version`. */
void tdb_append_migrations(GString *sql, int version);

/* Whether meta in `db` is buildtrail's table: 0, or -EBADMSG (-ENOMEM, -EROFS, -EIO: SQLite
 * failed reading the schema) with the sentence in *why. */
int tdb_check_meta(sqlite3 *db, char **why);
/* Every table of a `version` trace (meta included) is a plain table with exactly the columns
 * buildtrail made: 0, or an error as tdb_check_meta's. */
int tdb_check_schema(sqlite3 *db, int version, char **why);

/* SQLite's side files of a trace: its name with each suffix appended. */
#define TDB_N_SIDES 3
extern const char *const tdb_side_suffixes[TDB_N_SIDES];

/* Is `name` in `dfd` a regular file with the magic of SQLite's side file `suffix` (or empty)?
 * Opened without following a link and without blocking. */
bool tdb_sibling_is_sqlites(int dfd, const char *name, const char *suffix);
/* Before SQLite opens the trace at `path` (its links resolved: SQLite looks beside the target):
 * 0, or -EIO with the sentence when a side file is not a regular file (a FIFO would block the
 * reader for ever, a link or a device would be read as the journal or have its mode changed;
 * not opened) or, readable, does not begin as SQLite's does (SQLite would take it for the
 * trace's, and a read-write open would remove it). */
int tdb_sides_regular(const char *path, char **err_detail);
/* (`path` with its links resolved, as for tdb_sides_regular.)
 * A run killed mid-write in rollback mode (sealing switches the trace back from WAL) leaves a
 * hot journal: no read-only connection can read the trace until it is rolled back.  When the
 * caller owns the trace (`trace_st`) and its regular, non-empty -journal, the trace is opened
 * read-write once, which rolls the write back as SQLite does on any open (a journal a live
 * writer holds is not hot, and is left alone).  NULL when there was nothing to do or it was
 * done, else (g_free it) why it could not be, for the reader's sentence: the directory not
 * writable (the rolled-back journal cannot be removed), or SQLite's error. */
char *tdb_roll_back_hot_journal(const char *path, const struct stat *trace_st);
