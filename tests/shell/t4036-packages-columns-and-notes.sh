#!/bin/sh
# packages (#34, the small ones): the columns stay aligned when a package's name is longer
# than the default width (a made-up dpkg database, --admindir, owning files the build read
# beside its tree); as root, the note on a watched --system trace says it was recorded so,
# not "(run --system as root)", which read as an instruction.
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir -p "$T/ws" "$T/share" "$T/dpkg/info"
echo a > "$T/share/a.txt" && echo b > "$T/share/b.txt"
long=a-rather-long-package-name-for-the-columns
printf 'Package: %s\nStatus: install ok installed\nArchitecture: all\nVersion: 1.0-1\n\nPackage: short\nStatus: install ok installed\nArchitecture: all\nVersion: 2.0-1\n\n' "$long" > "$T/dpkg/status"
echo "$T/share/a.txt" > "$T/dpkg/info/$long.list"
echo "$T/share/b.txt" > "$T/dpkg/info/short.list"
cd "$T/ws"
bt run -q -- sh -c 'cat ../share/a.txt ../share/b.txt > /dev/null'
out=$(bt packages --admindir "$T/dpkg" 2>/dev/null)
assert_contains "$out" "$long" "the long-named package"
cols=$(printf '%s\n' "$out" | grep ' source ' | awk '{ print index($0, " source ") }' | sort -u)
[ "$(printf '%s\n' "$cols" | wc -l)" = 1 ] || fail "columns not aligned: $out"
cols=$(printf '%s\n' "$out" | grep ' source ' | awk '{ print index($0, "-1 ") }' | sort -u)
[ "$(printf '%s\n' "$cols" | wc -l)" = 1 ] || fail "version column not aligned: $out"
if [ "$(id -u)" = 0 ]; then
    bt run -q --system -o "$T/sys.db" -- true
    bt packages -d "$T/sys.db" > /dev/null 2> "$T/err" || fail "packages: $(cat "$T/err")"
    grep -q "run --system as root)" "$T/err" && fail "reads as an instruction: $(cat "$T/err")"
    assert_contains "$(cat "$T/err")" "this trace watched the system trees (recorded by 'run --system' as root)" "watched note"
fi
assert_no_leftovers
