/* textout — print file names, argv and captured output safely, as text for people or JSON.
 *
 * Contract
 *   - text_escape(): a byte string as one line of text: printable UTF-8 is kept, a backslash
 *     becomes "\\", newline/tab/CR become "\n", "\t", "\r", any other control byte and any byte
 *     that is not valid UTF-8 becomes "\xNN".  The result never contains a newline, and the
 *     original bytes can be recovered from it.
 *   - text_quote_arg(): one argv word as a POSIX shell reads it back, so that a command line
 *     pasted into bash, zsh, ksh or a POSIX.1-2024 sh runs the same bytes (an older sh, such
 *     as dash 0.5.12, reads every form but $'...'): a word of only [A-Za-z0-9-_./=:,+@%] not
 *     starting with '=' (zsh's =cmd) as is; a word holding a control character (C0, DEL, C1),
 *     U+2028/U+2029, a bidirectional override or a byte that is not valid UTF-8 in $'...'
 *     (those bytes as \xNN, newline/tab/CR as \n \t \r, ! as \x21); any other word in single
 *     quotes, ' written '\''.  The result never holds a control byte or invalid UTF-8.
 *   - text_argv(): the words joined by spaces; a first word a shell would read as an
 *     assignment (A=b), a reserved word (time, if, ...) or a job (%1: bash's fg %1) is quoted.
 *   - json_string(): a JSON string literal.  Valid UTF-8 is kept; control characters, quote
 *     and backslash are escaped; each byte B that is not valid UTF-8 becomes \udcBB (a lone
 *     low surrogate, as Python's "surrogateescape" does), so exact bytes survive a round trip.
 *   - All append to a GString the caller owns (text_escaped returns a string of its own).
 *     No errors, no logging.
 */
#pragma once

#include <glib.h>
#include <stddef.h>

void text_escape(GString *out, const char *s, size_t len);
/* A NUL-terminated name as text_escape writes it, in a string of its own (g_free it): for a
 * file name in a one-line message. */
char *text_escaped(const char *s);
void text_quote_arg(GString *out, const char *s, size_t len);
/* argv stored NUL-separated (as /proc/PID/cmdline): words joined by spaces, each quoted;
 * a final word without its NUL is a word all the same. */
void text_argv(GString *out, const char *argv, size_t len);
void json_string(GString *out, const char *s, size_t len);
/* argv as a JSON array of strings. */
void json_argv(GString *out, const char *argv, size_t len);
/* Wall-clock nanoseconds as ISO 8601 UTC ("2026-12-01T06:00:53Z") in buf; false (buf empty)
 * when the time cannot be represented. */
gboolean text_iso_utc(gint64 realtime_ns, char buf[32]);
/* Wall-clock nanoseconds as RFC 3339 UTC with nanoseconds ("2026-12-01T06:00:53.123456789Z");
 * false (buf empty) when the time cannot be represented. */
gboolean text_rfc3339_ns(gint64 realtime_ns, char buf[40]);
/* A byte count for people: "812 B", "3.2 KiB", "12.0 MiB", "1.3 GiB". */
void text_size(GString *out, gint64 bytes);
