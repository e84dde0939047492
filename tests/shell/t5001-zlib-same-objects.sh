#!/bin/sh
# zlib (configure + make -j2) traced builds the same object files and libraries as natively,
# and who-wrote / who-read answer correctly on it.
# cost: workload (a real upstream build: its unprivileged variant is left out of the ASan pass)
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd make
require_cmd cc
tarball=$(workload zlib_1.2.13.dfsg.orig.tar.bz2)
src="$T/zlib-1.2.13.dfsg"
build() { rm -rf "$src"; tar xjf "$tarball" -C "$T"; cd "$src"; "$@"; cd "$T"; }

build sh -c './configure >/dev/null && make -j2 >/dev/null 2>&1'
mkdir "$T/native"
cp "$src"/*.o "$src"/libz.a "$src"/libz.so.1.2.13 "$src"/example "$src"/minigzip "$T/native/"

build bt run -o "$T/trace.db" -- sh -c './configure && make -j2' > "$T/traced.log" 2>&1
for f in "$T"/native/*; do
    cmp "$f" "$src/$(basename "$f")" || fail "$(basename "$f") differs between native and traced builds"
done
cd "$src"
out=$(bt who-wrote -d "$T/trace.db" libz.a)
assert_contains "$out" "written by [" "libz.a has a writer"
printf '%s\n' "$out" | grep -q "written by \[[0-9]*\] ar rc libz.a" || fail "ar is not libz.a's writer: $out"
printf '%s\n' "$out" | grep -q "^          \[[0-9]*\] make -j2$\|^    from: \[[0-9]*\] make -j2$" || fail "make is not among ar's ancestors: $out"
readers=$(bt who-read -d "$T/trace.db" zlib.h)
n_cc1=$(printf '%s\n' "$readers" | grep -c "read by \[[0-9]*\] [^ ]*/cc1 ")
# Every object file's compiler read zlib.h (it is included by zutil.h/every source).
n_obj=$(ls "$T"/native/*.o | wc -l)
[ "$n_cc1" -ge "$n_obj" ] || fail "only $n_cc1 cc1 processes read zlib.h, for $n_obj objects"
# Every .o was written by an 'as' whose ancestors include the gcc that compiled it.
for o in adler32.o inflate.o; do
    bt who-wrote -d "$T/trace.db" "$o" | grep -q "written by \[[0-9]*\] as " || fail "$o not written by as"
done
assert_no_leftovers
