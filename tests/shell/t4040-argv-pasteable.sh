#!/bin/sh
# A command line printed by tree and show is shell words: pasted into a shell it runs the same
# argv, byte for byte — backslashes inside single quotes stay single (not "\\"), a word with
# a newline, a control character or bytes that are not UTF-8 is written $'...' (bash, zsh,
# ksh, POSIX.1-2024 sh), a first word like A=b or time is quoted.  Off a terminal and on one
# (script(1)); --json keeps JSON arrays.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd cc
require_cmd bash
require_cmd python3
require_cmd script
mkdir "$T/ws" && cd "$T/ws"
# dumpargs writes its argv, each word NUL-terminated, to args.N (N: its first argument).
cat > dumpargs.c <<'C'
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv) {
    char name[64];
    snprintf(name, sizeof name, "args.%s", argc > 1 ? argv[1] : "x");
    FILE *f = fopen(name, "wb");
    for (int i = 0; f && i < argc; i++) fwrite(argv[i], 1, strlen(argv[i]) + 1, f);
    return !f || fclose(f) != 0;
}
C
cc -o dumpargs dumpargs.c && rm dumpargs.c
cat > build.sh <<'B'
./dumpargs 1 "$(printf 'find .  \\( \\( \\\n\t-name x')"
./dumpargs 2 "it's" '' '=ls' 'a b' '$HOME' '`id`' '*' '~' '!x' 'a\b' "$(printf 'caf\303\251')"
./dumpargs 3 "$(printf 'bad\377\376byte')" "$(printf '\033[31mred\001abc')" "$(printf '\302\233' )2J"
./dumpargs 4 "$(printf 'it'"'"'s\n!')" "$(printf 'x\342\200\256y')"
(exec -a 'CC=gcc' ./dumpargs 5 -c)
(exec -a time ./dumpargs 6 -p)
B
bt run -q -o "$T/t.db" -- bash build.sh
export BUILDTRAIL_DB="$T/t.db"
# The ids of the dumpargs processes, by their first argument.
bt tree --json | python3 -c '
import json, sys
def walk(n):
    p = n["process"]
    if (p["exe"] or "").endswith("/dumpargs"):
        print(p["argv"][1], p["id"])
    for c in n["children"]: walk(c)
for r in json.load(sys.stdin)["processes"]: walk(r)
' | sort -u > "$T/ids"
[ "$(wc -l < "$T/ids")" = 6 ] || fail "dumpargs processes: $(cat "$T/ids"); $(bt tree)"
# check SHELL N LINE: LINE (without its "[ID] "), read by SHELL, is args.N
check() {
    "$1" -c 'eval "set -- $1"; for a in "$@"; do printf "%s\0" "$a"; done' x "$3" > "$T/got" ||
        fail "$1 could not read the line of $2: $3"
    cmp -s "$T/got" "args.$2" ||
        fail "$1 reads the line of $2 as another argv: $3 -> $(od -c "$T/got" | head -5)"
}
while read -r n id; do
    line=$(bt show "$id" | sed -n '1s/^\[[0-9]*\] //p')
    check bash "$n" "$line"
    ! command -v zsh > /dev/null || check zsh "$n" "$line"
    tline=$(bt tree "$id" | sed -n '1s/^\[[0-9]*\] //p')
    [ "$tline" = "$line" ] || fail "tree $id and show $id differ: $tline / $line"
    # no control byte, no invalid UTF-8 on the line
    printf '%s' "$line" | python3 -c '
import sys
b = sys.stdin.buffer.read(); b.decode("utf-8")
assert not any(c < 0x20 or c == 0x7f for c in b), b' || fail "raw bytes in the line of $n: $line"
done < "$T/ids"
# The words without control characters are plain POSIX quoting: dash reads them too.
id2=$(awk '$1 == 2 {print $2}' "$T/ids")
check dash 2 "$(bt show "$id2" | sed -n '1s/^\[[0-9]*\] //p')"
# What the issue showed: C escapes inside single quotes.
id1=$(awk '$1 == 1 {print $2}' "$T/ids")
assert_contains "$(bt show "$id1" | sed -n 1p)" "\$'find .  \\\\( \\\\( \\\\\\n\\t-name x'" "the find line"
assert_contains "$(bt show "$id2" | sed -n 1p)" "'a\\b'" "a backslash in single quotes"
# On a terminal: the same line from show, and from tree --full.
for cmd in "show $id1" "tree --full $id1"; do
    script -qec "stty cols 80 rows 50 2>/dev/null; BUILDTRAIL_PAGER=cat '$BUILDTRAIL' $cmd" \
        /dev/null > "$T/tty.out" 2>&1 || true
    line=$(tr -d '\r' < "$T/tty.out" | sed -n '1s/^\[[0-9]*\] //p')
    check bash 1 "$line"
done
# --json is unchanged: arrays of the exact words (non-UTF-8 bytes as \udcXX).
id3=$(awk '$1 == 3 {print $2}' "$T/ids")
bt show --json "$id3" | python3 -c '
import json, sys
a = json.load(sys.stdin)["processes"][0]["process"]["argv"]
got = b"".join(w.encode("utf-8", "surrogateescape") + b"\0" for w in a[1:])
want = open("args.3", "rb").read().split(b"\0", 1)[1]
assert got == want, (got, want)
' || fail "--json argv"
cd "$T"
assert_no_leftovers
