# debpkg.sh — sourced after lib.sh by the tests that build a Debian source package of the
# workload cache traced (`run --system -- dpkg-buildpackage -b`) and check what every shipped
# file was made from against the package's own build files (t8005-t8009).
#
# deb_require: skip (missing) without dpkg-buildpackage, dh, readelf, python3, or, when not
#   root, fakeroot and a subordinate id range (as t8004 and t1111).
# deb_build SRCPKG VERSION OPTIONS PROFILES: unpack SRCPKG_VERSION.dsc of the workload cache
#   with dpkg-source -x into $PKG and build it there traced into $TRACE, with
#   DEB_BUILD_OPTIONS="OPTIONS parallel=2" and -PPROFILES, the same as root and unprivileged
#   (dpkg-buildpackage runs debian/rules binary under fakeroot then); sets SRC (the tree), PKG
#   (where the .debs are) and TRACE.  PKG and TRACE are $T/pkg and $T/trace.db, unless the
#   test declares "# shares: SRCPKG VERSION|OPTIONS|PROFILES" (tests/CMakeLists.txt): then
#   ctest builds that package once per variant before the tests that share it (the fixture
#   share-debian.sh, into $BT_DEB_SHARE) and they read the one build there, read-only.
# deb_check SPEC: debpkg.py's checks of every .deb and .udeb in $PKG against SPEC (JSON: the
#   ground truth, see debpkg.py); prints each set that differs, expected against got, and fails
#   the test if any did.

deb_require() {
    require_fuse
    require_cmd dpkg-buildpackage
    require_cmd dpkg-source
    require_cmd dpkg-deb
    require_cmd dh
    require_cmd readelf
    require_cmd python3
    if [ "$(id -u)" != 0 ]; then
        require_cmd fakeroot
        command -v newuidmap >/dev/null 2>&1 || missing "newuidmap (apt-get install uidmap)"
        grep -q "^$(id -un):" /etc/subuid 2>/dev/null || missing "a subordinate uid range for $(id -un) in /etc/subuid"
    fi
}

deb_build() { # SRCPKG VERSION OPTIONS PROFILES
    if [ -n "${BT_DEB_SHARE:-}" ] && [ "$(cat "$BT_DEB_SHARE/built" 2>/dev/null)" = "$1 $2|$3|$4" ]; then
        PKG=$BT_DEB_SHARE/pkg TRACE=$BT_DEB_SHARE/trace.db
        SRC=$(find "$PKG" -mindepth 1 -maxdepth 1 -type d)
        say "the traced build of $1 shared with the other tests of this variant ($BT_DEB_SHARE)"
        return 0
    fi
    [ -z "${BT_DEB_SHARE:-}" ] ||
        fail "the shared build of $1 $2|$3|$4 is not in $BT_DEB_SHARE (its fixture, share-debian.sh, failed or built another: $(cat "$BT_DEB_SHARE/built" 2>/dev/null))"
    deb_build_into "$T" "$@"
}

deb_build_into() { # DIR SRCPKG VERSION OPTIONS PROFILES: deb_build's work, into DIR/pkg, DIR/trace.db
    _d=$1
    shift
    PKG=$_d/pkg TRACE=$_d/trace.db
    _dsc=$(workload "$1_$2.dsc")
    for _f in $(sed -n '/^Files:/,/^[^ ]/s/^ [0-9a-f]* [0-9]* //p' "$_dsc"); do
        workload "$_f" > /dev/null # the tarballs it lists
    done
    mkdir "$PKG"
    (cd "$PKG" && dpkg-source -x "$_dsc" > "$T/unpack.log" 2>&1) ||
        fail "dpkg-source -x $_dsc: $(tail -3 "$T/unpack.log")"
    SRC=$(find "$PKG" -mindepth 1 -maxdepth 1 -type d)
    [ -d "$SRC/debian" ] || fail "no unpacked tree in $PKG: $(ls "$PKG")"
    dpkg-checkbuilddeps -P"$4" "$SRC/debian/control" > "$T/deps.log" 2>&1 ||
        missing "the build dependencies of $1: $(cat "$T/deps.log")"
    _start=$(date +%s)
    (cd "$SRC" && DEB_BUILD_OPTIONS="$3 parallel=2" bt run --system -o "$TRACE" -- \
        dpkg-buildpackage -b -uc -us -P"$4" > "$T/build.log" 2>&1) ||
        fail "the traced build of $1 failed: $(tail -5 "$T/build.log")"
    say "the traced build of $1 took $(($(date +%s) - _start)) s"
    ls "$PKG"/*.deb > /dev/null 2>&1 || fail "the build of $1 made no .deb: $(tail -5 "$T/build.log")"
}

deb_check() { # SPEC
    python3 "$(dirname "$0")/debpkg.py" "$BUILDTRAIL" "$TRACE" "$SRC" "$PKG" "$1" "$T" ||
        fail "what went into the shipped files of $(basename "$SRC") differs from its build files (the FAIL lines above)"
}
