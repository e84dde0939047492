/* libFuzzer target: redaction of environments and argv (capture/redact.h) must never read out of
 * bounds, must keep the number of arguments, and must leave no byte of a redacted URL password
 * mark-free: what it returns is itself a fixed point (redacting twice changes nothing). */
#include "redact.h"

#include <glib.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t count_args(const char *s, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += s[i] == '\0';
    return n + (len && s[len - 1] != '\0');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *in = (const char *)data;
    char *const opts[] = {(char *)"--pin", (char *)"-p", NULL};
    size_t n, n2;
    char *a = redact_argv(in, size, opts, &n);
    if (count_args(a, n) != count_args(in, size))
        abort();
    char *a2 = redact_argv(a, n, opts, &n2);
    if (n2 != n || memcmp(a, a2, n) != 0)
        abort();
    g_free(a);
    g_free(a2);
    char *const globs[] = {(char *)"X*", NULL};
    char *e = redact_env(in, size, globs, &n);
    char *e2 = redact_env(e, n, globs, &n2);
    if (n2 != n || memcmp(e, e2, n) != 0)
        abort();
    g_free(e);
    g_free(e2);
    return 0;
}
