/* libFuzzer target: the "unseen=" entry of runs.notes (tracedb_notes_unseen), read from traces
 * a query may be given: found only at the start, never past the end, never holding "; ". */
#include "tracedb.h"

#include <glib.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *notes = g_strndup((const char *)data, size); /* as SQLite gives text: to the first NUL */
    char *why = tracedb_notes_unseen(notes);
    if (why) {
        if (strncmp(notes, "unseen=", 7) || strstr(why, "; ") ||
            strlen(why) > strlen(notes) - 7 || strncmp(notes + 7, why, strlen(why)))
            abort();
        g_free(why);
    }
    g_free(notes);
    return 0;
}
