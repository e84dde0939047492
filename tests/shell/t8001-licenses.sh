#!/bin/sh
# licenses: zlib's libz.a rolls up to Zlib (its sources point to zlib.h's notice); a project
# mixing a GPL-2.0-or-later tagged source, an MIT header-only library and a dynamically linked
# Apache-2.0 library rolls up to GPL-2.0-or-later AND MIT (the shared library is listed apart),
# --deny gates on incorporated files only, and --corresponding-source writes exactly the
# sources and build scripts that went in.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd make
require_cmd cc
require_cmd python3
mkdir -p "$T/ws/vendor" "$T/ws/dyn" && cd "$T/ws"
cat > main.c <<'C'
/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "vendor/tiny.h"
int dyn(void);
int main(void) { return tiny_add(1, 2) + dyn() - 5; }
C
cat > vendor/tiny.h <<'C'
/* tiny.h — a header-only library.
 * Permission is hereby granted, free of charge, to any person obtaining a copy of this
 * software, to deal in the Software without restriction. (MIT) */
static inline int tiny_add(int a, int b) { return a + b; }
C
cat > dyn/dyn.c <<'C'
/* Licensed under the Apache License, Version 2.0 (the "License"); */
int dyn(void) { return 2; }
C
cat > unused.c <<'C'
/* SPDX-License-Identifier: AGPL-3.0-only */
int unused(void) { return 0; }
C
cat > Makefile <<'M'
all: prog
libdyn.so: dyn/dyn.c
	cc -shared -fPIC -o $@ dyn/dyn.c
unused.o: unused.c
	cc -c -o $@ unused.c
prog: main.c vendor/tiny.h libdyn.so unused.o
	cc -o $@ main.c -L. -ldyn
M
bt run -o "$T/trace.db" -- make > "$T/build.log" 2>&1 || fail "build failed: $(cat "$T/build.log")"
out=$(bt licenses -d "$T/trace.db" prog)
assert_contains "$out" "roll-up: GPL-2.0-or-later AND MIT" "roll-up: $out"
printf '%s\n' "$out" | grep -Eq "^    Apache-2.0 +$T/ws/dyn/dyn.c" && fail "dyn.c is not incorporated: $out"
printf '%s\n' "$out" | grep -q "shared libraries (linked dynamically, not incorporated)" || fail "libdyn.so not listed apart: $out"
case "$out" in *unused.c*) fail "unused.c was never linked in: $out";; esac
bt licenses -d "$T/trace.db" --json prog | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["rollup"] == "GPL-2.0-or-later AND MIT", d["rollup"]
by = {f["path"].rsplit("/", 1)[1]: f for f in d["files"]}
assert by["main.c"]["category"] == "incorporated" and by["main.c"]["license"] == "GPL-2.0-or-later"
assert by["tiny.h"]["category"] == "incorporated" and by["tiny.h"]["license"] == "MIT"
assert by["libdyn.so"]["category"] == "dynamic", by.get("libdyn.so")
assert "dyn.c" not in by, "the shared library is not followed"
assert by["Makefile"]["category"] == "script"
'
# --deny: a GPL gate fails; an Apache gate passes (Apache is only linked dynamically).
set +e; bt licenses -d "$T/trace.db" --deny 'GPL-*,AGPL-*' prog > /dev/null 2>"$T/err"; st=$?; set -e
[ "$st" = 1 ] || fail "--deny GPL-* exits $st"
assert_contains "$(cat "$T/err")" "denied: $T/ws/main.c is GPL-2.0-or-later" "denial message"
bt licenses -d "$T/trace.db" --deny 'Apache-*' prog > /dev/null || fail "--deny Apache-* must pass"
# Corresponding source: exactly the incorporated sources and the build scripts, as built.
bt licenses -d "$T/trace.db" --corresponding-source "$T/src" prog > /dev/null
(cd "$T/src" && find . -type f | sort) > "$T/got"
printf './Makefile\n./main.c\n./vendor/tiny.h\n' > "$T/want"
diff "$T/want" "$T/got" || fail "corresponding source differs"
cmp "$T/src/main.c" main.c || fail "main.c copied wrong"
bt licenses -d "$T/trace.db" --corresponding-source "$T/src.tar.gz" prog > /dev/null
[ "$(tar tzf "$T/src.tar.gz" | grep -c 'main.c$')" = 1 ] || fail "tarball lacks main.c"
# A source changed since the build is not silently collected.
echo "/* edited */" >> main.c
set +e; bt licenses -d "$T/trace.db" --corresponding-source "$T/src2" prog > "$T/out2" 2>"$T/err"; st=$?; set -e
[ "$st" = 1 ] || fail "a changed source must fail the collection (exit $st)"
assert_contains "$(cat "$T/err")" "main.c: changed since the build" "message"
assert_contains "$(cat "$T/out2")" "(changed since the build)" "listing says so"

# zlib: libz.a rolls up to Zlib.
tarball=$(workload zlib_1.2.13.dfsg.orig.tar.bz2)
tar xjf "$tarball" -C "$T"
(cd "$T/zlib-1.2.13.dfsg" && bt run -o "$T/z.db" -- sh -c './configure && make -j2 libz.a' > "$T/z.log" 2>&1) || fail "zlib build failed"
out=$(bt licenses -d "$T/z.db" "$T/zlib-1.2.13.dfsg/libz.a")
assert_contains "$out" "roll-up: Zlib" "zlib roll-up: $out"
assert_contains "$out" "adler32.c  (notice in $T/zlib-1.2.13.dfsg/zlib.h)" "reference to zlib.h's notice"
assert_no_leftovers
