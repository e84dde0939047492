#!/bin/sh
# No descriptor of buildtrail reaches the build: its pid 1 holds nothing it could use (no trace,
# no real tree, no report channel), its processes hold only stdin/stdout/stderr, and the run's
# exit status is the kernel's for the build, whatever the build writes wherever it can.
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir "$T/ws" && cd "$T/ws"
cat > build.sh <<'EOS'
ls /proc/self/fd > own-fds.txt
ls -l /proc/1/fd/ 2>/dev/null | sed -n 's/.*-> //p' > init-fds.txt
# Try to forge a status of 0 through anything pid 1 holds.
for f in /proc/1/fd/*; do printf '\0\0\0\0' > "$f"; done 2>/dev/null
exit 3
EOS
set +e; bt run -- sh build.sh 2>/dev/null; st=$?; set -e
assert_eq "$st" 3 "exit status of a build that writes into pid 1's descriptors"
assert_eq "$(sql buildtrail.db 'select exit_status, state from runs')" "3|finished" "run record"
# own-fds: 0 1 2 and the one ls opened for /proc/self/fd
assert_eq "$(tr '\n' ' ' < own-fds.txt)" "0 1 2 3 " "descriptors the build holds"
grep -q "buildtrail.db\|socket:\|anon_inode\|$T/ws\$" init-fds.txt &&
    fail "pid 1 holds buildtrail's descriptors: $(cat init-fds.txt)"
[ "$(grep -c . init-fds.txt)" -le 1 ] || fail "pid 1 holds more than its one pipe: $(cat init-fds.txt)"
assert_no_leftovers
