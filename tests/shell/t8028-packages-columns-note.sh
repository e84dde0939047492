#!/bin/sh
# packages' text on long names: the version and source columns stay aligned when a package's
# name or version is longer than the usual width (linux-headers-6.1.0-13-cloud-amd64); and
# the note on a watched trace (run --system as root) says how the trace was made, not what to
# run ("(run --system as root)" read as an instruction though the trace was made so).  The
# packages come from a dpkg database of our own (--admindir) owning real system headers.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd cc
[ -f /usr/include/stdio.h ] || missing "libc6-dev's headers"
mkdir -p "$T/ws" "$T/dpkg/info" && cd "$T/ws"
long=libthis-package-name-is-longer-than-the-column-dev
cat > "$T/dpkg/status" <<STATUS
Package: $long
Status: install ok installed
Architecture: amd64
Source: longsrc (1:2.36-9+really2.37~bpo12+1+b2)
Version: 1:2.36-9+really2.37~bpo12+1+b2

Package: shortdev
Status: install ok installed
Architecture: amd64
Version: 1.0

STATUS
printf '/usr/include/stdio.h\n' > "$T/dpkg/info/$long.list"
printf '/usr/include/stdlib.h\n' > "$T/dpkg/info/shortdev.list"
printf '#include <stdio.h>\n#include <stdlib.h>\nint main(void) { puts("x"); return EXIT_SUCCESS; }\n' > m.c
bt run --system -o "$T/sys.db" -- cc -o m m.c
out=$(bt packages -d "$T/sys.db" --admindir "$T/dpkg" 2> "$T/err")
l1=$(printf '%s\n' "$out" | grep "^  $long ") || fail "no line for $long: $out"
l2=$(printf '%s\n' "$out" | grep "^  shortdev ") || fail "no line for shortdev: $out"
# the column "source" starts at the same place on both lines
c1=$(printf '%s\n' "$l1" | awk '{ print index($0, " source ") }')
c2=$(printf '%s\n' "$l2" | awk '{ print index($0, " source ") }')
[ "$c1" = "$c2" ] && [ "$c1" -gt 0 ] || fail "columns broken ($c1 vs $c2):
$l1
$l2"
# the name and version are whole, each followed by a space
printf '%s\n' "$l1" | grep -q "^  $long 1:2.36-9+really2.37~bpo12+1+b2 " || fail "name or version cut: $l1"
if [ "$(id -u)" = 0 ]; then
    # watched: the note says how the trace was made, never "(run --system as root)"
    assert_contains "$(cat "$T/err")" "this trace watched the system trees (it was recorded with --system as root)" "note"
    grep -q "(run --system as root)" "$T/err" && fail "the note reads as an instruction: $(cat "$T/err")"
else
    # served through FUSE: nothing to note about watching
    grep -q "watched" "$T/err" && fail "a note about watching on a served trace: $(cat "$T/err")"
fi
cd "$T"
assert_no_leftovers
