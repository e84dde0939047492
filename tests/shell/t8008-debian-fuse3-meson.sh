#!/bin/sh
# fuse3 3.14.0-4 (Debian 12's source package: Meson and Ninja, debhelper) built by
# dpkg-buildpackage under `run --system`: what went into every file its .debs and .udebs ship,
# against lib/meson.build and util/meson.build: fusermount3 <- util/fusermount.c and
# lib/mount_util.c exactly (ninja's build.ninja and the .d files of other compiles are no
# sources of it); mount.fuse3 <- util/mount.fuse.c, linked with libfuse3 dynamically;
# libfuse3.so.3.14.0 and libfuse3.a (default_library=both) <- the 15 lib/*.c of
# libfuse_sources on Linux (mount.c, and modules/iconv.c as glibc has iconv), nothing from
# example/, test/ or util/ — in the build tree and as `meson install` and dh_install put them;
# dh_dwz's multifile of fuse3's two programs (fuse3-dbgsym) <- their three sources (and,
# as mount.fuse3, libfuse3 among its shared libraries);
# `packages` and `licenses` agree on what of the system went in (nothing but toolchain runtime).
# Built without nodoc: fuse3's debian/rules chmods an example dh_installexamples skips under
# nodoc.  Every check of debpkg.py (see there) applies.
# cost: package (a real Debian package build: both variants are left out of the ASan pass)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/debpkg.sh"
deb_require
require_cmd meson
require_cmd ninja
deb_build fuse3 3.14.0-4 "nocheck" nocheck
o=obj-$(dpkg-architecture -qDEB_HOST_GNU_TYPE)
lib='"lib/fuse.c", "lib/fuse_loop.c", "lib/fuse_loop_mt.c", "lib/fuse_lowlevel.c", "lib/fuse_opt.c",
     "lib/fuse_signals.c", "lib/buffer.c", "lib/cuse_lowlevel.c", "lib/helper.c",
     "lib/modules/subdir.c", "lib/mount_util.c", "lib/fuse_log.c", "lib/compat.c", "lib/mount.c",
     "lib/modules/iconv.c"'
deb_check '{
 "binaries": [
  {"shipped": "*bin/fusermount3", "build": "'$o'/util/fusermount3",
   "sources": ["util/fusermount.c", "lib/mount_util.c"]},
  {"shipped": "*bin/mount.fuse3", "build": "'$o'/util/mount.fuse3",
   "sources": ["util/mount.fuse.c"], "links": ["libfuse3"]},
  {"shipped": "*lib/*/libfuse3.so.3.14.0", "build": "'$o'/lib/libfuse3.so.3.14.0", "sources": ['"$lib"']},
  {"shipped": "*lib/*/libfuse3.a", "build": "'$o'/lib/libfuse3.a", "sources": ['"$lib"']},
  {"shipped": "usr/lib/debug/.dwz/*/fuse3.debug", "build": null,
   "sources": ["util/fusermount.c", "lib/mount_util.c", "util/mount.fuse.c"], "links": ["libfuse3"]}],
 "system_incorporated": []}'
cd "$T"
assert_no_leftovers
