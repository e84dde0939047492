#!/bin/sh
# --system as root (fanotify): the daemon's descriptors are not the build's.  The kernel makes
# each event's descriptor in the daemon's read; when the daemon's table is full it denies the
# open itself (EPERM where the open succeeds natively) and drops other events.  So:
# 1. Three processes holding 900 files each open for writing under /usr/local, with the
#    daemon's limit at 1024 (soft and hard): no open fails, nothing hangs, every write is
#    recorded and hashed, and the run is complete.
# 2. When the daemon's table is full anyway (files the build holds open through FUSE), the
#    watchers go on answering (a later open does not hang) and the run says it is incomplete,
#    and why.
# Root only: fanotify, and a /usr/local of its own (a tmpfs in a private mount namespace).
. "$(dirname "$0")/lib.sh"
require_fuse
require_private_usr_local
require_cmd prlimit
require_cmd timeout
require_cmd perl
mkdir "$T/ws"
# in_ns DB SCRIPT: run SCRIPT (sh -c) under 'buildtrail run --system' with a descriptor limit of
# 1024, in a namespace whose /usr/local is a fresh tmpfs; at most 120 s.
in_ns() {
    unshare -m --propagation private sh -ec '
        T=$1 db=$2 bt=$3 script=$4
        mount -t tmpfs bt-test /usr/local
        mkdir /usr/local/bt
        cd "$T/ws"
        timeout -s KILL 120 prlimit --nofile=1024:1024 "$bt" run -q -o "$T/$db" --system -- sh -c "$script"
    ' sh "$T" "$1" "$BUILDTRAIL" "$2"
}

cat > "$T/writers.pl" <<'EOF'
my @f;
for my $i (1..900) {
    open(my $h, ">", "/usr/local/bt/f$ARGV[0]_$i") or die "open $i of writer $ARGV[0]: $!\n";
    print $h "$ARGV[0] $i\n";
    push @f, $h;
}
sleep 1;
print "writer $ARGV[0] done\n";
EOF
in_ns many.db "for j in 1 2 3; do perl $T/writers.pl \$j & done; wait" > "$T/many.out" 2>&1 ||
    fail "the build with 2700 files open failed (status $?): $(cat "$T/many.out")"
for j in 1 2 3; do
    grep -q "^writer $j done" "$T/many.out" || fail "writer $j: $(cat "$T/many.out")"
done
notes=$(sql "$T/many.db" "select notes from runs")
case $notes in
    *"system_trees=watched"*) ;;
    *"system_trees=served"*) skip "this kernel or container offers no fanotify permission events: $notes" ;;
    *) fail "no system_trees note: $notes" ;;
esac
assert_eq "$(sql "$T/many.db" "select process_tree from runs")" complete "nothing was lost"
assert_eq "$(sql "$T/many.db" "select count(distinct f.path) from accesses a join files f on f.id = a.file_id
    join access_kinds k on k.code = a.kind where k.name = 'write' and f.path like '/usr/local/bt/f%'")" 2700 \
    "every file written is recorded"
sum=$(printf '2 345\n' | sha256sum | cut -c1-64 | tr a-f A-F)
assert_eq "$(sql "$T/many.db" "select hex(v.sha256) from versions v join files f on f.id = v.file_id
    where f.path = '/usr/local/bt/f2_345'")" "$sum" "a file written is hashed"
assert_eq "$(sql "$T/many.db" "select count(*) from versions v join files f on f.id = v.file_id
    where f.path like '/usr/local/bt/f%' and v.sha256 is null")" 0 "every version is hashed"

# 2. The daemon's table filled by files held open through FUSE (the workspace).
cat > "$T/hold.pl" <<'EOF'
my @f; my $n = 0;
while (open(my $h, ">", "held$n")) { push @f, $h; $n++; }
print "held $n\n";
for my $i (1..3) { open(my $h, ">", "/usr/local/bt/full$i") and print "full $i opened\n"; }
@f = ();
for my $i (1..3) { open(my $h, ">", "/usr/local/bt/after$i") or die "after $i: $!\n"; }
print "after: all opened\n";
EOF
in_ns full.db "perl $T/hold.pl 2>/dev/null" > "$T/full.out" 2>&1 ||
    fail "the build that filled the daemon's table hung or failed (status $?): $(cat "$T/full.out")"
assert_contains "$(cat "$T/full.out")" "after: all opened" "opens after the table emptied again"
tree=$(sql "$T/full.db" "select process_tree from runs")
assert_contains "$tree" "incomplete: " "the run says what it lost"
assert_contains "$tree" "Too many open files" "and why"
bt info -d "$T/full.db" > "$T/info.out" 2> "$T/info.err"
assert_contains "$(cat "$T/info.out")" "INCOMPLETE: " "info says so"
assert_contains "$(cat "$T/info.err")" "fanotify event" "every query warns"
bt info --json -d "$T/full.db" 2>/dev/null | grep -q '"complete":false' || fail "info --json says complete"
assert_no_leftovers
