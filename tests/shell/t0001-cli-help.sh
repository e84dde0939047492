#!/bin/sh
# The CLI: --help to stdout with exit 0, --version, usage errors to stderr with exit 2.
. "$(dirname "$0")/lib.sh"

out=$(bt --help) || fail "--help exited non-zero"
for c in run who-wrote who-read tree log; do assert_contains "$out" "$c" "--help lists $c"; done
assert_contains "$(bt --version)" "buildtrail " "--version"
for c in run who-wrote who-read tree log; do
    bt "$c" --help >/dev/null || fail "$c --help exited non-zero"
done

set +e
err=$(bt no-such-command 2>&1 >/dev/null); st=$?
set -e
assert_eq "$st" 2 "unknown command exit status"
assert_contains "$err" "'no-such-command' is not a command" "unknown command message"

set +e
err=$(bt run 2>&1 >/dev/null); st=$?
set -e
assert_eq "$st" 2 "run without a command"
assert_contains "$err" "no command given" "run without a command message"
assert_eq "$(printf '%s\n' "$err" | wc -l)" 1 "one-line error"

set +e
bt who-wrote >/dev/null 2>&1; st=$?
set -e
assert_eq "$st" 2 "who-wrote without a path"
