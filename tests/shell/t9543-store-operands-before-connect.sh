#!/bin/sh
# store: a bad operand is a usage error (exit 2, one line, the fix) whether or not the store
# can be reached: who-ships sha256: with bad hex or the wrong length, uses with an empty
# PACKAGE or VERSION.  Upper-case hex is the same content as lower-case.
. "$(dirname "$0")/lib.sh"
require_postgres
down="host=$T/nowhere dbname=x user=bt"
for arg in sha256:zz "sha256:$(printf '%064d' 0 | sed 's/0/g/')" "sha256:$(printf '%063d' 0)" sha256:; do
    one_line_error bt store who-ships --store "$down" "$arg"
    assert_eq "$st" 2 "who-ships $arg with the store down"
    assert_contains "$e" "is not a SHA-256; give sha256: and 64 hex digits" "who-ships $arg"
done
for arg in =1.0 zlib1g= =; do
    one_line_error bt store uses --store "$down" "$arg"
    assert_eq "$st" 2 "uses $arg with the store down"
    assert_contains "$e" "is not PACKAGE or PACKAGE=VERSION" "uses $arg"
done
# a file that cannot be read is said before connecting too (exit 1: not a usage error)
one_line_error bt store who-ships --store "$down" "$T/missing.c"
assert_eq "$st" 1 "who-ships of a missing file"
assert_contains "$e" "cannot read $T/missing.c as a regular file" "who-ships of a missing file"

start_store
bt store init > /dev/null
hex=$(printf 'x\n' | sha256sum | cut -c1-64)
lower=$(bt store who-ships --json "sha256:$hex" || true)
upper=$(bt store who-ships --json "sha256:$(printf '%s' "$hex" | tr a-f A-F)" || true)
assert_eq "$upper" "$lower" "upper-case hex"
assert_contains "$lower" "\"builds_covered\":0" "an empty store's answer"
