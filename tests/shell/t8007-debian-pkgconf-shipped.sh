#!/bin/sh
# pkgconf 1.8.1-1 (Debian 12's source package: autotools, libtool, debhelper) built by
# dpkg-buildpackage under `run --system`: what went into every file its .debs ship, against
# Makefile.am: libpkgconf.so.3.0.0 and libpkgconf.a <- the 14 libpkgconf_la_SOURCES; the
# pkgconf program (libtool's .libs/pkgconf, installed as usr/bin/pkgconf) <- the 3
# pkgconf_SOURCES (cli/main.c, cli/getopt_long.c, cli/renderer-msvc.c), linked with
# libpkgconf.la, i.e. dynamically: libpkgconf is among its shared libraries and none of
# libpkgconf's sources is a compiled source of it (`inputs` and `licenses` agree); the shipped
# library lists its own 14 sources, not the CLI's.  Every check of debpkg.py (see there) applies.
# cost: package (a real Debian package build: both variants are left out of the ASan pass)
# shares: pkgconf 1.8.1-1|nocheck nodoc|nocheck,nodoc
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/debpkg.sh"
deb_require
deb_build pkgconf 1.8.1-1 "nocheck nodoc" nocheck,nodoc
lib='"libpkgconf/audit.c", "libpkgconf/cache.c", "libpkgconf/client.c", "libpkgconf/pkg.c",
     "libpkgconf/bsdstubs.c", "libpkgconf/fragment.c", "libpkgconf/argvsplit.c",
     "libpkgconf/fileio.c", "libpkgconf/tuple.c", "libpkgconf/dependency.c",
     "libpkgconf/queue.c", "libpkgconf/path.c", "libpkgconf/personality.c", "libpkgconf/parser.c"'
deb_check '{
 "binaries": [
  {"shipped": "usr/lib/*/libpkgconf.so.3.0.0", "build": ".libs/libpkgconf.so.3.0.0", "sources": ['"$lib"']},
  {"shipped": "usr/lib/*/libpkgconf.a", "build": ".libs/libpkgconf.a", "sources": ['"$lib"']},
  {"shipped": "usr/bin/pkgconf", "build": ".libs/pkgconf",
   "sources": ["cli/main.c", "cli/getopt_long.c", "cli/renderer-msvc.c"], "links": ["libpkgconf"]}],
 "system_incorporated": []}'
cd "$T"
assert_no_leftovers
