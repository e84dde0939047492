#!/bin/sh
# The harness that runs a test as the unprivileged user (as-user.sh) removes the copy it made
# for that user once the test is done, passing or failing, and passes the test's exit status on.
# (It used to exec the test, so its EXIT trap never ran: one directory left in /tmp per test.)
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "switching to the test user needs root"
user=${BT_TEST_USER:-buildtrail-test}
id "$user" >/dev/null 2>&1 || missing "the user $user (CI creates it)"
here=$BT_SHELL_DIR
mkdir "$T/stage" "$T/cases"
chmod 755 "$T/stage" "$T/cases"
# Case files named uniquely, so that a copy left anywhere (also where as-user.sh used to put
# it, /tmp) can be found without mistaking another test's.
id=$(basename "$T")
printf '#!/bin/sh\nid -u > /dev/null\nexit 0\n' > "$T/cases/pass-$id.sh"
printf '#!/bin/sh\nexit 3\n' > "$T/cases/fail-$id.sh"
for c in pass fail; do
    set +e
    TMPDIR="$T/stage" sh "$here/as-user.sh" "$T/cases/$c-$id.sh" > "$T/$c.out" 2>&1
    st=$?
    set -e
    case $c in pass) want=0 ;; fail) want=3 ;; esac
    assert_eq "$st" "$want" "exit status of the $c case through as-user.sh"
    left=$(ls -A "$T/stage"; ls -d /tmp/bt-user.*/"$c-$id.sh" 2>/dev/null || true)
    assert_eq "$left" "" "what as-user.sh left behind after the $c case"
done
