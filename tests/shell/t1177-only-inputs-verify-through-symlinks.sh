#!/bin/sh
# verify --inputs reads a manifest as run --only-inputs does: a declared path through a symlink
# (include/v.h with include -> vendor/include; configure -> common/configure) declares where it
# leads inside the project (t1165), because the build that was given exactly that file failed
# verify ("undeclared vendor/include/v.h") with the manifest that let it through.  A hash on
# the line holds for the target; a link out of the project declares nothing there.
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir -p "$T/ws/vendor/include" "$T/ws/common" "$T/home" && cd "$T/ws"
echo '#define V 1' > vendor/include/v.h
printf '#!/bin/sh\necho configured\n' > common/configure && chmod +x common/configure
echo KEY-SECRET > "$T/home/id_rsa"
ln -s vendor/include include
ln -s common/configure configure
ln -s "$T/home/id_rsa" key
printf 'include/v.h\nconfigure\n' > M
bt run -q -o "$T/t.db" --only-inputs M -- sh -c 'cat include/v.h; ./configure' >/dev/null ||
    fail "the build failed"
v=$(bt verify -d "$T/t.db" --inputs M 2>&1) || fail "verify with the manifest run used: $v"
assert_contains "$v" "ok: the build read" "verify"
# A declared hash is the target's content's.
good=$(sha256sum vendor/include/v.h | cut -d' ' -f1)
printf '%s  include/v.h\nconfigure\n' "$good" > H
bt verify -d "$T/t.db" --inputs H >/dev/null || fail "the target's hash through the link"
printf '%s  include/v.h\nconfigure\n' "$(echo x | sha256sum | cut -d' ' -f1)" > H
set +e
v=$(bt verify -d "$T/t.db" --inputs H 2>&1); vst=$?
set -e
assert_eq "$vst" 1 "verify with a wrong hash: $v"
assert_contains "$v" "mismatch   $T/ws/vendor/include/v.h" "the mismatch"
# A link out of the project: its target stays undeclared.
bt run -q -o "$T/t2.db" -- cat key >/dev/null
printf 'key\n' > K
set +e
v=$(bt verify -d "$T/t2.db" --inputs K 2>&1); vst=$?
set -e
assert_eq "$vst" 1 "verify of a read through a link out of the project: $v"
assert_contains "$v" "undeclared $T/home/id_rsa" "the target out of the project"
assert_no_leftovers
