#!/bin/sh
# run --only-packages that cannot be honoured stops before anything runs: one line naming what
# is wrong and the fix, exit 2, the command never started, an earlier trace at -o left as it
# was — a package not installed (unknown, or one Debian has but this machine lacks: named in
# a list, or by an applying clause of the control file), a control file missing, a directory,
# a FIFO (not waited on) or without Build-Depends; without --system; with --system=opens
# (fanotify cannot fake absence); given twice.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd dpkg-query
mkdir -p "$T/ws/debian" && cd "$T/ws"
bt run -q -o "$T/t.db" -- true || fail "the first trace"
sum=$(sha256sum "$T/t.db")
# A package Debian has that is not installed here (the first of these that is not).
absent=""
for p in cowsay sl fortune-mod hello figlet; do
    dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q ' installed$' || { absent=$p; break; }
done
printf 'Source: x\nBuild-Depends: libc6-dev, %s | buildtrail-no-such-package [linux-any]\n\nPackage: x\n' "${absent:-buildtrail-other}" > debian/control
printf 'Source: x\nMaintainer: nobody\n\nPackage: x\nArchitecture: any\n' > NODEPS
mkfifo FIFO
check() { # WANT OPTION...
    _want=$1
    shift
    one_line_error timeout 20 "$BUILDTRAIL" run -o "$T/t.db" "$@" -- touch "$T/ran"
    assert_eq "$st" 2 "exit status for $*"
    assert_contains "$e" "$_want" "the error for $*"
    [ ! -e "$T/ran" ] || fail "the command ran with $*"
    assert_eq "$(sha256sum "$T/t.db")" "$sum" "the earlier trace with $*"
}
check "buildtrail run: --only-packages: buildtrail-no-such-package is not installed; install it" --system --only-packages libc6-dev,buildtrail-no-such-package
if [ -n "$absent" ]; then
    check "--only-packages: $absent is not installed" --system --only-packages "make $absent"
    check "--only-packages: $absent | buildtrail-no-such-package is not installed" --system --only-packages @debian/control
else
    missing_part "a package that is not installed (cowsay, sl, ...)"
fi
check "--only-packages @NOPE: No such file or directory; give a debian/control or .dsc file" --system --only-packages @NOPE
check "--only-packages @debian: " --system --only-packages @debian
check "--only-packages @FIFO: " --system --only-packages @FIFO
check "--only-packages @NODEPS: no Build-Depends, Build-Depends-Arch or Build-Depends-Indep field" --system --only-packages @NODEPS
check "--only-packages restricts the system trees; add --system" --only-packages make
check "which --system=opens (fanotify) cannot; use --system or --system=full" --system=opens --only-packages make
check "--only-packages given twice" --system --only-packages make --only-packages gcc
assert_no_leftovers
