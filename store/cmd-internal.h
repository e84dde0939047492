/* cmd-internal — what store/cmd.c and store/cmd-show.c share: the options, the rendering
 * helpers (text for people through textout, JSON through jsonw), and the subcommands
 * cmd-show.c renders.  Main-level code: these print. */
#pragma once

#include "jsonw.h"
#include "pgstore.h"
#include "textout.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* A --json document begun: its object opened with "json_version". */
static inline void json_doc(struct jsonw *w, GString *out)
{
    jsonw_init(w, out);
    jsonw_object_begin(w);
    jsonw_kv_int(w, "json_version", 1);
}

struct sopts {
    const char *store, *db, *name, *admindir, *known;
    bool json, allow_incomplete;
    unsigned limit; /* who-ships, uses: the builds whose rows are listed (0: all) */
    GArray *labels; /* struct store_label */
};

static inline int fail(const char *sub, char *err)
{
    fprintf(stderr, "buildtrail store %s: %s\n", sub, err);
    g_free(err);
    return 1;
}

/* A text value from the store (a build's name, a label: what a pusher chose) as one line,
 * escaped as paths are: no terminal escape or newline reaches the screen. */
static inline void text_str(GString *o, const char *s)
{
    if (s)
        text_escape(o, s, strlen(s));
}

static inline void text_bytes(GString *o, const char *s, size_t len)
{
    text_escape(o, s ? s : "", s ? len : 0);
}

/* A bytea column as escaped text. */
static inline void text_col(GString *o, const PGresult *r, int row, int col)
{
    size_t len;
    g_autofree char *b = pgstore_bytea(r, row, col, &len);
    text_bytes(o, b, len);
}

static inline void json_col(struct jsonw *w, const PGresult *r, int row, int col)
{
    size_t len;
    g_autofree char *b = pgstore_bytea(r, row, col, &len);
    if (b)
        jsonw_string_len(w, b, len);
    else
        jsonw_null(w);
}

static const char *val(const PGresult *r, int row, int col)
{
    return PQgetisnull(r, row, col) ? NULL : PQgetvalue(r, row, col);
}

static inline bool tval(const PGresult *r, int row, int col)
{
    return !strcmp(PQgetvalue(r, row, col), "t");
}

static inline int64_t ival(const PGresult *r, int row, int col)
{
    return g_ascii_strtoll(PQgetvalue(r, row, col), NULL, 10);
}

static inline int emit(GString *o)
{
    int r = fwrite(o->str, 1, o->len, stdout) == o->len && fflush(stdout) == 0 ? 0 : 1;
    g_string_free(o, TRUE);
    return r;
}

/* ...and with the number of builds the answer covered. */
static inline void json_begin(struct jsonw *w, GString *o, int64_t covered)
{
    json_doc(w, o);
    jsonw_kv_int(w, "builds_covered", covered);
}

int store_list(struct pgstore *s, struct sopts *o, int64_t only, const char *sub);
int store_rm(struct pgstore *s, struct sopts *o, int64_t id);
