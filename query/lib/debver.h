/* debver — Debian version numbers ([EPOCH:]UPSTREAM[-REVISION]) parsed and ordered as dpkg
 * orders them (deb-version(7)): epochs numerically, then upstream and revision each compared
 * part by part — a run of non-digits character by character, where '~' sorts before
 * everything (even the end), the end before any other character, letters before the other
 * characters; then a run of digits as a number (leading zeros do not count).  A missing epoch
 * is 0 and a missing revision is "" (1.2 = 0:1.2 = 1.2-0, as for dpkg).  The ordering is
 * common/debdeps.c's debdeps_version_cmp (one implementation for `run --only-packages` and
 * the readers); this adds the parser that says what is wrong with a version.
 *
 * Contract
 *   - debver_parse(): 0 and *out filled (debver_clear() it), or -EINVAL with *why a static
 *     phrase naming what is wrong (an empty version, an epoch that is not a number, an empty
 *     upstream or revision, an upstream that does not start with a digit, a character dpkg
 *     does not allow).  Any bytes are accepted as input (fuzzed: tests/fuzz/fuzz-debver.c).
 *   - debver_cmp(): <0, 0, >0; a total order (antisymmetric, transitive).
 *   - debver_equal_str(): whether two version strings are one version: compared as versions
 *     when both parse, else as strings.
 *   - Pure functions; no I/O, no logging. */
#pragma once

#include <stdbool.h>

struct debver {
    unsigned long epoch;
    char *upstream;
    char *revision; /* "" when none */
};

int debver_parse(const char *s, struct debver *out, const char **why);
void debver_clear(struct debver *v);
int debver_cmp(const struct debver *a, const struct debver *b);
bool debver_equal_str(const char *a, const char *b);
