#!/bin/sh
# --system also traces /usr, /etc and /opt: the headers, libraries and tools a build used are
# in the trace (and without it they are not).
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd cc
mkdir "$T/ws" && cd "$T/ws"
printf '#include <stdio.h>\nint main(void) { puts("hi"); return 0; }\n' > hello.c
bt run --system -- sh -c 'cc -o hello hello.c && ./hello' > out.txt
assert_eq "$(cat out.txt)" hi "the program built and ran with /usr traced"
bt who-read /usr/include/stdio.h | grep -q "read by \[[0-9]*\] [^ ]*/cc1 " || fail "cc1's read of stdio.h is not recorded"
assert_eq "$(sql buildtrail.db "select count(*) from trees where path='/usr'")" 1 "/usr is a traced tree"
bt run -- sh -c 'cc -o hello hello.c' > /dev/null
set +e; bt who-read /usr/include/stdio.h >/dev/null 2>&1; st=$?; set -e
assert_eq "$st" 1 "without --system, /usr is not traced"
assert_no_leftovers
