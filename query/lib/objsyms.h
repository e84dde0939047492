/* objsyms — the symbols an object file, shared library, program or static archive defines:
 * enough to tell whether a link pulled any member of a static archive into its output
 * (packages' Built-Using candidates).
 *
 * Contract
 *   - objsyms_archive() reads an ar archive ("!<arch>\n", GNU and BSD member names, and thin
 *     archives "!<thin>\n"): it adds to `defined` (a set of g_strdup'd names: a GHashTable
 *     made with g_str_hash, g_str_equal, g_free) every global or weak symbol the archive
 *     defines — from its symbol index (GNU "/" or "/SYM64/") when it has one, else from its
 *     ELF members' symbol tables — and returns the number of members (not counting the index
 *     and the long-name table; 0: an empty archive, which holds nothing), or -EINVAL when the
 *     bytes are not an archive.
 *   - objsyms_elf() reads an ELF file (32 or 64 bits, either byte order) and adds to `defined`
 *     every symbol it defines (any binding: a link makes archive members' globals local
 *     under a version script), not counting section and file symbols.  It returns
 *     OBJSYMS_SYMTAB when it read a full symbol table (.symtab), OBJSYMS_DYNSYM when only the
 *     dynamic one (a stripped file: a symbol missing there may still be in the file),
 *     OBJSYMS_NONE when the file has neither, or -EINVAL when the bytes are not ELF.
 *   - Both take any bytes and never read outside them; a truncated or crafted table is read as
 *     far as it is whole; only the first table of each kind is read (ELF has one), so the
 *     work is linear in the bytes.  Fuzzed (tests/fuzz/fuzz-objsyms.c); pure, no logging, no state.
 */
#pragma once

#include <glib.h>
#include <stddef.h>

enum { OBJSYMS_NONE = 0, OBJSYMS_SYMTAB = 1, OBJSYMS_DYNSYM = 2 };

int objsyms_archive(const void *data, size_t len, GHashTable *defined);
int objsyms_elf(const void *data, size_t len, GHashTable *defined);
/* Is `data` an ar archive (either magic)? */
gboolean objsyms_is_archive(const void *data, size_t len);
