#!/bin/sh
# xxhash 0.8.1-1 (Debian 12's source package: make, debhelper) built by dpkg-buildpackage under
# `run --system`: what went into every file its .debs ship, against its Makefile (amd64 sets
# DISPATCH=1): libxxhash.so.0.8.1 <- xxhash.c, xxh_x86dispatch.c; libxxhash.a <- xxhash.c (ar
# of xxhash.o); xxhsum <- xxhash.o, xxh_x86dispatch.o and the CLI's five cli/*.c, linked
# statically (it does not link the shared library).  The shipped copies (dh_install, then
# dh_strip's objcopy and strip) say what their build-tree files say, never the CLI's
# cli/xsum_*.c for the library (dh_strip read usr/bin/xxhsum before it stripped the library);
# the library's `licenses` roll-up is BSD-2-Clause and --deny 'GPL-*' passes on it (the CLI is
# GPL-2.0-or-later); each .deb's SPDX GENERATED_FROM names the sources of what it holds.
# Every check of debpkg.py (see there) applies.
# cost: workload (a real Debian package build: its unprivileged variant is left out of the ASan pass)
# shares: xxhash 0.8.1-1|nocheck nodoc|nocheck,nodoc
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/debpkg.sh"
deb_require
deb_build xxhash 0.8.1-1 "nocheck nodoc" nocheck,nodoc
deb_check '{
 "binaries": [
  {"shipped": "usr/lib/*/libxxhash.so.0.8.1", "build": "libxxhash.so.0.8.1",
   "sources": ["xxhash.c", "xxh_x86dispatch.c"]},
  {"shipped": "usr/lib/*/libxxhash.a", "build": "libxxhash.a", "sources": ["xxhash.c"]},
  {"shipped": "usr/bin/xxhsum", "build": "xxhsum",
   "sources": ["xxhash.c", "xxh_x86dispatch.c", "cli/xxhsum.c", "cli/xsum_os_specific.c",
               "cli/xsum_output.c", "cli/xsum_sanity_check.c", "cli/xsum_bench.c"]}],
 "licenses": [{"shipped": "usr/lib/*/libxxhash.so.0.8.1", "rollup": "BSD-2-Clause", "deny": "GPL-*"}],
 "system_incorporated": []}'
cd "$T"
assert_no_leftovers
