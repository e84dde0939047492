#!/bin/sh
# export --format compile-commands as Bear users expect: arguments[0] is the program as
# invoked (found on the process's PATH, symlinks not resolved: /usr/bin/cc, not
# x86_64-linux-gnu-gcc-12); compilers beyond the known ones are named with --compiler or in
# ~/.config/buildtrail/compilers; --append keeps the entries of the -o file the build did
# not make again (verbatim) and replaces those it did; a file that is not a database is
# left alone.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd cc
require_cmd python3
mkdir -p "$T/ws/bin" && cd "$T/ws"
printf 'int a(void) { return 1; }\n' > a.c
printf 'int b(void) { return 2; }\n' > b.c
# A compiler buildtrail does not know (a program, as nvcc or tcc are): `xcc -c SRC -o OUT`
# copies its source to its object.
cat > xcc.c <<'C'
#include <stdio.h>
int main(int argc, char **argv) {
    if (argc != 5) return 2;
    FILE *in = fopen(argv[2], "rb"), *out = fopen(argv[4], "wb");
    int c;
    if (!in || !out) return 1;
    while ((c = getc(in)) != EOF) putc(c, out);
    return fclose(out) != 0;
}
C
cc -o bin/xcc xcc.c && rm xcc.c
export PATH="$T/ws/bin:$PATH"
bt run -q -o "$T/1.db" -- sh -c 'cc -c a.c -o a.o && xcc -c b.c -o b.x'
bt export -d "$T/1.db" --format compile-commands -o cc.json
cc_path=$(command -v cc)
python3 - cc.json "$cc_path" "$T/ws" <<'PY' || fail "arguments[0]: $(cat cc.json)"
import json, sys
db = json.load(open(sys.argv[1]))
assert [e["file"] for e in db] == [sys.argv[3] + "/a.c"], db   # xcc is not known yet
assert db[0]["arguments"][0] == sys.argv[2], (db[0]["arguments"][0], sys.argv[2])
PY
out=$(bt export -d "$T/1.db" --format compile-commands --compiler 'x?c')
printf '%s' "$out" | python3 -c '
import json, sys
db = json.load(sys.stdin)
x = [e for e in db if e["file"].endswith("/b.c")]
assert x and x[0]["arguments"] == [sys.argv[1] + "/bin/xcc", "-c", "b.c", "-o", "b.x"], db
' "$T/ws" || fail "--compiler: $out"
mkdir -p "$T/cfg/buildtrail"
printf '# site compilers\nxcc   # our own\n' > "$T/cfg/buildtrail/compilers"
XDG_CONFIG_HOME="$T/cfg" bt export -d "$T/1.db" --format compile-commands | grep -q '"file":"'"$T"'/ws/b.c"' ||
    fail "the config file's compiler"
# --append: b.c (from the config) is kept verbatim when the next build makes only a.c again,
# with other flags: a.c's entry is replaced, not doubled.
XDG_CONFIG_HOME="$T/cfg" bt export -d "$T/1.db" --format compile-commands -o cc.json
python3 - cc.json <<'PY'
import json, sys
db = json.load(open(sys.argv[1]))
for e in db:
    if e["file"].endswith("/b.c"):
        e["note"] = "kept as it was"
json.dump(db, open(sys.argv[1], "w"))
PY
bt run -q -o "$T/2.db" -- cc -O2 -c a.c -o a.o
bt export -d "$T/2.db" --format compile-commands --append -o cc.json
python3 - cc.json <<'PY' || fail "--append: $(cat cc.json)"
import json, sys
db = json.load(open(sys.argv[1]))
a = [e for e in db if e["file"].endswith("/a.c")]
b = [e for e in db if e["file"].endswith("/b.c")]
assert len(a) == 1 and "-O2" in a[0]["arguments"], a
assert len(b) == 1 and b[0].get("note") == "kept as it was", b
PY
# Not a database: refused, left as it was.
echo "precious" > notes.txt
set +e; bt export -d "$T/2.db" --format compile-commands --append -o notes.txt 2> "$T/err"; st=$?; set -e
[ "$st" = 1 ] || fail "--append to a non-database: exit $st"
[ "$(cat notes.txt)" = precious ] || fail "a non-database was replaced"
assert_contains "$(cat "$T/err")" "notes.txt is not a compilation database" "message"
set +e; bt export -d "$T/2.db" --format compile-commands --append > /dev/null 2> "$T/err"; st=$?; set -e
[ "$st" = 2 ] || fail "--append without -o: exit $st"
cd "$T"
assert_no_leftovers
