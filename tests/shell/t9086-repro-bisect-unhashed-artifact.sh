#!/bin/sh
# --bisect on an artifact larger than --hash-limit (no hash in any trace): each step compares
# its file on disk with the control's, so the umask that makes it differ is pinned, never "no
# variation: it differs with nothing varied" (every step counted it as differing).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/repro.sh"
require_fuse
mkdir "$T/p"
printf '#!/bin/sh\nmkdir -p out\n{ umask; head -c 100000 /dev/zero; } > out/big\necho small > out/small\n' > "$T/p/build.sh"
chmod +x "$T/p/build.sh"
cd "$T/p"
set +e
bt repro --bisect --vary umask,home,timezone --hash-limit 1000 -o "$T/o" -- ./build.sh > "$T/out" 2> "$T/err"
st=$?
set -e
[ "$st" = 1 ] || fail "exit $st: $(cat "$T/out" "$T/err")"
assert_contains "$(cat "$T/out")" "differs: out/big" "the differing artifact"
assert_contains "$(cat "$T/out")" "pinned by --bisect to: umask" "the pin: $(cat "$T/out")"
cd "$T"
assert_no_leftovers
