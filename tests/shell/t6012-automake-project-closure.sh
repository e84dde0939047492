#!/bin/sh
# automake with dependency tracking (issue #32): the project of t6010 (projects.sh) under
# autoconf + automake, without libtool (a static lib/libfoo.a, so prog1 incorporates the
# library's sources), config.h from AC_CHECK_FUNCS([strlcpy memfd_create]).  autoreconf runs
# before the trace, as a release tarball ships configure and Makefile.in.  `./configure &&
# make && rm prog2.o && make && make install DESTDIR=...` is ONE traced run with dependency
# tracking on: the second make (an incremental rebuild of prog2) and make install read every
# .deps/*.Po, each written by the compile of another source.  Each product, in the build tree
# and installed, is made of exactly its own sources: libfoo.a of lib/a.c and lib/b.c, prog1
# of prog1.c and the library's members, prog2 of prog2.c; config.h is a built header of each;
# configure's conftest.c is never compiled code; the license roll-ups and --deny follow.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/projects.sh"
require_fuse
require_cmd cc
require_cmd python3
require_cmd make
require_cmd autoreconf
require_cmd automake
require_cmd autoconf
project_sources "$P"
cat > "$P/configure.ac" <<'M'
AC_INIT([foo], [1.2.3])
AC_CONFIG_SRCDIR([prog2.c])
AC_CONFIG_AUX_DIR([build-aux])
AM_INIT_AUTOMAKE([foreign subdir-objects])
AC_PROG_CC
AM_PROG_AR
AC_PROG_RANLIB
AC_CHECK_FUNCS([strlcpy memfd_create])
AC_CONFIG_HEADERS([config.h])
AC_CONFIG_FILES([Makefile])
AC_OUTPUT
M
cat > "$P/Makefile.am" <<'M'
lib_LIBRARIES = lib/libfoo.a
lib_libfoo_a_SOURCES = lib/a.c lib/b.c
include_HEADERS = lib/foo.h
bin_PROGRAMS = prog1 prog2
prog1_SOURCES = prog1.c
prog1_LDADD = lib/libfoo.a
prog2_SOURCES = prog2.c
M
(cd "$P" && autoreconf -fi) > "$T/autoreconf.log" 2>&1 || fail "autoreconf -fi: $(tail -n 20 "$T/autoreconf.log")"
project_trace automake "./configure --prefix=/usr --enable-dependency-tracking && make &&
                        rm prog2.o && make &&
                        make install DESTDIR='$T/dest'"
# Dependency tracking was on: each compile wrote its .Po, which the second make read.
grep -q 'foo\.h' "$P/.deps/prog1.Po" && grep -q 'foo\.h' "$P/lib/.deps/a.Po" ||
    fail "dependency tracking is off: $(cat "$P/.deps/prog1.Po")"
check_project static "$P/lib/libfoo.a" "$P/prog1" "$P/prog2" "$T/dest/usr" "$P/config.h" "$P/config.h.in"
assert_no_leftovers
