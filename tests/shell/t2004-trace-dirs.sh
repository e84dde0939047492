#!/bin/sh
# Everything outside the system trees is traced where it lies: a sibling of the workspace, a
# subdirectory, all with their own paths and no flag (--trace of them adds nothing).  --trace
# adds a directory under a system tree that is not traced (root: made under /opt).
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
bt who-wrote "$T/other/new.txt" | grep -q "written by .* sh -c" || fail "no writer recorded in a sibling"
assert_eq "$(cat "$T/other/new.txt")" new "written through the traced tree"
assert_eq "$(sql buildtrail.db "select count(*) from trees where path in ('$T/other', '$T/ws/sub')")" 0 "--trace inside a traced tree adds no tree"
assert_eq "$(sql buildtrail.db "select role from trees where path = '$T/ws'")" workspace "the workspace is named"
assert_eq "$(sql buildtrail.db "select count(*) from trees where path in ('/usr', '/etc', '/proc', '/dev', '/run', '/sys')")" 0 "system and kernel trees are not traced"
assert_no_leftovers

# A directory in an untraced system tree, added with --trace.
if [ "$(id -u)" = 0 ] && [ -d /opt ]; then
    extra=$(mktemp -d /opt/bt-trace-XXXXXX)
    on_cleanup rm -rf "$extra"
    echo opt > "$extra/o.txt"
    bt run --trace "$extra" -- cat "$extra/o.txt" > out.txt
    bt who-read "$extra/o.txt" | grep -q "read by .* cat " || fail "no reader recorded in --trace $extra"
    assert_eq "$(sql buildtrail.db "select count(*) from trees where path = '$extra'")" 1 "the --trace tree"
    assert_no_leftovers
fi
