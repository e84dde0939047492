#!/bin/sh
# store who-ships and uses across builds (run --system, as root: the packages need /usr
# traced).  Two builds of one source at two paths, a third project, a program linking libz.a
# and one linking -lz: who-ships of a source names exactly the builds whose products
# incorporate it (with the chain), and `uses zlib1g-dev` lists the static program as
# incorporating code, the dynamic one as headers only, and one given libz.a but using none of
# it as a static archive nothing was linked from (its symbols against the program's).  copies finds the third project's
# vendored file.
. "$(dirname "$0")/lib.sh"
require_root
require_postgres
require_zlib_dev
start_store
bt store init >/dev/null

mkdir -p "$T/one/src" "$T/third" "$T/z"
printf 'int util(int x) { return x + 1; }\n' > "$T/one/src/util.c"
printf 'int util(int);\nint main(void) { return util(-1); }\n' > "$T/one/src/main.c"
printf 'all: prog\nprog: main.o util.o\n\tcc -o $@ main.o util.o\n' > "$T/one/src/Makefile"
cp -r "$T/one/src" "$T/two"
# the third project vendors util.c under another name, and has its own main
cp "$T/one/src/util.c" "$T/third/vendored_util.c"
printf 'int util(int);\nint main(void) { return util(0) - 1; }\n' > "$T/third/t.c"
cat > "$T/z/z.c" <<'C'
#include <zlib.h>
int main(void) { return zlibVersion()[0] == '1' ? 0 : 1; }
C
(cd "$T/one/src" && bt run -q --system -o "$T/one.db" -- make) || fail "build one"
(cd "$T/two" && bt run -q --system -o "$T/two.db" -- make) || fail "build two"
(cd "$T/third" && bt run -q --system -o "$T/third.db" -- cc -o third t.c vendored_util.c) || fail "build three"
(cd "$T/z" && bt run -q --system -o "$T/static.db" -- cc -o zstatic z.c "$zlib_a") || fail "the static build"
(cd "$T/z" && bt run -q --system -o "$T/dynamic.db" -- cc -o zdynamic z.c -lz) || fail "the dynamic build"
# libz.a on the command line, none of it used: the link pulls no member in
printf 'int main(void) { return 0; }\n' > "$T/z/n.c"
(cd "$T/z" && bt run -q --system -o "$T/nolink.db" -- cc -o znolink n.c "$zlib_a") || fail "the unused-archive build"
for b in one two third static dynamic nolink; do
    bt store push -d "$T/$b.db" --name "$b" >/dev/null || fail "push $b"
done

out=$(bt store who-ships "$T/one/src/util.c")
say "$out"
assert_contains "$out" "in 3 of 6 builds" "who-ships util.c"
for b in one two third; do
    assert_contains "$out" "build $(psql -c "SELECT id FROM build WHERE name = '$b'") $b:" "who-ships names $b"
done
assert_contains "$out" "$T/one/src/prog ← (source) $T/one/src/util.c" "build one's program from util.c"
assert_contains "$out" "via $T/one/src/util.o" "the chain through util.o"
assert_contains "$out" "$T/third/third ← (source) $T/third/vendored_util.c" "the third project's copy"
case $out in *"build 4 "*|*"build 5 "*|*"build 6 "*) fail "who-ships names a build without util.c: $out" ;; esac
bt store who-ships --json "sha256:$(sha256sum "$T/one/src/util.c" | cut -c1-64)" |
    python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["builds_covered"] == 6 and sorted({s["name"] for s in d["ships"]}) == ["one", "third", "two"], d' ||
    fail "who-ships --json"

out=$(bt store uses zlib1g-dev)
say "$out"
assert_contains "$out" "its code is in 1 of 6 builds" "uses zlib1g-dev"
assert_contains "$out" "static: $T/z/zstatic: code" "the static program"
assert_contains "$out" "dynamic: $T/z/zdynamic: headers only" "the dynamic program"
assert_contains "$out" "nolink: $T/z/znolink: a static archive nothing was linked from" "the program that linked nothing of libz.a"
case $out in *"build 1 "*|*"build 2 "*|*"build 3 "*) fail "uses names a build without zlib: $out" ;; esac
ver=$(dpkg-query -W -f '${Version}' zlib1g-dev)
bt store uses --json "zlib1g-dev=$ver" |
    python3 -c 'import json,sys; d=json.load(sys.stdin); p={x["product"].rsplit("/",1)[1]: x["incorporates"] for x in d["products"]}; assert p["zstatic"] == "code" and p["zdynamic"] == "headers only", p' ||
    fail "uses --json with the version"
one_line_error bt store uses "zlib1g-dev="

out=$(bt store copies)
say "$out"
assert_contains "$out" "$T/third/vendored_util.c (source)" "copies: the vendored file"
assert_contains "$out" "1 shared content across 6 builds" "copies: one group"
# a known-copies index (copies --index's sha256sum lines) names it
printf '%s  upstream/util.c\n' "$(sha256sum "$T/one/src/util.c" | cut -c1-64)" > "$T/known.idx"
out=$(bt store copies --known "$T/known.idx")
assert_contains "$out" "known as upstream/util.c" "copies --known"
one_line_error bt store copies --known "$T/none.idx"
# whatever a row holds (a pushing role may insert any package row) is printed escaped
psql -c "UPDATE package SET version = E'9\\033[31mred\\nx' WHERE name = 'zlib1g-dev'"
out=$(bt store uses zlib1g-dev)
if printf '%s' "$out" | grep -q "$(printf '\033')"; then fail "a raw escape in uses: $out"; fi
if printf '%s\n' "$out" | grep -q '^x'; then fail "a raw newline in uses: $out"; fi
out=$(bt store show "$(psql -c "SELECT id FROM build WHERE name = 'static'")")
if printf '%s' "$out" | grep -q "$(printf '\033')"; then fail "a raw escape in show: $out"; fi
