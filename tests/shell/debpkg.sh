# debpkg.sh — sourced after lib.sh by the tests that build a Debian source package of the
# workload cache traced (`run --system -- dpkg-buildpackage -b`) and check what every shipped
# file was made from against the package's own build files (t8005-t8009).
#
# deb_require: skip (missing) without dpkg-buildpackage, dh, readelf, python3, or, when not
#   root, fakeroot and a subordinate id range (as t8004 and t1111).
# deb_build SRCPKG VERSION OPTIONS PROFILES: unpack SRCPKG_VERSION.dsc of the workload cache
#   with dpkg-source -x into $T/pkg and build it there traced into $T/trace.db, with
#   DEB_BUILD_OPTIONS="OPTIONS parallel=2" and -PPROFILES, the same as root and unprivileged
#   (dpkg-buildpackage runs debian/rules binary under fakeroot then); sets SRC, the tree.
# deb_check SPEC: debpkg.py's checks of every .deb and .udeb in $T/pkg against SPEC (JSON: the
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
    _dsc=$(workload "$1_$2.dsc")
    for _f in $(sed -n '/^Files:/,/^[^ ]/s/^ [0-9a-f]* [0-9]* //p' "$_dsc"); do
        workload "$_f" > /dev/null # the tarballs it lists
    done
    mkdir "$T/pkg"
    (cd "$T/pkg" && dpkg-source -x "$_dsc" > "$T/unpack.log" 2>&1) ||
        fail "dpkg-source -x $_dsc: $(tail -3 "$T/unpack.log")"
    SRC=$(find "$T/pkg" -mindepth 1 -maxdepth 1 -type d)
    [ -d "$SRC/debian" ] || fail "no unpacked tree in $T/pkg: $(ls "$T/pkg")"
    dpkg-checkbuilddeps -P"$4" "$SRC/debian/control" > "$T/deps.log" 2>&1 ||
        missing "the build dependencies of $1: $(cat "$T/deps.log")"
    _start=$(date +%s)
    (cd "$SRC" && DEB_BUILD_OPTIONS="$3 parallel=2" bt run --system -o "$T/trace.db" -- \
        dpkg-buildpackage -b -uc -us -P"$4" > "$T/build.log" 2>&1) ||
        fail "the traced build of $1 failed: $(tail -5 "$T/build.log")"
    say "the traced build of $1 took $(($(date +%s) - _start)) s"
    ls "$T"/pkg/*.deb > /dev/null 2>&1 || fail "the build of $1 made no .deb: $(tail -5 "$T/build.log")"
}

deb_check() { # SPEC
    python3 "$(dirname "$0")/debpkg.py" "$BUILDTRAIL" "$T/trace.db" "$SRC" "$T/pkg" "$1" "$T" ||
        fail "what went into the shipped files of $(basename "$SRC") differs from its build files (the FAIL lines above)"
}
