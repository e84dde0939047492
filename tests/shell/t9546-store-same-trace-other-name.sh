#!/bin/sh
# store push: the same trace (or a copy) pushed again under another --name or --label adds
# nothing — and says that this name and these labels were not applied, instead of a bare
# "nothing added" that lets the pusher believe the build is now called by the new name.
. "$(dirname "$0")/lib.sh"
store_with_build true
bt store init > /dev/null
bt store push --name first --label arch=amd64 > /dev/null
cp buildtrail.db "$T/copy.db"
out=$(bt store push -d "$T/copy.db" --name second --label arch=arm64)
assert_contains "$out" "already stored as build 1" "the copy under another name"
assert_contains "$out" "--name and --label not applied" "the copy under another name"
out=$(bt store push)
assert_contains "$out" "nothing added" "the same trace with no name"
case "$out" in *"not applied"*) fail "a push with no --name says one was not applied: $out" ;; esac
assert_eq "$(psql -c "SELECT name || ' ' || (SELECT string_agg(key || '=' || value, ' ') FROM build_label) FROM build")" \
    "first arch=amd64" "the build's name and labels"
