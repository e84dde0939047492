/* ccdb — read an existing compile_commands.json, for `export --format compile-commands
 * --append` (which keeps its entries unless the build made them again, as Bear's --append).
 *
 * Contract
 *   - ccdb_parse() reads a JSON array of objects (RFC 8259; whitespace anywhere, nesting up to
 *     64 deep) and appends one struct ccdb_entry per object: the exact byte span of the object
 *     in `text` (so it can be written back unchanged) and the string values of its
 *     "directory", "file" and "output" members (unescaped; \udcXX, which our exporter writes
 *     for a byte that is not UTF-8, becomes that byte again; NULL when the member is absent or
 *     not a string).  Returns 0, or -EINVAL with *err (g_free it) saying at which byte what
 *     was expected; on error `entries` may hold the entries read so far.  Any bytes in, no
 *     crash, no unbounded recursion: fuzzed (tests/fuzz/fuzz-ccdb.c).
 *   - ccdb_key() is what identifies an entry: "FILE\nOUTPUT" with both made absolute against
 *     the directory (OUTPUT empty when there is none); NULL without a file.  g_free it.
 *   - Pure: no I/O, no logging.
 */
#pragma once

#include <glib.h>
#include <stddef.h>

struct ccdb_entry {
    size_t begin, end; /* text[begin, end) is the object, braces included */
    char *directory, *file, *output;
};

int ccdb_parse(const char *text, size_t len, GArray *entries, char **err);
/* Frees an entry's strings: g_array_set_clear_func(entries, ccdb_entry_clear). */
void ccdb_entry_clear(void *entry);
char *ccdb_key(const char *directory, const char *file, const char *output);
