#!/bin/sh
# licenses --copyright: beside each incorporated file of the source tree, the license its last
# matching Files paragraph declares (DEP-5: later paragraphs override "Files: *"), as SPDX,
# and whether the file's own notices agree — in the text and in JSON ("declared", "agrees":
# null where there is nothing to compare).  The tree is the one debian/ is in; a copy of the
# file elsewhere describes the build's directory.  A FIFO, a directory, a missing file or a
# free-form copyright file is a usage error (exit 2, one line), never a hang.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd cc
require_cmd python3
mkdir -p "$T/ws/src" "$T/ws/debian" && cd "$T/ws"
cat > src/a.c <<'C'
/* Permission is hereby granted, free of charge, to any person obtaining a copy
 * of this software and associated documentation files (the "Software"), to deal
 * in the Software without restriction. */
int b(void); int c(void);
int main(void) { return b() + c(); }
C
cat > src/b.c <<'C'
/* This program is free software; you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 2 of the License, or
 * (at your option) any later version. */
int b(void) { return 0; }
C
cat > src/c.c <<'C'
int c(void) { return 0; }
C
cat > debian/copyright <<'D'
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: demo

Files: *
Copyright: 2024 A
License: Expat

Files: src/b.c
Copyright: 2024 B
License: GPL-2

Files: src/c.*
Copyright: 2024 C
License: ISC
D
bt run -o "$T/trace.db" -- cc -o prog src/a.c src/b.c src/c.c > "$T/build.log" 2>&1 ||
    fail "build failed: $(cat "$T/build.log")"
bt licenses -d "$T/trace.db" --json --copyright debian/copyright prog > "$T/l.json" ||
    fail "licenses --copyright failed"
python3 - "$T/l.json" "$T/ws" <<'PY' || fail "licenses --copyright (the lines above)"
import json, os, sys
d = json.load(open(sys.argv[1]))
by = {os.path.basename(f["path"]): f for f in d["files"] if f["category"] == "incorporated"}
want = {"a.c": ("MIT", "MIT", True),                          # Expat is MIT
        "b.c": ("GPL-2.0-or-later", "GPL-2.0-only", False),   # "GPL-2" is 2 only; the file says or later
        "c.c": (None, "ISC", None)}                           # no notice: nothing to compare
bad = []
for n, w in want.items():
    f = by.get(n)
    got = f and (f["license"], f.get("declared"), f.get("agrees"))
    if got != w:
        bad.append("%s: %r, expected %r" % (n, got, w))
if d["copyright"]["disagree"] != 1 or os.path.realpath(d["copyright"]["root"]) != os.path.realpath(sys.argv[2]):
    bad.append("copyright: %r" % d["copyright"])
for b in bad:
    print("FAIL: " + b)
sys.exit(1 if bad else 0)
PY
out=$(bt licenses -d "$T/trace.db" --copyright debian/copyright prog)
printf '%s\n' "$out" | grep -E "src/b\.c +\[debian/copyright: GPL-2\.0-only -- DISAGREES\]" > /dev/null ||
    fail "b.c's disagreement not in the text: $out"
printf '%s\n' "$out" | grep -E "src/a\.c +\[debian/copyright: MIT\]" > /dev/null || fail "a.c: $out"
assert_contains "$out" "1 incorporated file disagrees"
# without --copyright: no such members
bt licenses -d "$T/trace.db" --json prog | grep -q '"declared"' && fail "declared without --copyright"
# a copy outside debian/: its patterns are relative to the build's directory; no paragraph for b.c
printf 'Format: x\n\nFiles: src/a.c\nLicense: Expat\n' > "$T/other-copyright"
bt licenses -d "$T/trace.db" --json --copyright "$T/other-copyright" prog | python3 -c '
import json, sys
d = json.load(sys.stdin)
by = {f["path"].rsplit("/", 1)[1]: f for f in d["files"] if f["category"] == "incorporated"}
assert by["a.c"]["declared"] == "MIT" and by["a.c"]["agrees"] is True, by["a.c"]
assert by["b.c"]["declared"] is None and by["b.c"]["agrees"] is None, by["b.c"]
assert d["copyright"]["disagree"] == 0, d["copyright"]
' || fail "a copyright file outside debian/"
out=$(bt licenses -d "$T/trace.db" --copyright "$T/other-copyright" prog)
printf '%s\n' "$out" | grep -E "src/b\.c +\[debian/copyright: no Files paragraph matches\]" > /dev/null ||
    fail "b.c matched by no paragraph: $out"
# bad input: a usage error each, one line, fast
mkfifo "$T/fifo"
printf 'This is the Debian package of demo.\nIt is GPL.\n' > "$T/freeform"
for bad in "$T/fifo" "$T/ws/src" "$T/nonexistent" "$T/freeform"; do
    set +e; timeout 30 "$BUILDTRAIL" licenses -d "$T/trace.db" --copyright "$bad" prog > "$T/o" 2> "$T/e"; st=$?; set -e
    assert_eq "$st" 2 "licenses --copyright $bad ($(cat "$T/e"))"
    [ "$(wc -l < "$T/e")" = 1 ] || fail "more than one line for $bad: $(cat "$T/e")"
    grep -q "^buildtrail licenses: $bad: .*; give a machine-readable debian/copyright" "$T/e" ||
        fail "the message for $bad: $(cat "$T/e")"
    [ -s "$T/o" ] && fail "an answer printed despite the error: $(cat "$T/o")"
done
grep -q "line 1: neither a field" "$T/e" || fail "the free-form file's error says why: $(cat "$T/e")"
cd "$T"
assert_no_leftovers
