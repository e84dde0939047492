#!/bin/sh
# As root, `run --system` watches the system trees with fanotify, which cannot make a file
# look absent; with --only-packages the run serves them through FUSE instead (the trace's notes
# say so) and zlib.h is hidden, where plain --system, same build, finds it.
. "$(dirname "$0")/lib.sh"
require_root
require_fuse
require_zlib_dev
require_cmd dpkg-query
mkdir "$T/ws" && cd "$T/ws"
probe='if [ -e /usr/include/zlib.h ]; then echo has zlib.h; else echo no zlib.h; fi'
out=$(bt run -q -o "$T/watched.db" --system -- sh -c "$probe") || fail "plain --system"
assert_eq "$out" "has zlib.h" "plain --system"
notes=$(sql "$T/watched.db" 'SELECT notes FROM runs')
case $notes in *"system_trees=served"*) missing "fanotify here (the system trees were served anyway: $notes)" ;; esac
out=$(bt run -q -o "$T/only.db" --system --only-packages make -- sh -c "$probe") || fail "--only-packages"
assert_eq "$out" "no zlib.h" "--only-packages as root"
assert_contains "$(sql "$T/only.db" 'SELECT notes FROM runs')" "system_trees=served (--only-packages" "the notes"
assert_eq "$(sql "$T/only.db" "SELECT d.package FROM denials d JOIN files f ON f.id = d.file_id WHERE f.path = '/usr/include/zlib.h' LIMIT 1")" zlib1g-dev "the denial's package"
assert_no_leftovers
