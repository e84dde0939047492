/* stmt — see stmt.h. */
#include "stmt.h"

/* The linker defines these around the section, present in every program that links this file:
 * the one entry below makes sure the section exists even where no reader registered one. */
extern const struct tracedb_statement *const __start_bt_statements[];
extern const struct tracedb_statement *const __stop_bt_statements[];

TRACEDB_STATEMENT(sql_stmt_selftest, 1, 1000, "SELECT 1");

const struct tracedb_statement *const *tracedb_statements(size_t *n)
{
    (void)sql_stmt_selftest;
    *n = (size_t)(__stop_bt_statements - __start_bt_statements);
    return __start_bt_statements;
}
