#!/bin/sh
# pkgconf 1.8.1-1 built traced (dpkg-buildpackage, as t8007): cli/getopt_long.c carries two
# notices, and a --deny 'BSD-4-Clause' gate sees the second.  Ground truth, its lines:
#   "Copyright (c) 2002 Todd C. Miller ... Permission to use, copy, modify, and distribute this
#    software for any purpose with or without fee is hereby granted"              -> ISC
#   "Copyright (c) 2000 The NetBSD Foundation, Inc. ... Redistribution and use in source and
#    binary forms, with or without modification, are permitted provided that the following
#    conditions are met: ... 3. All advertising materials mentioning features or use of this
#    software must display the following acknowledgement: This product includes software
#    developed by the NetBSD Foundation, Inc. and its contributors."      -> BSD-4-Clause
# so getopt_long.c is "BSD-4-Clause AND ISC" (before: ISC, and the gate passed); the shipped
# usr/bin/pkgconf (cli/main.c, cli/getopt_long.c, cli/renderer-msvc.c) fails the gate naming
# it, while the shipped libpkgconf.so.3.0.0 (ISC sources only; the CLI links it dynamically)
# passes.  debian/copyright declares getopt_long.c "BSD-4" alone: it disagrees (no ISC).
# cost: package (a real Debian package build: both variants are left out of the ASan pass)
# shares: pkgconf 1.8.1-1|nocheck nodoc|nocheck,nodoc
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/debpkg.sh"
deb_require
deb_build pkgconf 1.8.1-1 "nocheck nodoc" nocheck,nodoc
prog=$(find "$SRC/debian" -path '*/usr/bin/pkgconf' -type f | head -1)
lib=$(find "$SRC/debian" -path '*/usr/lib/*/libpkgconf.so.3.0.0' -type f | head -1)
[ -n "$prog" ] && [ -n "$lib" ] || fail "no shipped pkgconf or libpkgconf.so.3.0.0 under $SRC/debian"
set +e; bt licenses -d "$TRACE" --deny 'BSD-4-Clause' "$prog" > "$T/out" 2> "$T/err"; st=$?; set -e
assert_eq "$st" 1 "licenses --deny BSD-4-Clause on the shipped pkgconf ($(cat "$T/err"))"
grep -q "denied: .*/cli/getopt_long\.c is BSD-4-Clause AND ISC (matches 'BSD-4-Clause')" "$T/err" ||
    fail "the denial does not name cli/getopt_long.c: $(cat "$T/err")"
[ "$(grep -c 'denied:' "$T/err")" = 1 ] || fail "only getopt_long.c carries BSD-4-Clause: $(cat "$T/err")"
bt licenses -d "$TRACE" --deny 'BSD-4-Clause' "$lib" > /dev/null ||
    fail "libpkgconf.so (ISC) fails the BSD-4-Clause gate: $(bt licenses -d "$TRACE" "$lib")"
bt licenses -d "$TRACE" --json --copyright "$SRC/debian/copyright" "$prog" > "$T/p.json" ||
    fail "licenses --copyright on $prog failed"
python3 - "$T/p.json" <<'PY' || fail "licenses --copyright on pkgconf (the lines above)"
import json, sys
d = json.load(open(sys.argv[1]))
by = {f["path"].rsplit("/cli/", 1)[-1]: f for f in d["files"] if "/cli/" in f["path"]}
bad = []
g = by.get("getopt_long.c")
if not g or (g["license"], g.get("declared"), g.get("agrees")) != ("BSD-4-Clause AND ISC", "BSD-4-Clause", False):
    bad.append("getopt_long.c: %r" % g)
m = by.get("main.c")
if not m or (m["license"], m.get("declared"), m.get("agrees")) != ("ISC", "ISC", True):
    bad.append("main.c: %r" % m)
if "BSD-4-Clause" not in d["rollup"].split(" AND "):
    bad.append("roll-up %r lacks BSD-4-Clause" % d["rollup"])
for b in bad:
    print("FAIL: " + b)
sys.exit(1 if bad else 0)
PY
cd "$T"
assert_no_leftovers
