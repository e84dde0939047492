#!/bin/sh
# run --only-inputs: a create over a hidden file that would keep its content (O_CREAT without
# O_TRUNC: touch, '>>', fopen "a+", truncate) is refused with EACCES, because the build would
# then read a file it was not given (the name looked absent a moment before); a create that
# empties it (O_TRUNC: '>') writes over it as natively and makes it the build's, and so does
# touch of an empty one (a stale stamp: `touch $@` in a Makefile; nothing to show).  The
# hidden files the build was refused are unchanged afterwards.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd python3
mkdir "$T/ws" && cd "$T/ws"
for f in touched appended aplus trunc; do echo "SECRET $f" > "$f"; done
echo 'old' > replaced
: > stamp
echo ok > ok
printf 'ok\n' > MANIFEST
out=$(bt run -q -o "$T/t.db" --only-inputs MANIFEST -- sh -c '
    touch touched 2>/dev/null; echo "TOUCH $? $(cat touched 2>&1)"
    (echo more >> appended) 2>/dev/null || echo "APPEND refused $(cat appended 2>&1)"
    python3 -c "
try:
    f = open(\"aplus\", \"a+\"); f.seek(0); print(\"APLUS\", repr(f.read()))
except OSError as e:
    print(\"APLUS\", e.errno)"
    truncate -s 3 trunc 2>/dev/null; echo "TRUNCATE $? $(cat trunc 2>&1)"
    echo mine > replaced; echo "REPLACED $(cat replaced)"
    touch stamp && echo "STAMP $(wc -c < stamp)"' 2>&1) || fail "the build failed: $out"
case $out in *SECRET*) fail "a hidden file's content reached the build: $out" ;; esac
assert_contains "$out" "TOUCH 1 cat: touched: No such file or directory" "touch over a hidden file"
assert_contains "$out" "APPEND refused cat: appended: No such file or directory" "'>>' over a hidden file"
assert_contains "$out" "APLUS 13" "fopen a+ over a hidden file: EACCES"
assert_contains "$out" "TRUNCATE 1 cat: trunc: No such file or directory" "truncate over a hidden file"
assert_contains "$out" "REPLACED mine" "'>' over a hidden file writes it, as natively"
assert_contains "$out" "STAMP 0" "touch of an empty hidden file"
for f in touched appended aplus trunc; do
    assert_eq "$(cat "$f")" "SECRET $f" "$f afterwards"
done
assert_eq "$(cat replaced)" mine "the file the build wrote over"
# The refusal is recorded as a denial of the name (the kernel's lookup before the create).
denied=$(bt files -d "$T/t.db" --denied)
assert_contains "$denied" "$T/ws/touched: undeclared; looked up by " "files --denied"
assert_no_leftovers
