#!/bin/sh
# Files show their real owners in the build, as natively, in both modes: root's files are
# root's (not the caller's), so ownership checks behave as natively — git refuses a repository
# owned by another user ("dubious ownership") instead of running its configuration.
# (Unprivileged: needs newuidmap and a subordinate id range, which .ci/run sets up.)
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd git
mkdir "$T/ws" && cd "$T/ws"
if [ "$(id -u)" = 0 ]; then
    repo=$T/repo
    mkdir "$repo" && git -C "$repo" init -q && echo data > "$repo/file"
    chown -R 65534:65534 "$repo"
else
    [ -d "${ROOT_REPO:-}" ] || missing "a repository owned by root (as-user.sh makes ROOT_REPO)"
    repo=$ROOT_REPO
    command -v newuidmap >/dev/null 2>&1 || missing "newuidmap (apt-get install uidmap)"
    grep -q "^$(id -un):" /etc/subuid 2>/dev/null || missing "a subordinate uid range for $(id -un) in /etc/subuid"
fi
cat > probe.sh <<EOS
stat -c '%u:%g %n' /etc/passwd /etc/shadow $repo/file
HOME=$T/ws git -C $repo status --short 2>&1 | grep -o 'dubious ownership' || echo "git ran in it"
EOS
native=$(sh probe.sh 2>&1)
assert_contains "$native" "dubious ownership" "native git"
traced=$(bt run -q --system --trace "$repo" -- sh probe.sh 2>&1)
assert_eq "$traced" "$native" "owners and git's check"
assert_no_leftovers
