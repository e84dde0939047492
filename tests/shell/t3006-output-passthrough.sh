#!/bin/sh
# The build's stdout and stderr reach buildtrail's own, byte for byte and on the right stream
# (binary data, no trailing newline, large writes), and the trace holds the same bytes.
# (Its scratch file is in the workspace: a fixed name in /tmp, left by the root variant,
# made the unprivileged variant fail.)
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir "$T/ws" && cd "$T/ws"
cat > gen.sh <<'GEN'
printf 'line one\nno newline'
printf 'to stderr\n' >&2
head -c 300000 /dev/urandom > blob; cat blob; cat blob >&2
printf '\001\002\377\n'
GEN
bt run -q -- sh gen.sh > "$T/out" 2> "$T/err"
bt log --stream out > "$T/log-out"
bt log --stream err > "$T/log-err"
cmp "$T/out" "$T/log-out" || fail "recorded stdout differs from what was printed"
cmp "$T/err" "$T/log-err" || fail "recorded stderr differs from what was printed"
assert_eq "$(head -c 19 "$T/out")" "line one
no newline" "stdout start"
assert_eq "$(head -c 10 "$T/err" | od -An -c | tr -s ' ')" " t o s t d e r r \n" "stderr start"
assert_eq "$(wc -c < "$T/out")" $((19 + 300000 + 4)) "stdout size"
assert_eq "$(wc -c < "$T/err")" $((10 + 300000)) "stderr size"
# A reader that goes away: the writer gets SIGPIPE, as with a pipe.
set +e
bt run -q -o "$T/pipe.db" -- sh -c 'yes | head -c 100000000; echo "yes status $?" >&2' 2> "$T/pipe-err" | head -c 10 > /dev/null
set -e
assert_eq "$(cat "$T/pipe-err")" "yes status 141" "the writer died of SIGPIPE (128+13) like on a closed pipe"
assert_no_leftovers
