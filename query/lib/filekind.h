/* filekind — what a file's name says it is, for every part of the query side that sorts files
 * by kind: provenance roles (prov), compile entries (export), copy candidates (copies).  One
 * list, so that the three agree.
 *
 * Contract
 *   - Pure functions of the name: no I/O.  Extensions are matched case-sensitively (".C" and
 *     ".H" are C++); a leading dot is not an extension (".profile" has none).
 *   - ".d" is not a source: in a build it is nearly always a dependency file (gcc -MD), rarely
 *     D code.
 */
#pragma once

#include <stdbool.h>

enum filekind {
    FILEKIND_OTHER,   /* has an extension, none of the below */
    FILEKIND_SOURCE,  /* a translation unit: C-family, assembler, Fortran, Go, Rust, Ada */
    FILEKIND_HEADER,  /* included text: .h, .hpp, .inc, .def, ... */
    FILEKIND_OBJECT,  /* .o, .a, .lo, ... */
    FILEKIND_SHLIB,   /* .so, .so.N */
    FILEKIND_SCRIPT,  /* build scripts and their inputs: Makefile, *.mk, configure, *.in, ... */
    FILEKIND_NO_EXT,  /* no extension (C++ standard headers, programs) */
};

enum filekind filekind_of(const char *path);

/* A source the C compiler driver (gcc, clang) compiles itself: C, C++, Objective-C, assembler. */
bool filekind_cc_source(const char *path);

/* Source or header text: what may carry a copy of someone's code. */
bool filekind_is_code(const char *path);

/* Data the C library and the terminal read at run time, whatever their names say: locales,
 * gconv modules, the dynamic loader's cache, terminfo, time zones, the name-service files
 * (/etc/passwd, group, nsswitch.conf, hosts, resolv.conf), the loader's search path
 * (/etc/ld.so.conf, ld.so.conf.d/).  Never a header, a library or a build script (a compiler
 * reads them as every program does). */
bool filekind_is_runtime_data(const char *path);

/* A package's metadata about its other files, in a .deb's control part: DEBIAN/control,
 * md5sums, shlibs, symbols, triggers, conffiles (made by scanning the package: they carry
 * none of what they list; the maintainer scripts are code and are not these). */
bool filekind_is_package_metadata(const char *path);

/* An object the compiler driver links into every program under a license exception (crt*.o,
 * libgcc*, libssp_nonshared, libc_nonshared.a): toolchain runtime, not the program's code.
 * Its exception's SPDX expression, or NULL. */
const char *filekind_toolchain_runtime(const char *path);
