#!/bin/sh
# A path operand that is a symlink the build made (libtool's libfoo.so -> libfoo.so.1.0.0,
# linked through by ld) answers for its target, saying "LINK → TARGET": who-read, who-wrote,
# inputs, outputs, licenses; --json gives the target as "path" and the link as "symlink".
# A path through a linked directory finds what the build saw.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd cc
require_cmd python3
mkdir -p "$T/ws/src" && cd "$T/ws"
echo 'int foo(void) { return 42; }' > src/foo.c
printf 'int foo(void);\nint main(void) { return foo() == 42 ? 0 : 1; }\n' > src/main.c
cat > Makefile <<'M'
all: hello
src/.libs/libfoo.so.1.0.0: src/foo.c
	mkdir -p src/.libs src/.deps
	cc -shared -fPIC -Wl,-soname,libfoo.so.1 -MD -MF src/.deps/foo.Tpo -o $@ src/foo.c
	(cd src/.libs && rm -f libfoo.so.1 && ln -s libfoo.so.1.0.0 libfoo.so.1)
	(cd src/.libs && rm -f libfoo.so && ln -s libfoo.so.1.0.0 libfoo.so)
hello: src/main.c src/.libs/libfoo.so.1.0.0
	cc -o $@ src/main.c -Lsrc/.libs -lfoo
	ln -sf /etc/passwd passwd-link && cat passwd-link > /dev/null
M
bt run -q -- make -s
lib="$T/ws/src/.libs/libfoo.so.1.0.0"
out=$(bt who-read src/.libs/libfoo.so)
assert_contains "$out" "$T/ws/src/.libs/libfoo.so → $lib" "who-read names the link and its target"
assert_contains "$out" "cc -o hello src/main.c -Lsrc/.libs -lfoo" "the link step read it through the link"
printf '%s\n' "$out" | grep -q "no process of the build read it" && fail "answered for the link itself: $out"
out=$(bt who-wrote src/.libs/libfoo.so)
assert_contains "$out" "→ $lib" "who-wrote"
assert_contains "$out" "-o src/.libs/libfoo.so.1.0.0 src/foo.c" "who-wrote names the compiler"
assert_contains "$out" "the link made by [" "who-wrote names the link's maker"
assert_contains "$out" "ln -s libfoo.so.1.0.0 libfoo.so" "who-wrote names the link's maker"
bt who-wrote --help | grep -q "A symlink answers for the file it" || fail "who-wrote --help"
out=$(bt inputs src/.libs/libfoo.so)
assert_contains "$out" "→ $lib: version" "inputs"
assert_contains "$out" "$T/ws/src/foo.c" "inputs lists the source"
out=$(bt outputs src/.libs/libfoo.so)
assert_contains "$out" "→ $lib:" "outputs"
bt licenses src/.libs/libfoo.so >/dev/null 2>"$T/err" || true
assert_contains "$(cat "$T/err")" "libfoo.so → $lib (a symlink: answering for its target)" "licenses"
# Through the soname link (a chain is followed too) and as JSON.
bt who-read --json src/.libs/libfoo.so.1 > r.json
python3 - r.json "$lib" "$T/ws/src/.libs/libfoo.so.1" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["paths"][0]
assert p["path"] == sys.argv[2] and p["symlink"] == sys.argv[3], p
assert p["readers"], p
PY
bt inputs --json src/.libs/libfoo.so | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["path"].endswith("/libfoo.so.1.0.0") and d["symlink"].endswith("/libfoo.so"), d
assert d["target"]["path"] == d["path"], d
' || fail "inputs --json through the link"
# A directory link the build never saw: the path through it finds the traced file.
ln -s src/.libs "$T/ws/libs"
out=$(bt who-wrote libs/libfoo.so.1.0.0)
assert_contains "$out" "$T/ws/libs/libfoo.so.1.0.0 → $lib" "through a directory link"
# A link into a tree the run did not trace (/etc without --system): said, and answered for
# the link itself.
bt who-read passwd-link > /dev/null 2> "$T/err"
assert_contains "$(cat "$T/err")" "passwd-link is a symlink to /etc/passwd, which the build never touched" "untraced target"
# A path that is not a link answers as before, with no arrow.
out=$(bt who-read src/foo.c)
printf '%s\n' "$out" | grep -q "→" && fail "an arrow for a plain file: $out"
# The links gone from disk (make clean, or the tree moved away): where the build's own
# `ln -s` pointed them, link after link (libfoo.so.1 too), and the target is gone too.
mv src/.libs "$T/libs.away"
rm libs
out=$(bt who-read src/.libs/libfoo.so 2> "$T/err")
assert_contains "$out" "$T/ws/src/.libs/libfoo.so → $lib" "link gone: the traced target"
assert_contains "$out" "cc -o hello src/main.c -Lsrc/.libs -lfoo" "link gone: the link step"
assert_contains "$(cat "$T/err")" "src/.libs/libfoo.so.1.0.0: removed since the trace" "target gone"
out=$(bt inputs src/.libs/libfoo.so.1 2> /dev/null)
assert_contains "$out" "$T/ws/src/.libs/libfoo.so.1 → $lib: version" "soname link gone"
assert_no_leftovers
