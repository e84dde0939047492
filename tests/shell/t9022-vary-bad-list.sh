#!/bin/sh
# A bad --vary LIST is one line naming the word and the valid names, exit 2, before anything
# runs: the trace in place stays as it was.  So is a --vary LIST outside --vary-control's.
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir "$T/ws"
cd "$T/ws"
bt run -q -o "$T/t.db" -- true 2> "$T/err0" || fail "first run: $(cat "$T/err0")"
before=$(sha256sum < "$T/t.db")
for list in nosuch 'all,-nosuch' 'umask,,home' '' '+' 'Umask'; do
    one_line_error "$BUILDTRAIL" run -o "$T/t.db" --vary "$list" -- touch "$T/ran"
    assert_eq "$st" 2 "--vary '$list': exit status"
    assert_contains "$e" "buildtrail run: --vary: "
    assert_contains "$e" "environment, build_path, fileordering, home, kernel, locales, exec_path, time, timezone, umask, user_group, domain_host, num_cpus, aslr"
done
one_line_error "$BUILDTRAIL" run -o "$T/t.db" --vary-control 'all,-bogus' -- touch "$T/ran"
assert_contains "$e" "--vary-control: unknown variation 'bogus'"
one_line_error "$BUILDTRAIL" run -o "$T/t.db" --vary all --vary-control umask -- touch "$T/ran"
assert_eq "$st" 2 "both sides, --vary outside --vary-control: exit status"
assert_contains "$e" "--vary names environment,build_path,"
[ ! -e "$T/ran" ] || fail "the command ran"
assert_eq "$(sha256sum < "$T/t.db")" "$before" "the trace in place"
assert_no_leftovers
echo ok
