/* pgstore-internal — what pgstore.c (connecting, init, push) and pgask.c (the questions, list,
 * show, rm) share: the connection and the statement helpers.  Not part of pgstore.h's
 * contract; included by those two files only. */
#pragma once

#include "pgstore.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

struct pgstore {
    PGconn *conn;
    int timeout_s; /* a statement's result waited for this long at most (server silent) */
    bool gone;     /* given up waiting: the connection is not used again */
};

/* The result of the statement just sent (PQsendQuery...): the last one, or the one that
 * starts a COPY; NULL with *err when the connection failed or the server stayed silent for
 * timeout_s (then s->gone: nothing is sent on it again, not even a ROLLBACK — the server
 * rolls the transaction back when it sees the connection closed). */
PGresult *pgs_result(struct pgstore *s, const char *what, char **err);
/* Send everything libpq holds (nonblocking mode), waiting timeout_s at most for the server
 * to take it: 0, or -ETIMEDOUT / -EIO with *err. */
int pgs_flush(struct pgstore *s, const char *what, char **err);
/* ROLLBACK, unless the connection was given up. */
void pgs_rollback(struct pgstore *s);
/* -ETIMEDOUT when the last failure was a server given up, else -EIO. */
static inline int pgs_errno(const struct pgstore *s)
{
    return s->gone ? -ETIMEDOUT : -EIO;
}

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
    if (s->gone || !PQsendQuery(s->conn, sql)) {
        if (!s->gone)
            *err = g_strdup_printf("%s: %s", what, PQerrorMessage(s->conn));
        else
            *err = g_strdup_printf("%s: the store was given up", what);
        return pgs_errno(s);
    }
    PGresult *r = pgs_result(s, what, err);
    if (!r)
        return pgs_errno(s);
    ExecStatusType st = PQresultStatus(r);
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
        return fail_res(r, what, err);
    PQclear(r);
    return 0;
}

static inline PGresult *query(struct pgstore *s, const char *sql, int n, const char *const *params,
                       const char *what, char **err)
{
    if (s->gone || !PQsendQueryParams(s->conn, sql, n, NULL, params, NULL, NULL, 0)) {
        if (!s->gone)
            *err = g_strdup_printf("%s: %s", what, PQerrorMessage(s->conn));
        else
            *err = g_strdup_printf("%s: the store was given up", what);
        return NULL;
    }
    PGresult *r = pgs_result(s, what, err);
    if (!r)
        return NULL;
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

