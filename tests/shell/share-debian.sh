#!/bin/sh
# share-debian.sh — ctest's fixture for the tests that share one traced Debian package build
# (a test says "# shares: SRCPKG VERSION|OPTIONS|PROFILES"; tests/CMakeLists.txt).  Builds the
# package named by BT_DEB_SHARE_BUILD ("SRCPKG VERSION|OPTIONS|PROFILES") into $BT_DEB_SHARE,
# made afresh, as deb_build would into $T, and writes that line to $BT_DEB_SHARE/built last,
# so that a half-made build is never read.  The tests then read it and write nothing there.
# Why: a package build costs minutes, and each was made again by every test that checked it.
#
# share-debian.sh --clean (the fixture's cleanup, after the last test that shares the build):
# fails, naming them, if a test changed a file of the build (a test that writes there would
# make every test after it read something else), then removes $BT_DEB_SHARE.
if [ "${1:-}" = --clean ]; then
    : "${BT_DEB_SHARE:?}"
    [ -d "$BT_DEB_SHARE" ] || exit 0 # the build was never made (its fixture failed or skipped)
    _changed=""
    if [ -f "$BT_DEB_SHARE/sums" ]; then
        _changed=$(cd "$BT_DEB_SHARE" && find pkg -type f -exec sha256sum {} + | sort -k2 |
            diff sums - | sed -n 's/^[<>] [0-9a-f]*  //p' | sort -u | head -5)
    fi
    rm -rf "$BT_DEB_SHARE"
    [ -z "$_changed" ] || { echo "FAIL: a test changed the shared build: $(echo $_changed)" >&2; exit 1; }
    exit 0
fi
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/debpkg.sh"
: "${BT_DEB_SHARE:?}" "${BT_DEB_SHARE_BUILD:?}"
deb_require
rm -rf "$BT_DEB_SHARE"
mkdir -m 755 "$BT_DEB_SHARE"
_pkg=${BT_DEB_SHARE_BUILD%%|*}
_rest=${BT_DEB_SHARE_BUILD#*|}
deb_build_into "$BT_DEB_SHARE" "${_pkg% *}" "${_pkg#* }" "${_rest%%|*}" "${_rest#*|}"
chmod -R a+rX "$BT_DEB_SHARE"
(cd "$BT_DEB_SHARE" && find pkg -type f -exec sha256sum {} + | sort -k2 > sums)
printf '%s\n' "$BT_DEB_SHARE_BUILD" > "$BT_DEB_SHARE/built"
assert_no_leftovers
