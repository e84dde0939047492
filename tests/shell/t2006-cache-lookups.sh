#!/bin/sh
# Failed lookups and symlinks: by default every process that looks for a missing name or follows
# a symlink is recorded; with --cache-lookups the kernel remembers missing names and symlink
# targets (only the first process is recorded), and the build still sees a name as soon as it
# makes it, by any route, and a symlink's new target as soon as it replaces the link.
# resource-lock: kernel-caches (it counts what the kernel cached; t2100 drops the caches)
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir "$T/ws" && cd "$T/ws"

# Three processes look for the same missing name, then the build makes it (create, rename into
# place, hard link) and looks again from new processes.
cat > build.sh <<'SH'
rm -f made-later renamed-in linked-in link
echo one > one; echo two > two; ln -s one link
for i in 1 2 3; do sh -c 'test -e absent.h || echo missing'; done
sh -c 'test -e made-later || echo not-yet'
sh -c 'echo x > made-later'
sh -c 'test -e made-later && echo made'
sh -c 'test -e renamed-in || echo not-yet'
sh -c 'echo y > tmp.$$ && mv tmp.$$ renamed-in'
sh -c 'cat renamed-in'
sh -c 'test -e linked-in || echo not-yet'
sh -c 'ln made-later linked-in'
sh -c 'cat linked-in'
sh -c 'rm made-later; test -e made-later || echo gone'
for i in 1 2 3; do sh -c 'cat link'; done
sh -c 'ln -sfn two link'
sh -c 'cat link'
SH
want='missing
missing
missing
not-yet
made
not-yet
y
not-yet
x
gone
one
one
one
two'

probers() { sql "$1" "select count(distinct a.process_id) from accesses a join files f on f.id = a.file_id
                      where a.kind = 15 and a.result = 2 and f.path = '$T/ws/absent.h'"; }

followers() { sql "$1" "select count(distinct a.process_id) from accesses a join files f on f.id = a.file_id
                        where a.kind = 14 and f.path = '$T/ws/link'"; }

bt run -o exact.db -- sh build.sh > out-exact.txt
assert_eq "$(cat out-exact.txt)" "$want" "what the build saw (default)"
assert_eq "$(probers exact.db)" 3 "processes recorded looking for the missing name (default)"
assert_eq "$(followers exact.db)" 4 "processes recorded following the symlink (default)"
assert_no_leftovers

bt run --cache-lookups -o cached.db -- sh build.sh > out-cached.txt
assert_eq "$(cat out-cached.txt)" "$want" "what the build saw (--cache-lookups)"
assert_eq "$(probers cached.db)" 1 "processes recorded looking for the missing name (--cache-lookups)"
# the first reader of each of the link's two inodes
assert_eq "$(followers cached.db)" 2 "processes recorded following the symlink (--cache-lookups)"
sql cached.db "select notes from runs" | grep -q 'cache_lookups=1' || fail "the run's notes do not say probes were cached"
assert_no_leftovers
