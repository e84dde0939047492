#!/bin/sh
# xxhash 0.8.1-1 built traced (dpkg-buildpackage, as t8005): `licenses --copyright
# debian/copyright` puts what debian/copyright declares beside what each incorporated file
# says, and where they disagree, debian/copyright is the stale one.  Ground truth, read from
# the package: debian/copyright has "Files: * / License: BSD-2-clause" and "Files: xxhsum.c /
# License: GPL-2" — but 0.8.1 moved the CLI to cli/ (cli/xxhsum.c, cli/xsum_*.c), so no file
# matches that paragraph any more and the CLI falls under "Files: *", while every cli/*.c says
#   * GPL v2 License
#   * This program is free software; you can redistribute it and/or modify
#   * it under the terms of the GNU General Public License as published by
#   * the Free Software Foundation; either version 2 of the License, or
#   * (at your option) any later version.
# So: the shipped libxxhash.so.0.8.1 (xxhash.c, xxh_x86dispatch.c and their headers, each
# "BSD 2-Clause License ... Redistribution and use in source and binary forms, with or without
# modification, are permitted provided that the following conditions are met: * ... * ...")
# agrees file by file (BSD-2-Clause); the shipped xxhsum's cli/*.c are declared BSD-2-Clause
# and detected GPL-2.0-or-later: "agrees": false, and the text says DISAGREES.
# cost: package (a real Debian package build: both variants are left out of the ASan pass)
# shares: xxhash 0.8.1-1|nocheck nodoc|nocheck,nodoc
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/debpkg.sh"
deb_require
deb_build xxhash 0.8.1-1 "nocheck nodoc" nocheck,nodoc
lib=$(find "$PKG/$(basename "$SRC")/debian" -path '*/usr/lib/*/libxxhash.so.0.8.1' -type f | head -1)
cli=$(find "$PKG/$(basename "$SRC")/debian" -path '*/usr/bin/xxhsum' -type f | head -1)
[ -n "$lib" ] && [ -n "$cli" ] || fail "no shipped libxxhash.so.0.8.1 or xxhsum under $SRC/debian"
bt licenses -d "$TRACE" --json --copyright "$SRC/debian/copyright" "$lib" > "$T/lib.json" ||
    fail "licenses --copyright on $lib failed"
bt licenses -d "$TRACE" --json --copyright "$SRC/debian/copyright" "$cli" > "$T/cli.json" ||
    fail "licenses --copyright on $cli failed"
python3 - "$T/lib.json" "$T/cli.json" "$SRC" <<'PY' || fail "licenses --copyright on xxhash's shipped files (the lines above)"
import json, os, sys
lib, cli = (json.load(open(p)) for p in sys.argv[1:3])
src = os.path.realpath(sys.argv[3])
bad = []
def rel(p):
    return os.path.relpath(p, src)
def tree(d):
    return {rel(f["path"]): f for f in d["files"] if f["category"] == "incorporated"
            and os.path.realpath(f["path"]).startswith(src + "/")}
libfiles = tree(lib)
for need in ("xxhash.c", "xxh_x86dispatch.c", "xxhash.h"):
    if need not in libfiles:
        bad.append("the library's incorporated files lack %s: %s" % (need, sorted(libfiles)))
for name, f in libfiles.items():
    if (f.get("declared"), f.get("license"), f.get("agrees")) != ("BSD-2-Clause", "BSD-2-Clause", True):
        bad.append("library: %s: declared %r, detected %r, agrees %r" % (name, f.get("declared"), f.get("license"), f.get("agrees")))
if lib["copyright"]["disagree"] != 0:
    bad.append("library: %d disagreements, expected none" % lib["copyright"]["disagree"])
clifiles = tree(cli)
stale = {n for n in clifiles if n.startswith("cli/") and n.endswith(".c")}
want = {"cli/xxhsum.c", "cli/xsum_os_specific.c", "cli/xsum_output.c", "cli/xsum_sanity_check.c", "cli/xsum_bench.c"}
if not want <= stale:
    bad.append("xxhsum: incorporated cli/*.c %s, expected at least %s" % (sorted(stale), sorted(want)))
for name in sorted(stale):
    f = clifiles[name]
    if (f.get("declared"), f.get("license"), f.get("agrees")) != ("BSD-2-Clause", "GPL-2.0-or-later", False):
        bad.append("xxhsum: %s: declared %r, detected %r, agrees %r (expected BSD-2-Clause, GPL-2.0-or-later, false)"
                   % (name, f.get("declared"), f.get("license"), f.get("agrees")))
n = sum(1 for f in clifiles.values() if f.get("agrees") is False)
if cli["copyright"]["disagree"] != n or n < len(want):
    bad.append("xxhsum: disagree %d, files that disagree %d" % (cli["copyright"]["disagree"], n))
if os.path.realpath(cli["copyright"]["root"]) != src:
    bad.append("root %r, expected the tree debian/ is in, %s" % (cli["copyright"]["root"], src))
for b in bad:
    print("FAIL: " + b)
sys.exit(1 if bad else 0)
PY
out=$(bt licenses -d "$TRACE" --copyright "$SRC/debian/copyright" "$cli")
printf '%s\n' "$out" | grep -E "cli/xxhsum\.c .*\[debian/copyright: BSD-2-Clause -- DISAGREES\]" > /dev/null ||
    fail "the text does not say cli/xxhsum.c disagrees: $out"
printf "%s\n" "$out" | grep DISAGREES | sed "s/^/# /"
assert_contains "$out" "incorporated files disagree"
cd "$T"
assert_no_leftovers
