/* jsonw — see jsonw.h. */
#include "jsonw.h"

#include "textout.h"

#include <inttypes.h>
#include <string.h>

void jsonw_init(struct jsonw *w, GString *out)
{
    memset(w, 0, sizeof *w);
    w->out = out;
}

/* Before any element: the comma its container needs, then the whitespace asked for. */
static void element(struct jsonw *w)
{
    if (w->key_pending) { /* the value of a key: nothing goes between ':' and it */
        w->key_pending = false;
        return;
    }
    g_assert(w->depth == 0 || w->closer[w->depth - 1] == ']');
    if (w->depth > 0 && w->has_items[w->depth - 1])
        g_string_append_c(w->out, ',');
    if (w->depth > 0)
        w->has_items[w->depth - 1] = true;
    if (w->space) {
        g_string_append(w->out, w->space);
        w->space = NULL;
    }
}

static void open(struct jsonw *w, char opener, char closer)
{
    element(w);
    g_assert(w->depth < JSONW_MAX_DEPTH);
    g_string_append_c(w->out, opener);
    w->has_items[w->depth] = false;
    w->closer[w->depth] = closer;
    w->depth++;
}

static void close_(struct jsonw *w, char closer)
{
    g_assert(w->depth > 0 && w->closer[w->depth - 1] == closer && !w->key_pending);
    w->depth--;
    if (w->space) {
        g_string_append(w->out, w->space);
        w->space = NULL;
    }
    g_string_append_c(w->out, closer);
}

void jsonw_object_begin(struct jsonw *w) { open(w, '{', '}'); }
void jsonw_object_end(struct jsonw *w) { close_(w, '}'); }
void jsonw_array_begin(struct jsonw *w) { open(w, '[', ']'); }
void jsonw_array_end(struct jsonw *w) { close_(w, ']'); }

/* Before a member of the open object: its comma, then the whitespace asked for. */
static void member(struct jsonw *w)
{
    g_assert(w->depth > 0 && w->closer[w->depth - 1] == '}' && !w->key_pending);
    if (w->has_items[w->depth - 1])
        g_string_append_c(w->out, ',');
    w->has_items[w->depth - 1] = true;
    if (w->space) {
        g_string_append(w->out, w->space);
        w->space = NULL;
    }
}

void jsonw_key(struct jsonw *w, const char *key)
{
    member(w);
    json_string(w->out, key, strlen(key));
    g_string_append_c(w->out, ':');
    w->key_pending = true;
}

void jsonw_string_len(struct jsonw *w, const char *s, size_t len)
{
    element(w);
    json_string(w->out, s, len);
}

void jsonw_string(struct jsonw *w, const char *s)
{
    if (!s)
        jsonw_null(w);
    else
        jsonw_string_len(w, s, strlen(s));
}

void jsonw_int(struct jsonw *w, int64_t v)
{
    element(w);
    g_string_append_printf(w->out, "%" PRId64, v);
}

void jsonw_uint(struct jsonw *w, uint64_t v)
{
    element(w);
    g_string_append_printf(w->out, "%" PRIu64, v);
}

void jsonw_bool(struct jsonw *w, bool v)
{
    element(w);
    g_string_append(w->out, v ? "true" : "false");
}

void jsonw_null(struct jsonw *w)
{
    element(w);
    g_string_append(w->out, "null");
}

void jsonw_raw(struct jsonw *w, const char *json)
{
    element(w);
    g_string_append(w->out, json);
}

void jsonw_argv(struct jsonw *w, const char *argv, size_t len)
{
    element(w);
    json_argv(w->out, argv, len);
}

GString *jsonw_raw_value(struct jsonw *w)
{
    element(w);
    return w->out;
}

GString *jsonw_raw_object_begin(struct jsonw *w)
{
    element(w);
    g_assert(w->depth < JSONW_MAX_DEPTH);
    w->has_items[w->depth] = true; /* (the caller writes '{' and a member) */
    w->closer[w->depth] = '}';
    w->depth++;
    return w->out;
}

GString *jsonw_raw_led_members(struct jsonw *w)
{
    g_assert(w->depth > 0 && w->closer[w->depth - 1] == '}' && !w->key_pending &&
             w->has_items[w->depth - 1]);
    if (w->space) {
        g_string_append(w->out, w->space);
        w->space = NULL;
    }
    return w->out;
}

GString *jsonw_raw_members(struct jsonw *w)
{
    member(w);
    return w->out;
}

void jsonw_space(struct jsonw *w, const char *ws)
{
    w->space = ws;
}

void jsonw_kv_string(struct jsonw *w, const char *key, const char *s)
{
    jsonw_key(w, key);
    jsonw_string(w, s);
}

void jsonw_kv_int(struct jsonw *w, const char *key, int64_t v)
{
    jsonw_key(w, key);
    jsonw_int(w, v);
}

void jsonw_kv_bool(struct jsonw *w, const char *key, bool v)
{
    jsonw_key(w, key);
    jsonw_bool(w, v);
}
