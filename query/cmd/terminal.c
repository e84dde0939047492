/* terminal — see terminal.h. */
#include "terminal.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

static bool tty;        /* stdout is a terminal */
static bool cutting;    /* argv spans are marked and cut */
static bool paging;     /* answers go through a pager */

void term_setup(bool cut, bool full, bool no_pager, bool json)
{
    tty = isatty(STDOUT_FILENO) == 1;
    cutting = tty && cut && !full && !json;
    paging = tty && !no_pager;
}

void term_mark_begin(GString *out)
{
    if (cutting)
        g_string_append_c(out, TERM_MARK_BEGIN);
}

void term_mark_end(GString *out)
{
    if (cutting)
        g_string_append_c(out, TERM_MARK_END);
}

int term_width(void)
{
    if (!cutting)
        return 0;
    struct winsize ws;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    const char *c = getenv("COLUMNS");
    long n = c ? strtol(c, NULL, 10) : 0;
    return n > 0 && n < 10000 ? (int)n : 80;
}

/* Columns of valid UTF-8 text (one per character: escaped trace text is never wide enough
 * to matter for a cut). */
static long columns(const char *s, size_t len)
{
    return g_utf8_strlen(s, (gssize)len);
}

static void cut_line(GString *out, const char *line, size_t len, int width)
{
    const char *b = memchr(line, TERM_MARK_BEGIN, len);
    const char *e = b ? memchr(b, TERM_MARK_END, len - (size_t)(b - line)) : NULL;
    if (!b || !e) {
        for (size_t i = 0; i < len; i++) /* a lone marker: dropped */
            if (line[i] != TERM_MARK_BEGIN && line[i] != TERM_MARK_END)
                g_string_append_c(out, line[i]);
        return;
    }
    const char *span = b + 1, *after = e + 1;
    size_t span_len = (size_t)(e - span);
    long before_cols = columns(line, (size_t)(b - line));
    long span_cols = columns(span, span_len);
    GString *rest = g_string_new(NULL); /* the line after the span, its own marks resolved */
    cut_line(rest, after, len - (size_t)(after - line), 0);
    long rest_cols = columns(rest->str, rest->len);
    g_string_append_len(out, line, b - line);
    if (width <= 0 || before_cols + span_cols + rest_cols <= width) {
        g_string_append_len(out, span, span_len);
    } else {
        long keep = width - before_cols - rest_cols - 1; /* 1: the "…" */
        if (keep > 0) {
            const char *end = g_utf8_offset_to_pointer(span, keep);
            g_string_append_len(out, span, end - span);
        }
        g_string_append(out, "\u2026");
    }
    g_string_append_len(out, rest->str, rest->len);
    g_string_free(rest, TRUE);
}

void term_cut(GString *out, const char *in, size_t len, int width)
{
    size_t i = 0;
    while (i < len) {
        const char *nl = memchr(in + i, '\n', len - i);
        size_t l = nl ? (size_t)(nl - (in + i)) : len - i;
        cut_line(out, in + i, l, width);
        if (nl)
            g_string_append_c(out, '\n');
        i += l + (nl ? 1 : 0);
    }
}

static int write_all(int fd, const char *s, size_t len)
{
    while (len) {
        ssize_t n = write(fd, s, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        s += n;
        len -= (size_t)n;
    }
    return 0;
}

/* The pager to use, or NULL. */
static const char *pager_command(void)
{
    const char *p = getenv("BUILDTRAIL_PAGER");
    if (!p)
        p = getenv("PAGER");
    if (!p)
        p = "less";
    while (*p == ' ')
        p++;
    return *p && strcmp(p, "cat") ? p : NULL;
}

int term_write(const GString *out)
{
    GString *text = NULL;
    const char *data = out->str;
    size_t len = out->len;
    if (cutting) {
        text = g_string_sized_new(out->len);
        term_cut(text, out->str, out->len, term_width());
        data = text->str;
        len = text->len;
    }
    const char *pager = paging && len ? pager_command() : NULL;
    int r;
    if (pager) {
        if (!getenv("LESS"))
            setenv("LESS", "FRX", 1);
        fflush(stdout);
        struct sigaction ign = {.sa_handler = SIG_IGN}, old;
        sigaction(SIGPIPE, &ign, &old);
        FILE *p = popen(pager, "w");
        if (p) {
            r = write_all(fileno(p), data, len);
            if (r == -EPIPE)
                r = 0; /* the reader quit: what it did not read it did not want */
            int st = pclose(p);
            if (st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 127)
                r = write_all(STDOUT_FILENO, data, len); /* no such pager: read nothing */
        } else {
            r = write_all(STDOUT_FILENO, data, len);
        }
        sigaction(SIGPIPE, &old, NULL);
    } else {
        r = write_all(STDOUT_FILENO, data, len);
    }
    if (text)
        g_string_free(text, TRUE);
    return r;
}
