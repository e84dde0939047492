#!/bin/sh
# An -o file keeps the trace's privacy: exports (argv, environment, hashes) get the trace's
# permissions (0600 unless it was recorded with run --output-mode), whatever the umask and
# whatever the file they replace had, unless --output-mode says otherwise; copies --index -o
# (no trace in it) keeps the umask's.  A bad --output-mode is a usage error.
. "$(dirname "$0")/lib.sh"
require_fuse
umask 022
mkdir "$T/ws" && cd "$T/ws"
bt run -q -- sh -c 'echo x > a.o'
assert_eq "$(stat -c %a buildtrail.db)" 600 "the trace's mode"
bt export --format slsa -o slsa.json
assert_eq "$(stat -c %a slsa.json)" 600 "a new export"
bt export --format compile-commands -o compile_commands.json
assert_eq "$(stat -c %a compile_commands.json)" 600 "a new compile-commands export"
echo old > old.dot && chmod 644 old.dot
bt export --format dot -o old.dot
assert_eq "$(stat -c %a old.dot)" 600 "an export replacing a 0644 file"
echo old > target.dot && chmod 644 target.dot && ln -s target.dot link.dot
bt export --format dot -o link.dot
assert_eq "$(stat -c %a target.dot)" 600 "an export through a link"
bt export --format dot -o shared.dot --output-mode 0640
assert_eq "$(stat -c %a shared.dot)" 640 "--output-mode 0640"
bt export --format dot -o old.dot --output-mode 644
assert_eq "$(stat -c %a old.dot)" 644 "--output-mode 644 on a replaced file"
for bad in 999 abc 01000 ''; do
    set +e; err=$(bt export --format dot -o bad.dot --output-mode "$bad" 2>&1); st=$?; set -e
    [ "$st" = 2 ] || fail "--output-mode '$bad': exit $st"
    assert_contains "$err" "--output-mode '$bad' is not a file mode" "--output-mode '$bad'"
    [ ! -e bad.dot ] || fail "--output-mode '$bad' wrote the file"
done
# A trace recorded to be shared: its exports are shared alike.
bt run -q -o wide.db --output-mode 0644 -- true
bt export -d wide.db --format dot -o wide.dot
assert_eq "$(stat -c %a wide.dot)" 644 "an export of a 0644 trace"
# copies --index -o holds nothing of a trace: the umask's, or --output-mode's.
mkdir src && echo 'int x;' > src/a.c
bt copies --index src -o index.txt
assert_eq "$(stat -c %a index.txt)" 644 "copies --index -o"
bt copies --index src -o index2.txt --output-mode 0600
assert_eq "$(stat -c %a index2.txt)" 600 "copies --index -o --output-mode 0600"
assert_no_leftovers
