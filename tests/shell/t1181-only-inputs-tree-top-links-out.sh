#!/bin/sh
# run --only-inputs: a symlink at the top of a restricted tree that leads where nothing is
# restricted (/var/run -> /run, /var/lock -> /run/lock) stays visible, because hiding it hid
# nothing (the target is reachable by its own name) and made every getpwuid of the build
# (id, whoami, bash, tar: glibc probes /var/run/nscd/socket) a denial, a finding of verify
# for every build that asked who it runs as.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd id
[ -L /var/run ] || missing "/var/run as a symlink (to /run)"
case $(readlink -f /var/run) in /var/*) missing "/var/run leading out of /var" ;; esac
mkdir "$T/ws" && cd "$T/ws"
echo ok > ok
echo ok > M
out=$(bt run -q -o "$T/t.db" --only-inputs M -- sh -c 'cat ok; id -un >/dev/null; ls -d /var/run/ >/dev/null && echo seen' 2>&1) ||
    fail "the build failed: $out"
assert_eq "$out" "ok
seen" "the build"
denied=$(bt files -d "$T/t.db" --denied)
case $denied in *"/var/run:"*) fail "/var/run was denied: $denied" ;; esac
set +e
v=$(bt verify -d "$T/t.db" --inputs M 2>&1); vst=$?
set -e
assert_eq "$vst" 0 "verify: $v"
assert_no_leftovers
