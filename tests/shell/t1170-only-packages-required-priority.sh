#!/bin/sh
# run --system --only-packages keeps the packages of Priority required visible, as the
# debootstrap chroot sbuild builds in holds them (tzdata's zone files, mawk, e2fsprogs...), not
# only the Essential ones and what they depend on: one file of each such package stays.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd dpkg-query
# One regular file of each installed, required, non-Essential package.
dpkg-query -W -f='${Package} ${Priority} ${Essential} ${db:Status-Status}\n' |
    awk '$2 == "required" && $3 != "yes" && $4 == "installed" { print $1 }' > "$T/pkgs"
: > "$T/files"
while read -r pkg; do
    for f in $(dpkg-query -L "$pkg" 2>/dev/null); do
        case $f in /usr/share/doc/*|/etc/*) continue ;; esac
        if [ -f "$f" ] && [ ! -L "$f" ]; then echo "$f" >> "$T/files"; break; fi
    done
done < "$T/pkgs"
[ -s "$T/files" ] || missing "an installed package of Priority required that is not Essential"
mkdir "$T/ws" && cd "$T/ws"
cp "$T/files" files
bt run -q -o "$T/t.db" --system --only-packages make -- \
    sh -c 'while read -r f; do [ -e "$f" ] || echo "hidden $f"; done < files' > out 2>&1 ||
    fail "the run: $(cat out)"
[ ! -s out ] || fail "files of Priority required packages hidden: $(cat out)"
assert_no_leftovers
