/* debdeps — Debian relationship fields (Build-Depends and its kin): parsing, and which of a
 * field's alternatives apply to a given build.
 *
 * Contract
 *   - debdeps_parse() reads a relationship field's value: clauses separated by ',', each one
 *     or more alternatives separated by '|', each alternative
 *         NAME[:ARCHQUAL] [(OP VERSION)] [[ARCH ...]] [<PROFILE ...>]...
 *     (Debian policy 7.1, the BuildProfileSpec).  It takes any bytes and never fails: an
 *     alternative without a name is dropped, and so is a clause left with none; text it
 *     cannot read after a name ends that alternative.  Fuzzed (tests/fuzz/fuzz-debdeps.c).
 *   - debdeps_from_control() finds what a debian/control or .dsc declares: the values of
 *     Build-Depends, Build-Depends-Arch and Build-Depends-Indep of the first stanza that has
 *     any of them (continuation lines folded, '#' comment lines skipped), joined with ", ";
 *     NULL when the text has none of those fields.
 *   - debdeps_applies() says whether an alternative applies when building for architecture
 *     ARCH with the build profiles PROFILES active (NULL-terminated, may be NULL): its
 *     architecture list (with '!' negation and the wildcards any, OS-any and any-CPU) and
 *     its profile formula (any of the <…> lists whose every term holds; '!' negates).
 *   - debdeps_options_as_profiles() picks from DEB_BUILD_OPTIONS the words that are also
 *     profile names ("nocheck parallel=2 nodoc" -> nocheck, nodoc), each once.
 *   - debdeps_arch_matches() is the architecture-wildcard test alone ("linux-any" vs
 *     "amd64").  Architectures without '-' are Linux ones; armel and armhf are CPU "arm".
 *   - debdeps_version_cmp() orders two Debian versions ([EPOCH:]UPSTREAM[-REVISION], '~'
 *     before anything, even the end; deb-version(7)) as strcmp does; any bytes, never fails.
 *     debdeps_version_satisfies() says whether VERSION meets a relation's "OP WANT" (<<, <=,
 *     =, >=, >>, and the obsolete < and > as <= and >=); an unknown OP is met.
 *   - Pure functions, no logging, no global state.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>

struct debdep_alt {
    char *name;      /* the package name, without ":ARCHQUAL" */
    char *archqual;  /* "any", "native", an architecture, or NULL */
    char *op;        /* "(>= 1.2)": ">=" — NULL when unversioned */
    char *version;   /* "1.2" — NULL when unversioned */
    char **arches;   /* "[amd64 !i386]" as a NULL-terminated list, or NULL */
    GPtrArray *profiles; /* "<a !b> <c>": char** term lists (NULL-terminated), or NULL */
};

struct debdep_clause {
    GPtrArray *alts; /* struct debdep_alt* (owned), at least one */
};

/* struct debdep_clause* (owned by the array). */
GPtrArray *debdeps_parse(const char *text, size_t len);
char *debdeps_from_control(const char *text, size_t len);
bool debdeps_arch_matches(const char *arch, const char *pattern);
bool debdeps_applies(const struct debdep_alt *alt, const char *arch,
                     const char *const *profiles);
/* The words of a DEB_BUILD_OPTIONS value that name a build profile too (nocheck, nodoc:
 * Debian policy 4.9.1 has the option and the profile go together), NULL-terminated (g_strfreev). */
char **debdeps_options_as_profiles(const char *deb_build_options);
int debdeps_version_cmp(const char *a, const char *b);
bool debdeps_version_satisfies(const char *version, const char *op, const char *want);
