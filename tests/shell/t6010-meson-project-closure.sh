#!/bin/sh
# Meson (issue #32): a library from lib/a.c and lib/b.c, prog1 linking it, prog2 standalone,
# a configure_file config.h from two cc.has_function checks, built and installed (DESTDIR) in
# ONE traced run — so ninja reads each compile's .d file, written by a compile of another
# source, and `meson install` reads every file it copies before writing the next.  Each
# product, in the build tree and installed, is made of exactly its own sources: libfoo.so of
# lib/a.c and lib/b.c, prog1 of prog1.c (the library listed as a shared library, not its
# sources), prog2 of prog2.c; config.h is a built header of each; meson's sanity check and
# has_function probes are never compiled code; the license roll-ups and --deny follow.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/projects.sh"
require_fuse
require_cmd cc
require_cmd python3
require_cmd meson
require_cmd ninja
project_sources "$P"
cat > "$P/meson.build" <<'M'
project('foo', 'c', version : '1.2.3')
cc = meson.get_compiler('c')
conf = configuration_data()
conf.set('HAVE_STRLCPY', cc.has_function('strlcpy', prefix : '#include <string.h>'))
conf.set('HAVE_MEMFD_CREATE',
         cc.has_function('memfd_create', prefix : '#define _GNU_SOURCE\n#include <sys/mman.h>'))
configure_file(output : 'config.h', configuration : conf)
foo = shared_library('foo', 'lib/a.c', 'lib/b.c', version : '1.2.3', soversion : '1',
                     install : true)
executable('prog1', 'prog1.c', link_with : foo, install : true)
executable('prog2', 'prog2.c', install : true)
install_headers('lib/foo.h')
M
project_trace meson "meson setup --prefix=/usr --libdir=lib build && meson compile -C build &&
                     DESTDIR='$T/dest' meson install -C build"
check_project shared "$P/build/libfoo.so.1.2.3" "$P/build/prog1" "$P/build/prog2" "$T/dest/usr" "$P/build/config.h"
assert_no_leftovers
