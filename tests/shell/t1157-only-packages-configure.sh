#!/bin/sh
# A real upstream configure script that enables an optional feature when a library is
# installed: file 5.44's (Debian 12's source package) enables zstd decompression when zstd.h
# and -lzstd are found, and Debian's Build-Depends do not name libzstd-dev.  With libzstd-dev
# installed here, configure under `run --system --only-packages @debian/control` disables it
# (config.h: HAVE_ZSTD_H undefined), unrestricted enables it; `buildtrail diff` of the two
# traces gives as its first root causes the files hidden from the restricted build that the
# other found, /usr/include/zstd.h among them with its package.
# cost: workload (a real upstream configure, twice: its unprivileged variant is left out of the
# ASan pass)
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd cc
require_cmd dpkg-source
require_cmd python3
[ -f /usr/include/zstd.h ] || missing "libzstd-dev (apt-get install libzstd-dev): the library file's configure finds"
dsc=$(workload file_5.44-3.dsc)
workload file_5.44.orig.tar.gz > /dev/null
workload file_5.44-3.debian.tar.xz > /dev/null
unpack() {
    rm -rf "$T/src"
    mkdir "$T/src"
    (cd "$T/src" && dpkg-source -x "$dsc" > "$T/unpack.log" 2>&1) || fail "dpkg-source -x: $(tail -3 "$T/unpack.log")"
}
# Both at the same path, one after the other: what differs is what they found.
unpack
cd "$T/src/file-5.44"
grep -q 'libzstd-dev' debian/control && skip "this file source package declares libzstd-dev"
bt run -q --system --only-packages @debian/control -o "$T/only.db" -- ./configure > "$T/only.log" 2>&1 ||
    fail "configure under --only-packages: $(tail -5 "$T/only.log")"
grep -q '^/\* #undef HAVE_ZSTD_H \*/' config.h || fail "zstd enabled under --only-packages: $(grep ZSTD config.h)"
cd "$T"
unpack
cd "$T/src/file-5.44"
bt run -q --system -o "$T/free.db" -- ./configure > "$T/free.log" 2>&1 || fail "configure: $(tail -5 "$T/free.log")"
grep -q '^#define HAVE_ZSTD_H 1' config.h || fail "zstd not enabled unrestricted: $(grep ZSTD config.h)"
cd "$T"
set +e; bt diff "$T/only.db" "$T/free.db" > "$T/diff.txt"; st=$?; set -e
[ "$st" = 1 ] || fail "diff: exit $st: $(head -20 "$T/diff.txt")"
grep -A1 '^root cause [0-9]*: denied: /usr/include/zstd.h$' "$T/diff.txt" |
    grep -q '^    hidden from A (package libzstd-dev not allowed), found by B$' ||
    fail "diff does not name zstd.h: $(head -30 "$T/diff.txt")"
# The denials lead: no other kind of cause before the last denied one.
kinds=$(sed -n 's/^root cause [0-9]*: \([a-z ]*\): .*/\1/p' "$T/diff.txt" | uniq | head -2 | tr '\n' ,)
assert_eq "$(printf '%s' "$kinds" | cut -d, -f1)" denied "the first cause"
bt diff --json "$T/only.db" "$T/free.db" > "$T/diff.json" || [ $? = 1 ] || fail "diff --json"
python3 - "$T/diff.json" <<'PY' || fail "diff --json: the denied cause"
import json, sys
d = json.load(open(sys.argv[1]))
z = [c for c in d["root_causes"] if c["kind"] == "denied" and c["path"] == "/usr/include/zstd.h"]
assert len(z) == 1, [c["path"] for c in d["root_causes"] if c["kind"] == "denied"]
assert "libzstd-dev" in z[0]["detail"] and z[0]["process_b"] is not None, z
PY
assert_no_leftovers
