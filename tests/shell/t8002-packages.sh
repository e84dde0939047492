#!/bin/sh
# packages on a --system trace of a build that includes zlib.h: zlib1g-dev is used and
# incorporated (its header went into the program), its source package zlib is a Built-Using
# candidate, the compiler's packages were executed, and an undeclared-but-untouched build
# dependency is reported; without --system the command says what it cannot see.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd cc
require_cmd dpkg-query
[ -f /usr/include/zlib.h ] || missing "zlib1g-dev (apt-get install zlib1g-dev)"
mkdir "$T/ws" && cd "$T/ws"
printf '#include <zlib.h>\nint main(void) { return zlibVersion()[0] == 0; }\n' > z.c
bt run --system -o "$T/sys.db" -- cc -o z z.c -lz
out=$(bt packages -d "$T/sys.db" --build-depends 'zlib1g-dev | libz-dev, libnothere-dev (>= 1)')
printf '%s\n' "$out" | grep -Eq "^  zlib1g-dev +[^ ]+ +source zlib [^ ]+ .*incorporated" || fail "zlib1g-dev incorporated: $out"
src_ver=$(dpkg-query -W -f='${source:Version}' zlib1g-dev)
assert_contains "$out" "zlib (= $src_ver)" "Built-Using candidate"
gcc_pkg=$(dpkg-query -S "$(readlink -f "$(command -v cc)")" | cut -d: -f1 | head -n 1)
printf '%s\n' "$out" | grep -Eq "^  $gcc_pkg .*executed" || fail "the compiler's package ($gcc_pkg) was executed: $out"
assert_contains "$out" "declared build dependencies never touched (1): libnothere-dev" "untouched"
bt packages -d "$T/sys.db" --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["system_traced"] is True
z = [p for p in d["packages"] if p["package"] == "zlib1g-dev"][0]
assert z["source"] == "zlib" and z["incorporated"] and not z["executed"], z
'
# Without --system: no reads under /usr, and the output says why.
bt run -o "$T/plain.db" -- cc -o z z.c -lz
out=$(bt packages -d "$T/plain.db")
assert_contains "$out" "did not trace /usr" "note"
assert_contains "$out" "packages used (0)" "nothing seen"
set +e; bt packages -d "$T/plain.db" --admindir "$T/nowhere" 2>"$T/err"; st=$?; set -e
[ "$st" = 1 ] || fail "no dpkg database: exit $st"
assert_contains "$(cat "$T/err")" "no dpkg database in $T/nowhere" "message"
assert_no_leftovers
