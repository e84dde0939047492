/* pgstore-internal — what pgstore.c (connecting, init, push) and pgask.c (the questions, list,
 * show, rm) share: the connection and the statement helpers.  Not part of pgstore.h's
 * contract; included by those two files only. */
#pragma once

#include "pgstore.h"

#include <errno.h>
#include <string.h>

struct pgstore {
    PGconn *conn;
};

/* The first line of libpq's message (it may end in newlines or hold a DETAIL). */
static inline char *first_line(const char *msg)
{
    if (!msg || !*msg)
        return g_strdup("unknown error");
    const char *nl = strchr(msg, '\n');
    return g_strndup(msg, nl ? (size_t)(nl - msg) : strlen(msg));
}

static inline int fail_res(PGresult *r, const char *what, char **err)
{
    g_autofree char *m = first_line(PQresultErrorMessage(r));
    *err = g_strdup_printf("%s: %s", what, m);
    PQclear(r);
    return -EIO;
}

/* Run a statement with no result rows; 0 or -EIO. */
static inline int exec(struct pgstore *s, const char *sql, const char *what, char **err)
{
    PGresult *r = PQexec(s->conn, sql);
    ExecStatusType st = PQresultStatus(r);
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
        return fail_res(r, what, err);
    PQclear(r);
    return 0;
}

static inline PGresult *query(struct pgstore *s, const char *sql, int n, const char *const *params,
                       const char *what, char **err)
{
    PGresult *r = PQexecParams(s->conn, sql, n, NULL, params, NULL, NULL, 0);
    ExecStatusType st = PQresultStatus(r);
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
        fail_res(r, what, err);
        return NULL;
    }
    return r;
}

/* query() with one parameter, a build id ($1::bigint). */
static inline PGresult *query_build(struct pgstore *s, int64_t build, const char *sql, const char *what,
                             char **err)
{
    g_autofree char *b = g_strdup_printf("%" G_GINT64_FORMAT, build);
    const char *p[] = {b};
    return query(s, sql, 1, p, what, err);
}

