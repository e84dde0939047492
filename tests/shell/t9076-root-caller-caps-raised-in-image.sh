#!/bin/sh
# A root build's step that becomes another user keeping its capabilities (PR_SET_KEEPCAPS, as
# daemons and pjdfstest do; not dumpable from then on), is refused a root-only file, then
# raises CAP_DAC_OVERRIDE within the same image (capset): the next open reads the file, as
# natively, with and without the kernel's checks.  Its capabilities were re-read after the
# refusal; that it is in the daemon's user namespace (fusefs counts a caller's capabilities
# there only, t9073) is read with the daemon's capabilities, as ptrace would be, since a
# process that is not dumpable hides /proc/PID/ns/user from its own uid.
. "$(dirname "$0")/lib.sh"
require_fuse
require_root
require_cmd perl
perl -e 'require "syscall.ph"' 2>/dev/null || missing "perl's syscall.ph"
mkdir "$T/ws"
cd "$T/ws"
echo secret > secret && chmod 600 secret
cat > caps.pl <<'PL'
require "syscall.ph";
syscall(&SYS_prctl, 8, 1, 0, 0, 0) == 0 or die "keepcaps: $!";   # PR_SET_KEEPCAPS
$) = "4321 4321"; $( = 4321; $< = $> = 4321;
$< == 4321 && $> == 4321 or die "setuid: $!";
open(my $f, "<", "secret") and print "read-before\n";
my $hdr = pack("LL", 0x20080522, 0);                                # _LINUX_CAPABILITY_VERSION_3
my $data = "\0" x 24;
syscall(&SYS_capget, $hdr, $data) == 0 or die "capget: $!";
my @d = unpack("L6", $data);
$d[0] = 1 << 1;                                                     # effective: CAP_DAC_OVERRIDE
syscall(&SYS_capset, $hdr, pack("L6", @d)) == 0 or die "capset: $!";
open($f, "<", "secret") or die "read-after: $!\n";
print "read-after: ", <$f>;
PL
assert_eq "$(perl caps.pl 2>&1)" "read-after: secret" "natively"
for kc in 0 1; do
    BUILDTRAIL_NO_KERNEL_CHECKS=$kc "$BUILDTRAIL" run -q -o "$T/t$kc.db" -- perl caps.pl \
        > "$T/out" 2> "$T/err" || fail "run (no kernel checks: $kc): $(cat "$T/out" "$T/err")"
    assert_eq "$(cat "$T/out")" "read-after: secret" "through buildtrail (no kernel checks: $kc)"
done
assert_no_leftovers
echo ok
