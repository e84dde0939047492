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
 */
#pragma once

#include <stdbool.h>

bool progkind_is_compiler_driver(const char *prog);
bool progkind_is_compiler_proper(const char *prog);
bool progkind_is_build_driver(const char *prog);
