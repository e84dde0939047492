#!/bin/sh
# The daemon serves every file the build holds open through FUSE from one descriptor table,
# bounded by its own hard limit: when it is full, an open through the mount fails with EMFILE
# (documented: docs/architecture.md, "Out of descriptors"), but a close never fails (natively
# close(2) has no EMFILE), and the build keeps the caller's own descriptor limits (the daemon
# raises only its own).
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd prlimit
require_cmd perl
mkdir "$T/ws"
cd "$T/ws"
# The build's limits are the caller's.
prlimit --nofile=1000:1010 "$BUILDTRAIL" run -q -o "$T/limits.db" -- sh -c 'ulimit -Sn; ulimit -Hn' \
    > "$T/limits.out" || fail "run with a descriptor limit"
assert_eq "$(cat "$T/limits.out" | tr '\n' ' ')" "1000 1010 " "the build's descriptor limits are the caller's"
# Fill the daemon's table (soft and hard 1024) with files held open through the mount, then
# close them: every close succeeds.
cat > "$T/hold.pl" <<'PL'
my @f; my $n = 0;
while (open(my $h, ">", "held$n")) { push @f, $h; $n++; }
print "held $n: $!\n";
my $bad = 0;
for my $h (@f) { close($h) or do { $bad++; print STDERR "close: $!\n" if $bad == 1 } }
print "closes failed: $bad\n";
open(my $h, ">", "after") or die "open after: $!\n";
close($h) or die "close after: $!\n";
print "after: ok\n";
PL
prlimit --nofile=1024:1024 timeout -s KILL 120 "$BUILDTRAIL" run -q -o "$T/full.db" -- perl "$T/hold.pl" \
    > "$T/full.out" 2>&1 || fail "the build failed (status $?): $(cat "$T/full.out")"
assert_contains "$(cat "$T/full.out")" "closes failed: 0" "no close fails when the daemon's table is full"
assert_contains "$(cat "$T/full.out")" "after: ok" "opens work again once files are closed"
assert_no_leftovers
