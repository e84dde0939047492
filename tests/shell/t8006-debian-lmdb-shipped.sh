#!/bin/sh
# lmdb 0.9.24-1 (Debian 12's source package: make in libraries/liblmdb, doxygen, debhelper)
# built by dpkg-buildpackage under `run --system`: what went into every file its .debs ship,
# against libraries/liblmdb/Makefile: liblmdb.so.0.0.0 <- mdb.c, midl.c (mdb.lo, midl.lo);
# liblmdb.a <- mdb.c, midl.c; mdb_stat, mdb_copy, mdb_dump, mdb_load <- their own .c and
# liblmdb.a's mdb.o and midl.o (linked statically, not the shared library); mtest* are built but
# not shipped.  The shipped library, once installed and stripped, is still followed to mdb.c
# and midl.c (`licenses` incorporates them, its roll-up is its build-tree file's, never
# NOASSERTION) and never lists itself, nor what ld, objcopy or perl loaded, among its shared
# libraries; liblmdb0's .deb is GENERATED_FROM mdb.c and midl.c, never mdb_copy.c.
# Every check of debpkg.py (see there) applies.
# cost: package (a real Debian package build: both variants are left out of the ASan pass)
# shares: lmdb 0.9.24-1|nocheck nodoc|nocheck,nodoc
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/debpkg.sh"
deb_require
deb_build lmdb 0.9.24-1 "nocheck nodoc" nocheck,nodoc
l=libraries/liblmdb
deb_check '{
 "binaries": [
  {"shipped": "usr/lib/*/liblmdb.so.0.0.0", "build": "'$l'/liblmdb.so.0.0.0",
   "sources": ["'$l'/mdb.c", "'$l'/midl.c"]},
  {"shipped": "usr/lib/*/liblmdb.a", "build": "'$l'/liblmdb.a",
   "sources": ["'$l'/mdb.c", "'$l'/midl.c"]},
  {"shipped": "usr/bin/mdb_stat", "build": "'$l'/mdb_stat",
   "sources": ["'$l'/mdb_stat.c", "'$l'/mdb.c", "'$l'/midl.c"]},
  {"shipped": "usr/bin/mdb_copy", "build": "'$l'/mdb_copy",
   "sources": ["'$l'/mdb_copy.c", "'$l'/mdb.c", "'$l'/midl.c"]},
  {"shipped": "usr/bin/mdb_dump", "build": "'$l'/mdb_dump",
   "sources": ["'$l'/mdb_dump.c", "'$l'/mdb.c", "'$l'/midl.c"]},
  {"shipped": "usr/bin/mdb_load", "build": "'$l'/mdb_load",
   "sources": ["'$l'/mdb_load.c", "'$l'/mdb.c", "'$l'/midl.c"]}],
 "system_incorporated": []}'
cd "$T"
assert_no_leftovers
