#!/bin/sh
# lmdb 0.9.24-1 built traced (dpkg-buildpackage, as t8006): `licenses` reads what each file of
# the shipped mdb_stat says (it links liblmdb.a's mdb.o and midl.o statically).  Ground truth,
# the notices' lines in libraries/liblmdb:
#   mdb_stat.c, midl.c, midl.h:  "Redistribution and use in source and binary forms, with or
#       without modification, are permitted only as authorized by the OpenLDAP Public License."
#       (LICENSE beside them: "The OpenLDAP Public License Version 2.8")      -> OLDAP-2.8
#   mdb.c, lmdb.h:  that notice, then "This code is derived from btree.c written by Martin
#       Hedenfalk. ... Permission to use, copy, modify, and distribute this software for any
#       purpose with or without fee is hereby granted, provided that the above copyright
#       notice and this permission notice appear in all copies."   -> ISC AND OLDAP-2.8
# (before: mdb.c ISC — only the btree part —, midl.c, midl.h and mdb_stat.c unknown).  The
# roll-up is ISC AND OLDAP-2.8 with no file of lmdb's unknown; --deny 'ISC' fails it, naming mdb.c;
# `--copyright debian/copyright` ("Files: * / License: OpenLDAP-2.8") agrees on midl.c and
# mdb_stat.c and disagrees on mdb.c, whose ISC notice it does not declare.
# cost: package (a real Debian package build: both variants are left out of the ASan pass)
# shares: lmdb 0.9.24-1|nocheck nodoc|nocheck,nodoc
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/debpkg.sh"
deb_require
deb_build lmdb 0.9.24-1 "nocheck nodoc" nocheck,nodoc
tool=$(find "$SRC/debian" -path '*/usr/bin/mdb_stat' -type f | head -1)
[ -n "$tool" ] || fail "no shipped mdb_stat under $SRC/debian"
bt licenses -d "$TRACE" --json --copyright "$SRC/debian/copyright" "$tool" > "$T/l.json" ||
    fail "licenses on $tool failed"
python3 - "$T/l.json" "$SRC/libraries/liblmdb" <<'PY' || fail "licenses on lmdb's shipped mdb_stat (the lines above)"
import json, os, sys
d = json.load(open(sys.argv[1]))
lib = os.path.realpath(sys.argv[2])
got = {os.path.basename(f["path"]): f for f in d["files"] if f["category"] == "incorporated"
       and os.path.dirname(os.path.realpath(f["path"])) == lib}
want = {"mdb.c": ("ISC AND OLDAP-2.8", False), "lmdb.h": ("ISC AND OLDAP-2.8", False),
        "midl.c": ("OLDAP-2.8", True), "midl.h": ("OLDAP-2.8", True),
        "mdb_stat.c": ("OLDAP-2.8", True)}
bad = []
for name, (lic, agrees) in want.items():
    f = got.get(name)
    if not f:
        bad.append("%s is not incorporated: %s" % (name, sorted(got)))
    elif (f["license"], f.get("declared"), f.get("agrees")) != (lic, "OLDAP-2.8", agrees):
        bad.append("%s: license %r declared %r agrees %r; expected %r, 'OLDAP-2.8', %r"
                   % (name, f["license"], f.get("declared"), f.get("agrees"), lic, agrees))
if d["rollup"] != "ISC AND OLDAP-2.8":
    bad.append("roll-up %r, expected 'ISC AND OLDAP-2.8'" % d["rollup"])
# every incorporated file of lmdb's tree says its license (what prov counts as incorporated
# from outside the tree is prov's answer, not license detection's)
unknown = sorted(f["path"] for f in d["files"] if f["category"] == "incorporated"
                 and not f["license"] and os.path.realpath(f["path"]).startswith(lib + "/"))
if unknown:
    bad.append("lmdb's files of unknown license: %s" % unknown)
for b in bad:
    print("FAIL: " + b)
sys.exit(1 if bad else 0)
PY
set +e; bt licenses -d "$TRACE" --deny 'ISC' "$tool" > /dev/null 2> "$T/err"; st=$?; set -e
assert_eq "$st" 1 "licenses --deny ISC on mdb_stat (mdb.c carries btree.c's ISC notice)"
grep -q "denied: .*/mdb\.c is ISC AND OLDAP-2.8" "$T/err" || fail "the denial does not name mdb.c: $(cat "$T/err")"
cd "$T"
assert_no_leftovers
