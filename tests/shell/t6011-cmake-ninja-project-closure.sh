#!/bin/sh
# CMake + Ninja (issue #32): the project of t6010 (projects.sh) under CMake -G Ninja, config.h
# from configure_file(config.h.in) fed by two check_function_exists, configured, built and
# installed (cmake --install, DESTDIR) in ONE traced run.  Each product, in the build tree and
# installed, is made of exactly its own sources (libfoo.so of lib/a.c and lib/b.c, prog1 of
# prog1.c with the library as a shared library, prog2 of prog2.c), config.h is a built header
# of each, and nothing CMake compiles to probe the toolchain or the functions
# (/usr/share/cmake-*/Modules/CMakeCCompilerABI.c, CheckFunctionExists.c, CMakeFiles/CMakeScratch,
# seen with --system as root) is compiled code; the license roll-ups and --deny follow.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/projects.sh"
require_fuse
require_cmd cc
require_cmd python3
require_cmd cmake
require_cmd ninja
project_sources "$P"
cat > "$P/config.h.in" <<'C'
/* config.h, made by CMake from config.h.in */
#cmakedefine HAVE_STRLCPY 1
#cmakedefine HAVE_MEMFD_CREATE 1
C
cat > "$P/CMakeLists.txt" <<'M'
cmake_minimum_required(VERSION 3.13)
project(foo VERSION 1.2.3 LANGUAGES C)
include(CheckFunctionExists)
check_function_exists(strlcpy HAVE_STRLCPY)
check_function_exists(memfd_create HAVE_MEMFD_CREATE)
configure_file(config.h.in config.h)
include_directories(${CMAKE_CURRENT_BINARY_DIR})
add_library(foo SHARED lib/a.c lib/b.c)
set_target_properties(foo PROPERTIES VERSION 1.2.3 SOVERSION 1 PUBLIC_HEADER lib/foo.h)
add_executable(prog1 prog1.c)
target_link_libraries(prog1 foo)
add_executable(prog2 prog2.c)
install(TARGETS foo prog1 prog2 RUNTIME DESTINATION bin LIBRARY DESTINATION lib
        PUBLIC_HEADER DESTINATION include)
M
project_trace cmake "cmake -G Ninja -S . -B build -DCMAKE_INSTALL_PREFIX=/usr && cmake --build build &&
                     DESTDIR='$T/dest' cmake --install build"
check_project shared "$P/build/libfoo.so.1.2.3" "$P/build/prog1" "$P/build/prog2" "$T/dest/usr" "$P/build/config.h" "$P/config.h.in"
assert_no_leftovers
