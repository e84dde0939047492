/* stmt — an SQL statement declared beside the code that reads its columns, and the registry
 * that lets one test prepare every statement the program holds.
 *
 * Contract
 *   - TRACEDB_STATEMENT(name, min_schema, max_schema, "SQL") at file scope defines
 *     `static const char name[]`, the statement's text, and registers it (name, text, file,
 *     the schema versions it is written for) in the ELF section "bt_statements".  Use
 *     it for a statement with one reader, in that reader's file, next to an enum naming its
 *     result columns in order (Fossil's way), e.g.
 *         TRACEDB_STATEMENT(sql_writers, 3, TRACEDB_SCHEMA_VERSION,
 *                           "SELECT process_id, bytes FROM ...");
 *         enum { WRITERS_PROCESS, WRITERS_BYTES };
 *   - tracedb_statements(&n) lists every statement registered in the objects linked into
 *     the running program (order unspecified).  tests/unit/test-statements links every
 *     library whole and prepares each against a trace of every schema version in its range.
 *   - Statements shared by several readers, the recorder's inserts, the schema and its
 *     migrations stay in schema.c/queries.c (tracedb_sql(TQ_…)); they are checked by the
 *     same test through their own table.
 *   - No allocation, no errors.
 */
#pragma once

#include <stddef.h>

struct tracedb_statement {
    const char *name;
    const char *sql;
    const char *file;
    int min_schema, max_schema; /* the schema versions the text is written for */
};

#define TRACEDB_STATEMENT(var, min_schema, max_schema, text)                                  \
    static const char var[] = text;                                                          \
    static const struct tracedb_statement var##_entry_ = {#var, var, __FILE__, (min_schema), \
                                                          (max_schema)};                     \
    static const struct tracedb_statement *const var##_registered_                           \
        __attribute__((used, section("bt_statements"))) = &var##_entry_

/* Every statement registered in this program; *n their number. */
const struct tracedb_statement *const *tracedb_statements(size_t *n);
