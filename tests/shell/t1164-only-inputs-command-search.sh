#!/bin/sh
# run --only-inputs and $PATH: the directories of the build's command search stay visible
# (their contents judged one by one), so a search through an undeclared one ($HOME/.cargo/bin,
# ~/bin) is a denial only where it finds a hidden command — the one the build would have run —
# and not, for every command of every build, of the directory itself (a finding of verify each
# time, whatever the build did).  A Debian maintainer expects what sbuild gives: the commands
# of the declared trees, and a record of a command that was hidden.  A search directory
# reached through a symlink (~/.nix-profile/bin, a stowed ~/bin) likewise: the links on the way
# stay visible with it (they were denied at every search before).
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir -p "$T/ws" "$T/home/.tool/bin" "$T/home/store/profile-1/bin" && cd "$T/ws"
printf '#!/bin/sh\necho "the home tool"\n' > "$T/home/.tool/bin/hometool"
chmod +x "$T/home/.tool/bin/hometool"
ln -s store/profile-1 "$T/home/.profile"
echo ok > ok
echo ok > M
out=$(PATH="$T/home/.tool/bin:$T/home/.profile/bin:$PATH" bt run -q -o "$T/t.db" --only-inputs M -- sh -c '
    cat ok; hometool 2>/dev/null || echo "no hometool"' 2>&1) || fail "the build failed: $out"
assert_contains "$out" "no hometool" "the command in an undeclared search directory is hidden"
denied=$(bt files -d "$T/t.db" --denied)
assert_contains "$denied" "$T/home/.tool/bin/hometool: undeclared; looked up by " "the hidden command"
case $denied in *"$T/home/.tool:"*|*"$T/home/.tool/bin:"*|*"$T/home/.profile:"*|*"$T/home/store"*)
    fail "the search directory itself was denied: $denied" ;; esac
# cat was found on the rest of the search path; its search through the undeclared directory
# found nothing there, so nothing was denied for it.
case $denied in *"/bin/cat:"*) fail "a search for cat denied: $denied" ;; esac
# verify: the one finding is the hidden command.
set +e
v=$(bt verify -d "$T/t.db" --inputs M 2>&1); vst=$?
set -e
assert_eq "$vst" 1 "verify's status: $v"
assert_eq "$(printf '%s\n' "$v" | grep -c '^denied ')" 1 "one denial in verify: $v"
assert_no_leftovers
