#!/bin/sh
# json-c 0.16-2 (Debian 12's source package: CMake with Makefiles, doxygen, debhelper) built by
# dpkg-buildpackage under `run --system`: what went into every file its .debs and .udeb ship,
# against CMakeLists.txt: libjson-c.so.5.2.0 and libjson-c.a (json-c-static) <- the 12
# JSON_C_SOURCES and json_pointer.c (DISABLE_JSON_POINTER is off): 13, never CMake's compiler
# probe (/usr/share/cmake-*/Modules/CMakeCCompilerABI.c) nor any other file of CMake's among
# their sources or headers, in the build tree and as `cmake --install` and dh_install put them;
# `packages` and `licenses` agree on what of the system went in (nothing but toolchain
# runtime: cmake-data is no Built-Using candidate).  Every check of debpkg.py (see there) applies.
# cost: package (a real Debian package build: both variants are left out of the ASan pass)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/debpkg.sh"
deb_require
require_cmd cmake
deb_build json-c 0.16-2 "nocheck nodoc" nocheck,nodoc
lib='"arraylist.c", "debug.c", "json_c_version.c", "json_object.c", "json_object_iterator.c",
     "json_tokener.c", "json_util.c", "json_visit.c", "linkhash.c", "printbuf.c", "random_seed.c",
     "strerror_override.c", "json_pointer.c"'
deb_check '{
 "binaries": [
  {"shipped": "*lib/*/libjson-c.so.5.2.0", "build": "build/libjson-c.so.5.2.0", "sources": ['"$lib"']},
  {"shipped": "*lib/*/libjson-c.a", "build": "build/libjson-c.a", "sources": ['"$lib"']}],
 "system_incorporated": []}'
cd "$T"
assert_no_leftovers
