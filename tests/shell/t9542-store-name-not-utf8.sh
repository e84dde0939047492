#!/bin/sh
# store push: a build's name and labels are text in the store (UTF-8): a --name or --label
# whose bytes are not UTF-8 is a usage error said at once, naming the option, with nothing
# stored — not PostgreSQL's "invalid byte sequence" after the whole trace was read and sent.
. "$(dirname "$0")/lib.sh"
store_with_build true
bt store init > /dev/null
for opt in "--name=$(printf 'a\377b')" "--label=$(printf 'k=a\377b')" "--label=$(printf 'k\376=v')"; do
    one_line_error bt store push "$opt"
    assert_eq "$st" 2 "exit status of push $opt"
    assert_contains "$e" "is not UTF-8" "push $opt"
    assert_contains "$e" "${opt%%=*}" "the option named"
done
assert_eq "$(psql -c 'SELECT count(*) FROM build')" 0 "builds after the refusals"
bt store push --name "$(printf 'caf\303\251')" --label "$(printf 'l=\342\234\223')" > /dev/null ||
    fail "a UTF-8 name and label"
assert_eq "$(psql -c 'SELECT name FROM build')" "$(printf 'caf\303\251')" "the name stored"
