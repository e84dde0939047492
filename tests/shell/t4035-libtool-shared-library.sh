#!/bin/sh
# #34 on a real libtool project (autoconf + automake + LT_INIT, as libyaml): a shared
# library libfoo.la, made in .libs/ as libfoo.so.0.0.0 with the links libfoo.so.0 and
# libfoo.so made by libtool's `ln -s`, and a program linked against it through .libs/libfoo.so.
# who-read of the link answers for its target (the link step read it through the link);
# who-wrote names the link's maker; inputs of the link finds foo.c; who-wrote of the bare
# name suggests .libs/libfoo.so; after an untraced edit and rebuild, the library says
# "changed since the trace".  autoreconf runs before the trace, as a tarball ships configure.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd cc
require_cmd make
require_cmd autoreconf
require_cmd automake
require_cmd libtoolize
P="$T/foo" && mkdir -p "$P" && cd "$P"
echo 'int foo(void) { return 42; }' > foo.c
printf 'int foo(void);\nint main(void) { return foo() == 42 ? 0 : 1; }\n' > hello.c
cat > configure.ac <<'M'
AC_INIT([foo], [1.0])
AC_CONFIG_SRCDIR([foo.c])
AC_CONFIG_AUX_DIR([build-aux])
AC_CONFIG_MACRO_DIRS([m4])
AM_INIT_AUTOMAKE([foreign])
AC_PROG_CC
LT_INIT([disable-static])
AC_CONFIG_FILES([Makefile])
AC_OUTPUT
M
cat > Makefile.am <<'M'
ACLOCAL_AMFLAGS = -I m4
lib_LTLIBRARIES = libfoo.la
libfoo_la_SOURCES = foo.c
libfoo_la_LDFLAGS = -version-info 0:0:0
bin_PROGRAMS = hello
hello_SOURCES = hello.c
hello_LDADD = libfoo.la
M
mkdir m4
autoreconf -fi > "$T/autoreconf.log" 2>&1 || fail "autoreconf -fi: $(tail -n 20 "$T/autoreconf.log")"
bt run -q -- sh -c './configure -q && make -s' > "$T/build.log" 2>&1 ||
    fail "the libtool build: $(tail -n 20 "$T/build.log")"
[ -L .libs/libfoo.so ] || fail "libtool made no .libs/libfoo.so link: $(ls -l .libs)"
target=$(readlink -f .libs/libfoo.so)
out=$(bt who-read .libs/libfoo.so)
assert_contains "$out" "$P/.libs/libfoo.so → $target" "who-read through libtool's link"
assert_contains "$out" "read by [" "the link step read the library through the link"
printf '%s\n' "$out" | grep -q "no process of the build read it" && fail "no reader: $out"
out=$(bt who-wrote .libs/libfoo.so)
assert_contains "$out" "the link made by [" "who-wrote names libtool's ln -s"
assert_contains "$(bt inputs --leaves .libs/libfoo.so)" "$P/foo.c" "inputs of the link: foo.c"
one_line_error bt who-wrote libfoo.so
assert_contains "$e" "did you mean .libs/libfoo.so?" "the traced path of that name"
# An untraced edit and rebuild: the library on disk is another one now.
sed -i 's/42/43/' foo.c hello.c
make -s > "$T/rebuild.log" 2>&1 || fail "untraced rebuild: $(cat "$T/rebuild.log")"
bt who-read .libs/libfoo.so > /dev/null 2> "$T/err"
assert_contains "$(cat "$T/err")" ".libs/libfoo.so.0.0.0: changed since the trace" "rebuilt library"
assert_no_leftovers
