#!/bin/sh
# run --vary user_group as root, where buildtrail's filesystem judges permissions itself
# (BUILDTRAIL_NO_KERNEL_CHECKS=1, as on a tree whose filesystem judges itself): a build that
# makes a user namespace below its own (`unshare -U -r`, or unshare(2) within one program, after
# a refusal) shows every capability in /proc/PID/status, yet holds none over the real
# filesystem.  It reads no file of a third user's (mode 600), writes none, and gives none to
# itself (chown), and sets no file capability (with the kernel's checks too): the daemon counts a
# caller's capabilities only in its own user namespace.
# (Root only: unprivileged, the daemon is the caller's own user and the kernel judges.)
. "$(dirname "$0")/lib.sh"
require_fuse
require_root
require_cmd unshare
require_cmd perl
mkdir "$T/ws"
cd "$T/ws"
echo secret > secret && chmod 600 secret
echo o > other
chown_other secret other || missing "a file of another user (chown_other)"
before=$(stat -c %u:%g:%a:%s secret other)
# perl: refused once (its image's capabilities, none, are kept), then a user namespace of its
# own with every capability in it, mapped to itself, and the same open again.
BUILDTRAIL_NO_KERNEL_CHECKS=1 "$BUILDTRAIL" run -o "$T/t.db" --vary user_group -- sh -c '
    unshare -U -r sh -c "grep CapEff /proc/self/status; cat secret; chown 0 other; echo x >> secret" 2>&1
    perl -e '\''
        require "syscall.ph";
        open(my $f, "<", "secret") and print "perl-read-before\n";
        syscall(&SYS_unshare, 0x10000000) == 0 or die "unshare: $!";
        open(my $m, ">", "/proc/self/uid_map") or die; print $m "0 2000 1\n"; close($m) or die;
        open($f, "<", "secret") and print "perl-read: ", <$f>;
        print "perl-chown\n" if chown(0, -1, "other");
    '\'' 2>&1
    true' > "$T/out" 2> "$T/err" || fail "run: $(cat "$T/err")"
assert_contains "$(cat "$T/out")" "CapEff:	000001ff" "the nested namespace's capabilities, shown"
assert_contains "$(cat "$T/out")" "cat: secret: Permission denied"
assert_eq "$(grep -c "Operation not permitted" "$T/out")" 1 "chown refused: $(cat "$T/out")"
grep -q "secret$\|perl-read\|perl-chown" "$T/out" && fail "a capability held: $(cat "$T/out")"
grep -q "unshare:" "$T/out" && fail "perl's unshare: $(cat "$T/out")"
assert_eq "$(stat -c %u:%g:%a:%s secret other)" "$before" "the third user's files on disk"
# With the kernel's checks (the default): the kernel lets the nested namespace's root set a file
# capability on the build's own file (root's, on disk), made valid for the machine's root
# (rootid 0); buildtrail's filesystem then writes it as the caller, who holds no CAP_SETFCAP.
if command -v setcap >/dev/null && command -v getcap >/dev/null; then
    cp "$(command -v sleep)" mytrue
    "$BUILDTRAIL" run -o "$T/k.db" --vary user_group -- \
        sh -c 'unshare -U -r setcap cap_setuid+ep mytrue 2>&1; true' > "$T/kout" 2> "$T/kerr" ||
        fail "run with kernel checks: $(cat "$T/kerr")"
    assert_contains "$(cat "$T/kout")" "Operation not permitted"
    assert_eq "$(getcap mytrue)" "" "no file capability on disk: $(cat "$T/kout")"
else
    missing_part "setcap/getcap (libcap2-bin)"
fi
assert_no_leftovers
echo ok
