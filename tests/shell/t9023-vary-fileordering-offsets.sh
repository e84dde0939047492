#!/bin/sh
# --vary fileordering: a directory too large for one READDIR reply (3000 entries with long
# names: the kernel asks again from an offset) is listed in exactly the reverse of the real
# filesystem's order, every entry once, the same at every listing ("." and ".." first);
# rewinddir lists it again; a name created meanwhile appears in the next listing.  With the
# control's value, the natural order.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd python3
mkdir "$T/ws" "$T/ws/big"
cd "$T/ws"
python3 -c '
import os
for i in range(3000):
    open("big/entry-%04d-%s" % (i, "x" * 60), "w").close()'
native=$(ls -f big | grep -v '^\.\.\?$' | sha256sum)
reversed=$(ls -f big | grep -v '^\.\.\?$' | tac | sha256sum)
cat > list.py <<'EOS'
import os, sys
# Listings through one open directory, with a rewind between: what os.scandir would miss.
fd = os.open("big", os.O_RDONLY | os.O_DIRECTORY)
first = os.listdir(fd)
second = os.listdir(fd)        # listdir(fd) rewinds
open("big/zz-made-during", "w").close()
third = os.listdir("big")
print("\n".join(first))
assert first == second, "two listings differ"
assert sorted(third) == sorted(first + ["zz-made-during"]), "the new name"
assert len(set(first)) == len(first) == 3000, len(first)
dots = os.popen("ls -fa big | head -2").read().split()
assert dots == [".", ".."], dots
EOS
bt run -q -o "$T/e.db" --vary fileordering -- python3 list.py > "$T/e.out" 2> "$T/e.err" ||
    fail "experiment: $(cat "$T/e.err")"
assert_eq "$(sha256sum < "$T/e.out")" "$reversed" "the experiment's listing: reversed"
rm -f big/zz-made-during
bt run -q -o "$T/c.db" --vary-control fileordering -- python3 list.py > "$T/c.out" 2> "$T/c.err" ||
    fail "control: $(cat "$T/c.err")"
assert_eq "$(sha256sum < "$T/c.out")" "$native" "the control's listing: natural"
assert_no_leftovers
echo ok
