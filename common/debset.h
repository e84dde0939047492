/* debset — the Debian packages a build may use (`run --only-packages`): what sbuild's minimal
 * chroot would hold, resolved against the installed packages (dpkgdb.h).  Pure given the
 * database: no I/O, no logging (tests/unit/test-debset.c).
 *
 * Contract
 *   - debset_add_relations() takes a relationship field's value (Build-Depends and its kin,
 *     or a list of names separated by ',' or white space, which it reads as one clause each)
 *     and adds, for every clause, the first of its alternatives that applies to ARCH and
 *     PROFILES (debdeps_applies) and is installed: the package of that name, else the
 *     installed packages that Provide it (the first by name when none is in the set yet).  A
 *     clause none of whose alternatives applies adds nothing.  A clause with alternatives that
 *     apply but none installed: -ENOENT and *missing (g_free) the clause as "a (>= 1) | b".
 *     An alternative's version is checked against the installed package's (not a
 *     provider's): one installed at a version it excludes is not installed for it; so is
 *     one not installed for the architecture a qualifier names ("libc6:i386").
 *   - debset_add_base() adds what every build gets: the Essential packages and those of
 *     Priority required (debootstrap puts both in every chroot, its buildd variant too),
 *     build-essential (or, when it is not installed, what it names: libc6-dev, gcc, g++,
 *     make, dpkg-dev) and
 *     fakeroot and apt (debootstrap's buildd variant, which sbuild's chroots are made with,
 *     holds apt; sbuild installs fakeroot), each where installed.
 *   - debset_close() adds the Depends/Pre-Depends closure of the set, alternatives resolved as
 *     above (a clause nothing installed satisfies is skipped: dpkg's state is what it is),
 *     round by round, each round's new names expanded in name order (so which provider a
 *     virtual package gets never hangs on a hash table's order).
 *   - debset_has() asks by package name (every architecture of it).
 */
#pragma once

#include <stdbool.h>

struct dpkgdb;
struct debset;

struct debset *debset_new(struct dpkgdb *db);
void debset_free(struct debset *s);

int debset_add_relations(struct debset *s, const char *text, const char *arch,
                         const char *const *profiles, char **missing);
void debset_add_base(struct debset *s);
void debset_close(struct debset *s);

/* The set a build gets: the base and its closure first, so that a virtual package `text`
 * names resolves to a provider already there (c-compiler to build-essential's gcc-12, not
 * clang-14 by name), as apt in sbuild's chroot leaves it satisfied; then `text`'s relations
 * and the closure of all.  Returns as debset_add_relations. */
int debset_resolve(struct debset *s, const char *text, const char *arch,
                   const char *const *profiles, char **missing);

bool debset_has(const struct debset *s, const char *package);
/* How many package names the set holds. */
unsigned debset_size(const struct debset *s);
