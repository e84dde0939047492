#!/bin/sh
# Root's build in a tree root owns, with a directory in it another user owns (a tarball
# unpacked as root keeps its owners): uid 2000, root without its capabilities, could not
# write there, so user_group is not varied and says why, naming that directory, as for a
# build directory another user owns; the experiment failed for that alone before.
. "$(dirname "$0")/lib.sh"
require_root
require_fuse
mkdir -p "$T/tree/sub"
chown 1000:1000 "$T/tree/sub"
cd "$T/tree"
printf '#!/bin/sh\necho x > sub/x && mkdir -p out && umask > out/u\n' > build.sh
chmod +x build.sh
set +e; bt repro --vary user_group,umask -o "$T/o" -- ./build.sh > "$T/out" 2> "$T/err"; st=$?; set -e
[ "$st" = 1 ] || fail "exit $st: $(cat "$T/out" "$T/err") $(cat "$T/o/experiment.log" 2>/dev/null)"
assert_contains "$(cat "$T/out")" "not varied: user_group: the directory in the build's tree $T/o/build/tree/sub belongs to uid 1000" "said why, the directory named"
assert_contains "$(cat "$T/out")" "varied: umask" "the other variation made"
cd "$T"
assert_no_leftovers
