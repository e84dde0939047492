#!/bin/sh
# .ci/fetch-workloads on a fresh clone: an empty cache and no ../shared beside the project.
# Every pinned file arrives (upstream tarballs; whole Debian source packages that
# dpkg-source -x unpacks) and nothing else.
# It takes each pinned Debian version from the archive (a mirror may list a newer security or
# point release it does not have: zlib's +deb12u1 here), falls back to any version whose
# tarball is the pinned one when the pinned version is gone (zlib's pin made unknown below),
# needs no root and changes nothing in /etc/apt.  Needs Debian's archive (network).
. "$(dirname "$0")/lib.sh"
script=$(dirname "$0")/../../.ci/fetch-workloads
[ -x "$script" ] || { say "fetch-workloads is checked by the variant that runs from the project"; exit 0; }
require_cmd apt-get
require_cmd dpkg-source
mkdir -p "$T/proj/.ci" "$T/home"
sed 's/^  "zlib 1:1.2.13.dfsg-1 /  "zlib 1:1.2.13.dfsg-0~gone /' "$script" > "$T/proj/.ci/fetch-workloads"
chmod +x "$T/proj/.ci/fetch-workloads"
grep -q '"zlib 1:1.2.13.dfsg-0~gone ' "$T/proj/.ci/fetch-workloads" || fail "zlib's pin not found in the script"
etc_before=$(ls -la /etc/apt /etc/apt/sources.list.d 2>&1)
set +e
HOME=$T/home BT_WORKLOADS=$T/cache "$T/proj/.ci/fetch-workloads" > "$T/out" 2> "$T/err"; st=$?
set -e
if [ "$st" != 0 ] && grep -q "no network to Debian's archive" "$T/err"; then
    missing "network to Debian's archive ($(cat "$T/err"))"
fi
[ "$st" = 0 ] || fail "fetch-workloads exited $st: $(cat "$T/err")"
assert_eq "$(tail -n 1 "$T/out")" "$T/cache" "the cache's path on the last line"
assert_contains "$(cat "$T/err")" "zlib_1.2.13.dfsg.orig.tar.bz2 from zlib 1:1.2.13.dfsg-1 (the pinned 1:1.2.13.dfsg-0~gone is not in the archive)" "zlib's fallback"
# Every pinned file, with its pinned hash: the upstream tarballs and the whole Debian source
# packages (each .dsc with the files it lists, got from one download per package).
sed -n 's/^  "\([^ ]*\) [^ ]* \([^ ]*\) \([0-9a-f]*\)"$/\3  \2/p' "$script" > "$T/pins"
[ "$(wc -l < "$T/pins")" = 26 ] || fail "the pins: $(cat "$T/pins")"
(cd "$T/cache" && sha256sum -c --quiet "$T/pins") || fail "a file is not the pinned one"
for dsc in "$T"/cache/*.dsc; do # each source package whole: dpkg-source can unpack it
    (cd "$T" && dpkg-source -x "$dsc" "$T/unpacked" > /dev/null 2>&1) || fail "dpkg-source -x $(basename "$dsc")"
    rm -rf "$T/unpacked"
done
assert_eq "$(ls "$T/cache" | wc -l)" 26 "only the pinned files in the cache: $(ls "$T/cache")"
[ -s "$T/cache/dash_0.5.12-2.dsc" ] && [ -s "$T/cache/dash_0.5.12-2.debian.tar.xz" ] || fail "dash's Debian source package"
[ ! -e "$T/cache/.apt" ] || fail "apt's private state is left in the cache"
assert_eq "$(ls -la /etc/apt /etc/apt/sources.list.d 2>&1)" "$etc_before" "/etc/apt unchanged"
# A second run finds everything in the cache: nothing is fetched or rewritten.
before=$(ls -l --time-style=full-iso "$T/cache")
HOME=$T/home BT_WORKLOADS=$T/cache "$T/proj/.ci/fetch-workloads" > "$T/out2" 2>&1 || fail "a second run: $(cat "$T/out2")"
assert_eq "$(ls -l --time-style=full-iso "$T/cache")" "$before" "the cache after a second run"
assert_eq "$(cat "$T/out2")" "$T/cache" "the second run's output"
