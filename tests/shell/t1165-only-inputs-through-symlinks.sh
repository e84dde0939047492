#!/bin/sh
# run --only-inputs: a declared path is declared as the build opens it, through its symlinks,
# where they lead inside the project: a directory on the way that is a symlink (include ->
# vendor/include) and a declared symlink (configure -> common/configure) lead to what they
# point to — a maintainer declaring the path the build uses was refused the file ("No such
# file or directory").  What lies beside the targets stays hidden; a declared link out of the
# project (to a key in $HOME) declares nothing there; a symlink loop does not stop the run.
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir -p "$T/ws/vendor/include" "$T/ws/common" "$T/home/.ssh" && cd "$T/ws"
echo '#define V 1' > vendor/include/v.h
echo '#define W 1' > vendor/include/w.h
printf '#!/bin/sh\necho configured\n' > common/configure && chmod +x common/configure
echo other > common/other
echo KEY-SECRET > "$T/home/.ssh/id_rsa"
ln -s "$T/home/.ssh/id_rsa" key
ln -s vendor/include include
ln -s common/configure configure
ln -s loop2 loop1 && ln -s loop1 loop2
printf 'include/v.h\nconfigure\nloop1\nkey\n' > M
out=$(bt run -q -o "$T/t.db" --only-inputs M -- sh -c '
    echo "V $(cat include/v.h 2>&1)"
    ./configure
    echo "W $(cat include/w.h 2>&1)"
    echo "OTHER $(cat common/other 2>&1)"
    echo "KEY $(cat key 2>&1)"
    echo "LIST $(ls vendor/include | tr "\n" " ")"' 2>&1) || fail "the build failed: $out"
assert_contains "$out" "V #define V 1" "a declared path through a symlinked directory"
assert_contains "$out" "configured" "a declared symlink to a script elsewhere"
assert_contains "$out" "W cat: include/w.h: No such file or directory" "the target's undeclared sibling"
assert_contains "$out" "OTHER cat: common/other: No such file or directory" "beside the script"
assert_contains "$out" "KEY cat: key: No such file or directory" "a declared link out of the project"
assert_contains "$out" "LIST v.h " "the target directory's listing"
assert_no_leftovers
