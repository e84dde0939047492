#!/bin/sh
# copies --index lists a directory's files in the order of their names, subdirectories where
# their names fall (the names were sorted by the addresses of their strings: any order).
. "$(dirname "$0")/lib.sh"
mkdir -p "$T/known/sub" && cd "$T"
for i in 01 02 03 04 05 06 07 08 09 10 11 12 13 14 15 16; do
    echo "file $i" > "known/f$i.txt"
done
echo 'int x;' > known/sub/a.c
echo 'other' > known/g.txt
bt copies --index known -o index.txt
got=$(grep -v '^~' index.txt | sed 's/^[0-9a-f]*  //')
want=$(printf 'known/f%s.txt\n' 01 02 03 04 05 06 07 08 09 10 11 12 13 14 15 16; \
       printf 'known/g.txt\nknown/sub/a.c\n')
assert_eq "$got" "$want" "the index's files, by name"
