/* progkind — what a program's name says it is, for every part of the query side that sorts
 * processes by program: compile entries (export), provenance roles (prov), the log's jobs
 * (logorder).  One list, so that they agree.
 *
 * Contract
 *   - Pure functions of a program's basename (qdb_process_program): no I/O, no state.
 *   - A compiler driver is what a build runs to compile (cc, gcc, clang++, x86_64-linux-gnu-
 *     gcc-12, arm-none-eabi-g++, clang-14, tcc, icx/icpx, icc/icpc, emcc/em++, nvcc); `cpp`
 *     is not one.  (export adds `zig cc` and the user's --compiler globs.)  A compiler proper is what the
 *     driver runs to read the sources (cc1, cc1plus, clang itself).  A build driver starts the
 *     build's jobs (make and its kin, ninja, samu).
 *   - A step kind says how a program's output carries what it read (provenance's code edges,
 *     docs/architecture.md "Provenance"): a compiler proper or assembler compiles what it reads,
 *     a linker links it, an archiver (ar, tar, dpkg-deb) archives it, a post-processor (strip, objcopy, dwz,
 *     debugedit, chrpath, patchelf) rewrites one file, a compressor compresses one file into
 *     another; an inspector (md5sum, readelf, objdump) writes about what it read and carries
 *     none of it; anything else is generic.  Target prefixes (a CPU first: x86_64-linux-gnu-,
 *     arm-none-eabi-, avr-), toolchain prefixes (llvm-, gcc-, eu-) and version suffixes are
 *     allowed (x86_64-linux-gnu-ld.bfd, gcc-ar-12, llvm-objcopy-14, eu-strip); any other word
 *     before the name is not one (a build's own `embed-file` is not file(1)).
 *   - An interpreter (perl, python, ruby, tclsh, php, node) loads modules to run: files with its
 *     module extensions are what it runs, not what it reads as data.
 */
#pragma once

#include <stdbool.h>

bool progkind_is_compiler_driver(const char *prog);
bool progkind_is_compiler_proper(const char *prog);
bool progkind_is_build_driver(const char *prog);

enum progkind_step {
    PROGKIND_GENERIC,
    PROGKIND_COMPILE,   /* cc1, cc1plus, clang, as */
    PROGKIND_LINK,      /* ld (and .bfd/.gold/.lld), collect2, gold, lld, mold */
    PROGKIND_ARCHIVE,   /* ar, ranlib (and gcc-ar, llvm-ar); tar, cpio, zip, dpkg-deb */
    PROGKIND_POSTPROC,  /* strip, objcopy, dwz, debugedit, chrpath, patchelf */
    PROGKIND_COMPRESS,  /* gzip, xz, bzip2, zstd, lz4, lzma, pigz */
    PROGKIND_INSPECT,   /* md5sum, sha256sum, readelf, objdump, nm, file, ldd: writes about
                         * what it read, none of its content */
};

enum progkind_step progkind_step(const char *prog);

/* Is `prog` an interpreter, and is `path` one of the modules it loads to run (perl: .pm .pl
 * .al .ix .bs, python: .py .pyc .pth, ruby: .rb, tcl: .tcl, php: .php, node: .js .mjs .cjs;
 * every one: .so)? */
bool progkind_is_interpreter(const char *prog);
bool progkind_loads_module(const char *prog, const char *path);
