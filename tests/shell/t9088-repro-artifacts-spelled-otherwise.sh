#!/bin/sh
# repro --artifacts names a file of the tree however the caller spells it: ./out/a.txt,
# out//a.txt, or the tree's own absolute path ($PWD/out/*, which the builds, run in copies
# elsewhere, never had): each matches out/a.txt, never "matches no file either build made".
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir "$T/tree"
cd "$T/tree"
printf '#!/bin/sh\nmkdir -p out && echo hi > out/a.txt\n' > build.sh
chmod +x build.sh
n=0
for g in ./out/a.txt out//a.txt "$PWD/out/*" "$T/tree/./out/a.txt"; do
    n=$((n + 1))
    set +e; out=$(bt repro --vary umask --artifacts "$g" -o "$T/o$n" -- ./build.sh 2>"$T/err"); st=$?; set -e
    [ "$st" = 0 ] || fail "--artifacts $g: exit $st: $out $(cat "$T/err")"
    assert_contains "$out" "reproducible: 1 artifact identical" "--artifacts $g compared"
done
assert_no_leftovers
