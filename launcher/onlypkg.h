/* onlypkg — `run --system --only-packages LIST|@FILE`: the allowed Debian packages worked out
 * and checked before anything runs, and the pkggate (capture/pkggate.h) that hides the files
 * of every other installed package from the build.
 *
 * The set (common/debset.h): the packages named (a list separated by ',' or white space), or
 * with @FILE the Build-Depends, -Arch and -Indep of a debian/control or .dsc for the host
 * architecture (dpkg's) and the active build profiles ($DEB_BUILD_PROFILES, and the profile
 * names in $DEB_BUILD_OPTIONS); with the Essential and Priority required packages,
 * build-essential, fakeroot, apt; closed over Depends and Pre-Depends — what sbuild's minimal
 * chroot would hold.  onlypkg_load(): 0 and a sealed pkggate, or -1 after one line on stderr
 * naming what is wrong and the fix (a list naming no package, a file that cannot be read or
 * declares no Build-Depends, a package that is not installed, no dpkg database).  `admindir`: dpkg's (NULL: /var/lib/dpkg).  Nothing in the
 * build's `workspace`, nor a directory on the way to it, is hidden (pkggate_spare).
 */
#pragma once

struct pkggate;

int onlypkg_load(const char *spec, const char *admindir, const char *workspace,
                 struct pkggate **out);
