#!/bin/sh
# --trace adds directories, also nested ones and ones outside the workspace; all keep their paths.
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir -p "$T/ws/sub" "$T/other"
echo in-sub > "$T/ws/sub/s.txt"; echo in-other > "$T/other/o.txt"; echo ws > "$T/ws/w.txt"
cd "$T/ws"
bt run --trace "$T/other" --trace sub -- sh -c "cat w.txt sub/s.txt $T/other/o.txt; pwd; echo new > $T/other/new.txt" > out.txt
assert_eq "$(cat out.txt)" "ws
in-sub
in-other
$T/ws" "what the build read"
for f in "$T/ws/w.txt" "$T/ws/sub/s.txt" "$T/other/o.txt"; do
    bt who-read "$f" | grep -q "read by .* cat " || fail "no reader recorded for $f"
done
bt who-wrote "$T/other/new.txt" | grep -q "written by .* sh -c" || fail "no writer recorded in --trace dir"
assert_eq "$(cat "$T/other/new.txt")" new "written through the traced dir"
assert_eq "$(sql buildtrail.db "select count(*) from trees")" 4 "trees recorded (workspace, 2 --trace, tmp)"
assert_no_leftovers
