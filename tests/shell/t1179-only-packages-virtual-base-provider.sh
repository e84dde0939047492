#!/bin/sh
# run --system --only-packages: a virtual package the build names (c-compiler) resolves to the
# provider the base set already holds (gcc-12, through build-essential), as apt in sbuild's
# chroot leaves it satisfied, because resolving it before the base took the first provider by
# name (clang-14) and showed the build a compiler, and all it depends on, that the buildd's
# chroot would not hold.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd dpkg-query
for p in clang-14 g++-12 build-essential; do
    dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing "the package $p"
done
mkdir "$T/ws" && cd "$T/ws"
out=$(bt run -q -o "$T/t.db" --system --only-packages c++-compiler -- sh -c \
      '[ -e /usr/bin/clang-14 ] && echo clang-14 seen; [ -e /usr/bin/g++-12 ] && echo g++-12 seen' 2>&1) ||
    fail "the run: $out"
assert_eq "$out" "g++-12 seen" "the provider of c++-compiler the base set holds, and no other"
assert_no_leftovers
