#!/bin/sh
# A stale answer says so: when the file on disk at PATH is not the trace's last version
# there (another size; or, modified after the run, another SHA-256), the queries that take a
# PATH say "PATH: changed since the trace" on stderr, and "removed since the trace" when it
# is gone; --json has "changed_since_trace"/"removed_since_trace".  A file as the build left
# it, or only touched, says nothing.  (The bundled sample, rebuilt without buildtrail.)
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd cc
require_cmd python3
cp -r "$SAMPLE" "$T/s" && cd "$T/s"
bt run -q -- make -j2 > "$T/build.log" 2>&1 || fail "sample build: $(cat "$T/build.log")"
quiet() { # CMD...: the query answers with nothing on stderr
    "$@" > "$T/out" 2> "$T/err" || fail "$* failed: $(cat "$T/err")"
    [ ! -s "$T/err" ] || fail "$*: unexpected note: $(cat "$T/err")"
}
noted() { # WHAT CMD...: the query answers (exit 0) with the note WHAT on stderr
    _what=$1; shift
    "$@" > "$T/out" 2> "$T/err" || fail "$* failed: $(cat "$T/err")"
    grep -qF -- "$_what" "$T/err" || fail "$*: no '$_what' in: $(cat "$T/err")"
}
quiet bt inputs hello
quiet bt who-wrote hello src/greet.c
# Touched only (same content, newer mtime): hashed, equal, nothing said.
touch src/greet.c hello
quiet bt who-read src/greet.c
quiet bt inputs hello
# An untraced rebuild after an edit: hello is another file now.
sed -i 's/hello, /howdy, /' src/greet.c
make -s > /dev/null 2>&1 || fail "untraced rebuild"
noted "hello: changed since the trace" bt inputs hello
noted "src/greet.c: changed since the trace" bt who-read src/greet.c
noted "hello: changed since the trace" bt who-wrote hello
noted "hello: changed since the trace" bt outputs hello
bt inputs --json hello 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["changed_since_trace"] is True and d["removed_since_trace"] is False, d
' || fail "inputs --json changed_since_trace"
# Same size, other bytes, modified after the run: the hash tells.
orig=$(cat src/shout.c)
printf '%s' "$orig" | tr 'a-z' 'b-za' > src/shout.c
[ "$(wc -c < src/shout.c)" = "$(printf '%s' "$orig" | wc -c)" ] || fail "same-size edit"
noted "src/shout.c: changed since the trace" bt who-read src/shout.c
# Removed.
rm hello
noted "hello: removed since the trace" bt who-wrote hello
bt who-wrote --json hello 2>/dev/null | python3 -c '
import json, sys
p = json.load(sys.stdin)["paths"][0]
assert p["removed_since_trace"] is True and p["changed_since_trace"] is False, p
' || fail "who-wrote --json removed_since_trace"
# What the build itself removed (version.h.tmp, renamed away) and is still gone: nothing said.
quiet bt who-wrote version.h.tmp
# ... and back again: changed.
echo x > version.h.tmp
noted "version.h.tmp: changed since the trace" bt who-wrote version.h.tmp
# A FIFO where the file was: said changed, never opened (no hang).
rm src/main.c && mkfifo src/main.c
noted "src/main.c: changed since the trace" timeout 20 "$BUILDTRAIL" who-read src/main.c
# A trace read where its build directory is not (copied from another machine, CI, or the
# tree moved): nothing is compared, nothing said.
cd "$T" && mv "$T/s" "$T/moved"
quiet bt who-wrote -d "$T/moved/buildtrail.db" "$T/s/hello"
assert_no_leftovers
