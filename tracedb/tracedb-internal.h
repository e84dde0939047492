/* tracedb-internal — what tracedb.c (creating, opening, the run rows) and schema.c (the schema,
 * its migrations and its check) share; not for use outside tracedb/.
 *
 * Contract: as tracedb.h's (negative errno, a sentence for the caller, no logging). */
#pragma once

#include <glib.h>
#include <sqlite3.h>

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
