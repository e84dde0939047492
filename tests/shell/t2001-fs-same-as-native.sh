#!/bin/sh
# Common file operations give the same results traced as natively (a smoke test; the full
# conformance suite is its own issue).
. "$(dirname "$0")/lib.sh"
require_fuse

cat > "$T/ops.sh" <<'OPS'
set -u
umask 022
r() { "$@" 2>&1; echo "-> $?"; }
echo hello > f; echo more >> f; r cat f
r mkdir d; r mkdir d; r rmdir nope
printf 'abc' > d/g; r mv d/g d/h; r ls d
r ln -s f link; r readlink link; r cat link; r ln -s missing dangling; r cat dangling
r ln f hard; stat -c '%h %s %A' f hard
r truncate -s 2 f; r cat f; r chmod 600 f; stat -c '%A %s' f
r touch -d '2001-02-03 04:05:06.123456789' f; stat -c '%y' f
r rm d/h; r rmdir d; r rm f; r ls
(exec 3>app; echo one >&3; echo two >&3); r cat app
r sh -c 'set -C; echo x > app'
dd if=/dev/zero of=sparse bs=1 count=1 seek=1048576 2>/dev/null; stat -c '%s' sparse
printf '#!/bin/sh\necho script ran\n' > s.sh; chmod +x s.sh; r ./s.sh
r sh -c 'cd /nonexistent-dir-xyz'
ls -a | sort | tr '\n' ' '; echo
OPS

mkdir "$T/native" "$T/traced"
cp "$T/ops.sh" "$T/native/"; cp "$T/ops.sh" "$T/traced/"
(cd "$T/native" && sh ./ops.sh > ../native.out 2>&1)
(cd "$T/traced" && bt run -q -o "$T/trace.db" -- sh ./ops.sh > ../traced.out 2>&1)
diff -u "$T/native.out" "$T/traced.out" || fail "traced results differ from native"
assert_no_leftovers
