#!/bin/sh
# run --only-inputs and the system trees: unrestricted unless a manifest names a path in one;
# then, served through FUSE (--system=full), everything in that tree the manifests do not
# name looks absent (/usr/include/stdio.h) and what they name is there (/usr/include/zlib.h);
# not served (no --system), the run says that nothing is hidden there.
. "$(dirname "$0")/lib.sh"
require_fuse
[ -f /usr/include/zlib.h ] && [ -f /usr/include/stdio.h ] || missing "zlib1g-dev and libc6-dev"
mkdir "$T/ws" && cd "$T/ws"
printf '/usr/bin/\n/usr/lib/\n/usr/lib64/\n/usr/libexec/\n/usr/share/\n/usr/include/zlib.h\n' > M
probe='for f in /usr/include/zlib.h /usr/include/stdio.h; do if [ -e $f ]; then echo "has $f"; else echo "no $f"; fi; done'
out=$(bt run -q -o "$T/full.db" --system=full --only-inputs M -- sh -c "$probe" 2>&1) || fail "--system=full: $out"
assert_contains "$out" "has /usr/include/zlib.h" "the declared system header"
assert_contains "$out" "no /usr/include/stdio.h" "an undeclared system header"
assert_contains "$(bt files -d "$T/full.db" --denied)" "/usr/include/stdio.h: undeclared; looked up by" "files --denied"
out=$(bt run -o "$T/plain.db" --only-inputs M -- sh -c "$probe" 2>&1) || fail "without --system: $out"
assert_contains "$out" "has /usr/include/stdio.h" "unrestricted /usr without --system"
assert_contains "$out" "buildtrail run: --only-inputs names files in /usr, which this run does not serve through FUSE: nothing is hidden there; add --system=full" "the notice"
# Not named: /usr stays open, also with --system=full.
echo main.c > M2
out=$(bt run -q -o "$T/open.db" --system=full --only-inputs M2 -- sh -c "$probe" 2>&1) || fail "open /usr: $out"
assert_contains "$out" "has /usr/include/stdio.h" "a system tree no manifest names"
assert_no_leftovers
