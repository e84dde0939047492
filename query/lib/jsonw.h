/* jsonw — a JSON writer that places the commas, so that no renderer counts its elements.
 *
 * Contract
 *   - A struct jsonw appends to a GString the caller owns; jsonw_init() starts it at depth 0.
 *   - Values: jsonw_string/_len, jsonw_int, jsonw_uint, jsonw_bool, jsonw_null, jsonw_raw (a
 *     value that is already JSON text, e.g. a number formatted elsewhere), jsonw_argv (a
 *     NUL-separated argv as an array of strings), and the containers jsonw_object_begin/_end,
 *     jsonw_array_begin/_end.  Inside an object every value is preceded by jsonw_key() (or
 *     use the jsonw_kv_* shorthands).  The writer puts a comma before every element of a
 *     container but its first; a key is followed by ':' and nothing else.
 *   - Output is compact (no spaces).  jsonw_space(w, ws) appends whitespace (e.g. "\n    ")
 *     *after* the comma that the next element brings, or right away when none is due: what
 *     the exports that indent need to stay byte-identical.
 *   - Helpers that write JSON text themselves (the driver's query_json_process, _trace,
 *     _version, _bytes, ...) write into the buffer jsonw_raw_value / _raw_members /
 *     _raw_object_begin / _raw_led_members return, after the writer has placed the comma
 *     their part needs: each says what the caller may append.
 *   - Strings go through json_string() (textout.h): invalid UTF-8 survives as \udcXX.
 *   - Misuse (a value in an object without a key, an end that does not match, deeper than
 *     JSONW_MAX_DEPTH) is a programming error: g_assert fails.  No allocation besides the
 *     GString's; no errors to report.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JSONW_MAX_DEPTH 64

struct jsonw {
    GString *out;
    int depth;
    bool key_pending;               /* jsonw_key() was written, its value not yet */
    const char *space;              /* whitespace to put before the next element */
    bool has_items[JSONW_MAX_DEPTH]; /* the open container at each depth holds an element */
    char closer[JSONW_MAX_DEPTH];    /* '}' or ']' */
};

void jsonw_init(struct jsonw *w, GString *out);
void jsonw_object_begin(struct jsonw *w);
void jsonw_object_end(struct jsonw *w);
void jsonw_array_begin(struct jsonw *w);
void jsonw_array_end(struct jsonw *w);
void jsonw_key(struct jsonw *w, const char *key);
void jsonw_string(struct jsonw *w, const char *s); /* NULL writes null */
void jsonw_string_len(struct jsonw *w, const char *s, size_t len);
void jsonw_int(struct jsonw *w, int64_t v);
void jsonw_uint(struct jsonw *w, uint64_t v);
void jsonw_bool(struct jsonw *w, bool v);
void jsonw_null(struct jsonw *w);
void jsonw_raw(struct jsonw *w, const char *json);
void jsonw_argv(struct jsonw *w, const char *argv, size_t len);
void jsonw_space(struct jsonw *w, const char *ws);
/* For a helper that writes JSON text itself (query_json_process, ...): the buffer, after
 * what one more value needs (a comma, or nothing after a key); append exactly one value. */
GString *jsonw_raw_value(struct jsonw *w);
/* Inside an object, for a helper that writes whole members ("trace":{...}): the buffer,
 * after the comma they need; append one or more "key":value members, no comma around. */
GString *jsonw_raw_members(struct jsonw *w);
/* For a helper that writes an object's '{' and its first members itself (query_json_version):
 * the buffer, after what one more value needs; write '{' and at least one member.  The object
 * is then open (jsonw_key adds members after a comma; jsonw_object_end closes it). */
GString *jsonw_raw_object_begin(struct jsonw *w);
/* Inside an object that has a member already, for a helper that writes members each led by
 * its own comma (",\"bytes\":1,..." or nothing: query_json_bytes, query_json_path_state):
 * the buffer, with nothing added. */
GString *jsonw_raw_led_members(struct jsonw *w);

/* Shorthands for a key and its value. */
void jsonw_kv_string(struct jsonw *w, const char *key, const char *s);
void jsonw_kv_int(struct jsonw *w, const char *key, int64_t v);
void jsonw_kv_bool(struct jsonw *w, const char *key, bool v);
