/* terminal — answers for people at a terminal: long command lines cut to its width, long
 * answers through a pager, as git does.  Never when stdout is not a terminal: a pipe or a
 * file gets every byte, unchanged.
 *
 * Contract (main-level code: it writes to stdout and runs the pager)
 *   - term_setup() is called once per command, after its options: `cut` says the command's
 *     text cuts argv (tree, who-*, inputs, outputs, show: its parents and children), `full`
 *     and `no_pager` are --full and --no-pager, `json` --json (never cut).  Cutting is on when stdout is a terminal, the
 *     command cuts, and neither --full nor --json was given.
 *   - While cutting is on, term_mark_begin()/term_mark_end() append the markers
 *     TERM_MARK_BEGIN/TERM_MARK_END around an argv (query_text_process does): only text that
 *     went through text_escape() or text_argv() (neither lets a control byte through) may
 *     stand between them, so no marker byte comes from the trace.  Otherwise they append
 *     nothing.
 *   - term_write() writes an answer: on each line holding a marked span, the span is cut so
 *     the line fits the terminal's width (TIOCGWINSZ, else $COLUMNS, else 80), ending in "…"
 *     (the line's "[ID]" stays: `show ID` prints it whole); markers are then removed.  On a
 *     terminal, unless --no-pager, it goes through $BUILDTRAIL_PAGER, else $PAGER, else
 *     "less" (with LESS=FRX when LESS is unset: it exits at once when the answer fits); an
 *     empty pager or "cat" means none; a pager that cannot start means none.  A reader that
 *     quits early is not an error.  Returns 0, or -errno when writing failed.
 *   - Single-threaded.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>

#define TERM_MARK_BEGIN '\x01'
#define TERM_MARK_END '\x02'

void term_setup(bool cut, bool full, bool no_pager, bool json);
void term_mark_begin(GString *out);
void term_mark_end(GString *out);
int term_write(const GString *out);
/* The columns lines are cut to (for tests of the cut itself): 0 when not cutting. */
int term_width(void);
/* Resolve the marks of `in` into `out` for a terminal `width` columns wide (0: strip only). */
void term_cut(GString *out, const char *in, size_t len, int width);
