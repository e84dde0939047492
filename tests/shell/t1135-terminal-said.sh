#!/bin/sh
# The build's stdout is not a terminal, even when buildtrail's is (under a pty here): run
# --help and the README say so plainly, with how to force colours (gcc's
# -fdiagnostics-color=always, CLICOLOR_FORCE, NINJA_STATUS); and what they say holds: the
# build sees no terminal, and a forced colour reaches the output as printed.
. "$(dirname "$0")/lib.sh"
require_fuse
help=$(bt run --help)
for want in "not a terminal" "gcc's colours" "ninja's status line" "-fdiagnostics-color=always" "CLICOLOR_FORCE=1" "NINJA_STATUS"; do
    assert_contains "$help" "$want" "run --help"
done
if [ -n "${SAMPLE:-}" ] && [ -f "$SAMPLE/../../README.md" ]; then
    readme=$(cat "$SAMPLE/../../README.md")
    for want in "stdout and stderr are not a terminal" "-fdiagnostics-color=always" "CLICOLOR_FORCE=1" "NINJA_STATUS"; do
        assert_contains "$readme" "$want" "README"
    done
fi
mkdir "$T/ws" && cd "$T/ws"
probe='if [ -t 1 ]; then echo stdout-tty; else echo stdout-not-tty; fi; printf "\033[31mred\033[0m\n"'
if command -v script >/dev/null 2>&1; then
    out=$(script -qec "'$BUILDTRAIL' run -q -- sh -c '$probe'" /dev/null) || fail "run under a pty failed: $out"
else
    out=$(bt run -q -- sh -c "$probe")
fi
assert_contains "$out" "stdout-not-tty" "what the build sees"
printf '%s' "$out" | grep -q "$(printf '\033\\[31mred')" || fail "a forced colour was not passed on as printed: $out"
assert_no_leftovers
