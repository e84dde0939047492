#!/bin/sh
# The traced filesystem behaves like the real one: fsconform (tests/conformance/fsconform.c)
# runs every check natively and traced, and the two sets of observations must be identical.
# Differences that cannot be removed are normalised in fsconform and listed in
# docs/conformance.md.  FSCONFORM_DIR_ENTRIES sizes the large-directory check (default 100000).
# resource-lock: kernel-caches (as root it drops the kernel's caches; see t2006)
. "$(dirname "$0")/lib.sh"
require_fuse
: "${FSCONFORM:?FSCONFORM must name the fsconform binary}"
mkdir "$T/native" "$T/traced"
cp "$FSCONFORM" "$T/native/fsconform"
cp "$FSCONFORM" "$T/traced/fsconform"
(cd "$T/native" && ./fsconform > "$T/native.out" 2>&1) || fail "fsconform failed natively: $(tail -3 "$T/native.out")"
(cd "$T/traced" && bt run -q -o "$T/trace.db" -- ./fsconform > "$T/traced.out" 2>&1) ||
    fail "fsconform failed traced: $(tail -3 "$T/traced.out")"
if sql "$T/trace.db" 'select notes from runs' | grep -q 'kernel_checks=0'; then
    # Unprivileged with an unmapped group or without an id range the kernel does not check
    # (docs/conformance.md): the caller's own 0000 FIFO, socket and cached directory differ.
    say "no kernel checks here (see the run's notes): perm-checks' kernel-only cases left out"
    for f in "$T/native.out" "$T/traced.out"; do
        sed -i -e '/^perm-fifo-open/d' -e '/^perm-socket-connect/d' -e '/^perm-search-cached/d' "$f"
    done
fi
if ! diff -u "$T/native.out" "$T/traced.out"; then
    fail "the traced filesystem behaves differently from the real one (diff above)"
fi
say "$(grep -c ': ' "$T/native.out") observations identical"
assert_no_leftovers
