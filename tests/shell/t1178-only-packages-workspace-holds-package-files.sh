#!/bin/sh
# run --system --only-packages started in a directory that holds files of packages outside the
# set (/usr/include, a clumsy `cd` before the run): what the build's directory holds stays
# visible (t1171), so those files are not hidden — the run says so on stderr, naming the
# directory, how many, and the fix, where it was silent and zlib.h stayed there for the build.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd dpkg-query
require_zlib_dev
cd /usr/include
out=$(bt run -q -o "$T/t.db" --system --only-packages make -- sh -c \
      '[ -e zlib.h ] && echo zlib.h seen' 2>&1) || fail "the run in /usr/include: $out"
assert_contains "$out" "zlib.h seen" "what the workspace holds stays visible"
assert_contains "$out" "--only-packages: the build starts in /usr/include, which holds " "the warning"
assert_contains "$out" "run from the project's directory" "the fix"
# From a directory of its own: nothing to say.
mkdir "$T/ws" && cd "$T/ws"
out=$(bt run -q -o "$T/t2.db" --system --only-packages make -- sh -c \
      '[ -e /usr/include/zlib.h ] || echo no zlib.h' 2>&1) || fail "the run in $T/ws: $out"
assert_eq "$out" "no zlib.h" "a run from the project's directory"
assert_no_leftovers
