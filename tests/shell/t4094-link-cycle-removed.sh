#!/bin/sh
# Links the build made in a cycle (a -> b -> c -> a) and removed since lead nowhere, as the
# kernel would say (ELOOP): a path operand among them answers for itself, not for whichever
# link of the cycle 40 hops happened to end on.
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir -p "$T/ws" && cd "$T/ws"
bt run -q -- sh -c 'ln -s b a; ln -s c b; ln -s a c; rm a b c'
out=$(bt who-wrote a 2>&1)
printf '%s\n' "$out" | grep -q " → " && fail "followed a cycle of links: $out"
assert_contains "$out" "ln -s b a" "who-wrote names the link's maker"
# A chain that ends is still followed.
bt run -q -- sh -c 'echo x > d; ln -s d c; ln -s c b; rm b c'
out=$(bt who-wrote b 2>&1)
assert_contains "$out" "$T/ws/b → $T/ws/d" "a removed chain of links answers for its end"
assert_no_leftovers
