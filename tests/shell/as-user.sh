#!/bin/sh
# as-user.sh TEST — run a shell test as an unprivileged user (ctest's "user/" variants).
# Needs root (to switch user) and the user named by BT_TEST_USER (default buildtrail-test);
# skips (77) otherwise.  The binary, the test and its library are copied to a directory the
# user can read, since the build tree may live where that user cannot look.
set -eu
user=${BT_TEST_USER:-buildtrail-test}
[ "$(id -u)" = 0 ] || { echo "SKIP: user variant needs root to switch user"; exit 77; }
id "$user" >/dev/null 2>&1 || { echo "SKIP: no user $user (CI creates it)"; exit 77; }
test_file=$1
here=$(cd "$(dirname "$0")" && pwd)
stage=$(mktemp -d "${TMPDIR:-/tmp}/bt-user.XXXXXX")
trap 'rm -rf "$stage"' EXIT
chmod 755 "$stage"
cp "$BUILDTRAIL" "$stage/buildtrail"
[ -n "${FSCONFORM:-}" ] && cp "$FSCONFORM" "$stage/fsconform"
[ -n "${NOBODYFS:-}" ] && cp "$NOBODYFS" "$stage/nobodyfs"
[ -n "${ATGEN:-}" ] && cp "$ATGEN" "$stage/atgen" && cp "$ATCHECK" "$stage/check.py"
cp "$here/lib.sh" "$here/crafted.sh" "$here/projects.sh" "$here/repro.sh" "$here/reprotest.sh" "$here/debpkg.sh" "$here/debpkg.py" "$here/sbomcheck.py" "$test_file" "$stage/"
cp -r "$here/../sample" "$stage/sample" 2>/dev/null || true
# The quick start (t1133), with the sample it copies, as it lies in the source tree.
mkdir -p "$stage/src/.ci" "$stage/src/tests"
cp "$here/../../.ci/quickstart" "$stage/src/.ci/" && cp -r "$here/../sample" "$stage/src/tests/sample"
if [ -n "${WORKLOADS:-}" ] && [ -d "$WORKLOADS" ]; then
    mkdir "$stage/workloads"
    cp "$WORKLOADS"/*.tar.* "$WORKLOADS"/*.dsc "$stage/workloads/" 2>/dev/null || true
fi
if [ -n "${SCHEMAS:-}" ] && [ -d "$SCHEMAS" ]; then
    mkdir "$stage/schemas"
    cp "$SCHEMAS"/*.json "$stage/schemas/" 2>/dev/null || true
fi
# The sanitizer build's options go along; a suppression file is copied where the user can read it.
lsan=${LSAN_OPTIONS:-}
supp=$(printf '%s' "$lsan" | sed -n 's/.*suppressions=\([^:]*\).*/\1/p')
if [ -n "$supp" ] && [ -f "$supp" ]; then
    cp "$supp" "$stage/lsan.supp"
    lsan=$(printf '%s' "$lsan" | sed "s|suppressions=[^:]*|suppressions=$stage/lsan.supp|")
fi
# A git repository owned by root, for tests of ownership checks (git's "dubious ownership").
if command -v git >/dev/null 2>&1; then
    mkdir "$stage/root-repo"
    git -C "$stage/root-repo" init -q && echo data > "$stage/root-repo/file" &&
        git -C "$stage/root-repo" add file
fi
chmod -R a+rX "$stage"
# Not exec: the EXIT trap must still remove the stage when the test is done.
set +e
runuser -u "$user" -- env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/tmp BT_VARIANT=user \
    ${FSCONFORM_DIR_ENTRIES:+FSCONFORM_DIR_ENTRIES=$FSCONFORM_DIR_ENTRIES} \
    ${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} ${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS} \
    ${lsan:+LSAN_OPTIONS=$lsan} ${BT_SANITIZED:+BT_SANITIZED=$BT_SANITIZED} ${CI:+CI=$CI} ${BT_SKIP_LOG:+BT_SKIP_LOG=$BT_SKIP_LOG} \
    ${BT_DEB_SHARE:+BT_DEB_SHARE=$BT_DEB_SHARE} ${BT_DEB_SHARE_BUILD:+"BT_DEB_SHARE_BUILD=$BT_DEB_SHARE_BUILD"} \
    BUILDTRAIL="$stage/buildtrail" FSCONFORM="$stage/fsconform" NOBODYFS="$stage/nobodyfs" ATGEN="$stage/atgen" \
    ATCHECK="$stage/check.py" WORKLOADS="$stage/workloads" SAMPLE="$stage/sample" \
    SCHEMAS="$stage/schemas" ROOT_REPO="$stage/root-repo" QUICKSTART="$stage/src/.ci/quickstart" \
    sh "$stage/$(basename "$test_file")"
exit $?
