#!/bin/sh
# run --system --only-packages never hides the build's own workspace, nor the directories on
# the way to it, when a package outside the set lists them: a project built in a directory of
# zlib1g-dev's (as one in /usr/src/foo of foo-source) enters its directory, reads its own
# files and writes new ones, and zlib.h stays hidden.
. "$(dirname "$0")/lib.sh"
require_root
require_fuse
require_cmd dpkg-query
require_zlib_dev
doc=/usr/share/doc/zlib1g-dev
[ -d "$doc" ] && [ ! -L "$doc" ] || missing "the directory $doc"
dpkg-query -S "$doc" 2>/dev/null | grep -q '^zlib1g-dev' || missing "zlib1g-dev listing $doc"
ws="$doc/bt-t1171-$$"
on_cleanup "rm -rf '$ws'"
mkdir "$ws" && cd "$ws"
echo mine > mine.txt
out=$(bt run -q -o "$T/t.db" --system --only-packages make -- sh -c \
      'cat mine.txt; echo new > new.txt; cat new.txt; [ -e /usr/include/zlib.h ] || echo no zlib.h' 2>&1) ||
    fail "the run in $ws: $out"
assert_eq "$out" "mine
new
no zlib.h" "the build in a directory zlib1g-dev lists"
cd /
assert_no_leftovers
