#!/bin/sh
# Every (st_dev, st_ino) the build sees belongs to one file: on a fresh tmpfs workspace (small
# inode numbers) `cat a b` is not "input file is output file", two tmpfs trees never share a
# number, hard links still do, and stat and readdir agree.  (root: the test mounts tmpfs)
. "$(dirname "$0")/lib.sh"
require_fuse
require_root
mkdir "$T/ws"
mount -t tmpfs tmpfs "$T/ws"
on_cleanup "umount -l '$T/ws/a' '$T/ws/b' '$T/ws' 2>/dev/null"
cd "$T/ws"
mkdir a b
mount -t tmpfs tmpfs a
mount -t tmpfs tmpfs b
echo readme > README; echo notes > NOTES
echo x > a/x; echo y > b/y; ln a/x a/x-link
cat > probe.sh <<'EOS'
cat README NOTES
cp a/x b/x && echo copied
stat -c '%d:%i %n' a/x a/x-link b/y b/x README NOTES /proc/self/fd/1 | sort
ls -i a | sort
EOS
native=$(sh probe.sh 2>&1); rm b/x
traced=$(bt run -- sh probe.sh 2>&1) || fail "traced: $traced"
assert_contains "$traced" "readme
notes" "cat of two files"
assert_contains "$traced" copied "cp between two tmpfs trees"
ids=$(printf '%s\n' "$traced" | grep '^[0-9]*:[0-9]* ' | grep -v x-link | cut -d' ' -f1)
assert_eq "$(printf '%s\n' "$ids" | sort -u | wc -l)" "$(printf '%s\n' "$ids" | wc -l)" "distinct files with one (dev, ino): $traced"
x=$(printf '%s\n' "$traced" | sed -n 's/ a\/x$//p')
xl=$(printf '%s\n' "$traced" | sed -n 's/ a\/x-link$//p')
assert_eq "$xl" "$x" "hard links share their (dev, ino)"
ls_x=$(printf '%s\n' "$traced" | sed -n 's/^ *\([0-9]*\) x$/\1/p')
assert_eq "$ls_x" "${x#*:}" "readdir and stat agree"
umount a b
assert_no_leftovers
