/* libFuzzer target: the command line that made a symlink (qdb_link_target_from_argv) is a
 * trace's argv, any bytes, not necessarily NUL-terminated.  The input is "CWD\nLINK\nARGV";
 * an answer is always an absolute path, read within the argv's length. */
#include "qdb.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    const char *nl1 = memchr(text, '\n', size);
    const char *nl2 = nl1 ? memchr(nl1 + 1, '\n', size - (size_t)(nl1 + 1 - text)) : NULL;
    if (!nl2)
        return 0;
    char *cwd = g_strndup(text, (size_t)(nl1 - text));
    char *link = g_strndup(nl1 + 1, (size_t)(nl2 - nl1 - 1));
    size_t argv_len = size - (size_t)(nl2 + 1 - text);
    char *argv = argv_len ? g_memdup2(nl2 + 1, argv_len) : NULL; /* (exactly its bytes) */
    char *t = qdb_link_target_from_argv(argv, argv_len, cwd, link);
    if (t && t[0] != '/')
        abort();
    g_free(t);
    g_free(argv);
    g_free(link);
    g_free(cwd);
    return 0;
}
