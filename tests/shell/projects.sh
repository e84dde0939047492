# projects.sh — sourced after lib.sh by t6010–t6012 (issue #32): one small C project that
# each of them builds with another build system (Meson, CMake + Ninja, automake), and the check
# of each product's closure against what the build files say went into it.
#
# The project (project_sources DIR):
#   lib/a.c (MIT), lib/b.c (BSD-2-Clause), lib/foo.h (MIT)  -> the library
#   prog1.c (GPL-2.0-only), includes lib/foo.h               -> prog1, linking the library
#   prog2.c (Apache-2.0)                                     -> prog2, standalone
# Every source includes config.h, which the configure step makes from two function checks
# (strlcpy, memfd_create).  Each source declares its own license, so that a source leaking
# into another product shows in its license roll-up; config.h and its template carry none.
#
# project_trace NAME COMMAND: trace COMMAND (sh -c) as one run into $T/NAME.db, from $P (the
# project's directory), its output in $T/NAME.log.  As root with --system, so that what the
# configure step read under /usr (CMake's ABI probe sources, meson's modules) is in the trace
# and can leak; unprivileged without.  Sets DB.
#
# check_product PATH SOURCES HEADERS BUILT_HEADERS SHLIBS: PATH's closure, by `inputs --json`,
# `inputs --roles` (with and without --leaves) and `licenses`, compared with the expected sets
# (space-separated absolute paths):
#   SOURCES        exactly the found compiled sources (no probe, no other product's source);
#   HEADERS        exactly the found included headers under $T (system headers aside);
#   BUILT_HEADERS  exactly the built included headers under $T (config.h): shown without
#                  --leaves, not with it;
#   SHLIBS         exactly the shared libraries under $T (linked dynamically: not followed).
#   COPIES         (optional) exactly the found files under $T it is a copy of (role copy).
# No source, header or object is a configure probe's (meson-private/, testfile.c, CMake's
# CMakeCCompilerABI.c / CheckFunctionExists.c, conftest.c), none of the expected files is
# reached only through a guessed edge, and `licenses` agrees: the incorporated files are the
# sources and headers above (config.h may be listed, of unknown license), the roll-up is
# exactly the licenses their SPDX tags declare, the libraries are "dynamic", and
# `--deny 'GPL-*'` / `--deny 'Apache-*'` exit 1 exactly when one of those licenses matches.
# Every failure names the product and the set that differed, expected against got.
#
# check_project LINKAGE LIB PROG1 PROG2 INSTALLED_DIR CONFIG_H [TEMPLATE]: the whole project, its three
# products in the build tree (LIB, PROG1, PROG2) and installed (INSTALLED_DIR/lib/,
# INSTALLED_DIR/bin/, same names), and the installed header (INSTALLED_DIR/include/foo.h: a
# copy of lib/foo.h, nothing else); TEMPLATE, the config.h.in config.h was filled from, is an
# included header of each (its text is config.h's); LINKAGE says how prog1 takes the library, as the build files
# say and the binaries confirm: "shared" (prog1 NEEDs it: a shared library of prog1, its
# sources are not prog1's) or "static" (an archive of exactly a.o and b.o: prog1's sources are
# prog1.c and the library's).  Fails after checking every product.
HOME="$T/home"
export HOME
mkdir -p "$HOME"
P="$T/p"

project_sources() {
    mkdir -p "$1/lib"
    cat > "$1/lib/foo.h" <<'C'
/* SPDX-License-Identifier: MIT */
#ifndef FOO_H
#define FOO_H
int foo_a(int);
int foo_b(int);
#endif
C
    cat > "$1/lib/a.c" <<'C'
/* SPDX-License-Identifier: MIT */
#include "config.h"
#include "foo.h"
int foo_a(int x)
{
#ifdef HAVE_STRLCPY
    return x + 1;
#else
    return x + 2;
#endif
}
C
    cat > "$1/lib/b.c" <<'C'
/* SPDX-License-Identifier: BSD-2-Clause */
#include "config.h"
#include "foo.h"
int foo_b(int x)
{
#ifdef HAVE_MEMFD_CREATE
    return x * 2;
#else
    return x * 3;
#endif
}
C
    cat > "$1/prog1.c" <<'C'
/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"
#include "lib/foo.h"
int main(void) { return foo_a(1) + foo_b(2) > 100; }
C
    cat > "$1/prog2.c" <<'C'
/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include <stdio.h>
int main(void)
{
#ifdef HAVE_STRLCPY
    puts("strlcpy");
#endif
    return 0;
}
C
}

project_trace() {
    _pt_system=
    [ "$(id -u)" = 0 ] && _pt_system=--system
    DB="$T/$1.db"
    (cd "$P" && bt run $_pt_system -o "$DB" -- sh -c "$2") > "$T/$1.log" 2>&1 ||
        fail "the $1 build failed: $(tail -n 20 "$T/$1.log")"
}

check_product() {
    python3 - "$BUILDTRAIL" "$DB" "$T" "$@" <<'PY' || fail "$1: see above"
import fnmatch, json, re, subprocess, sys

bt, db, top, product = sys.argv[1:5]
want_sources, want_headers, want_built_headers, want_shlibs, want_copies = (
    set(a.split()) for a in (sys.argv[5:10] + [""])[:5])
# What configure steps compile or read to probe the toolchain: never code of a product.
PROBE = re.compile(r"meson-private/|/testfile\.c|sanitycheck|CMakeFiles/CMake(Scratch|Tmp)/|"
                   r"CMakeC?CompilerABI|CMakeCCompilerId|CheckFunctionExists\.c|/usr/share/cmake|"
                   r"/usr/share/meson|conftest")
failures = []

def query(*args, status=(0,)):
    r = subprocess.run([bt, *args, "-d", db, product], capture_output=True, text=True)
    if r.returncode not in status:
        sys.exit(f"FAIL: {product}: buildtrail {' '.join(args)} exited {r.returncode}: {r.stderr.strip()}")
    return r

def under_top(p):
    return p.startswith(top + "/")

def short(paths):  # the messages name files under $T relative to it
    return "[" + ", ".join(p[len(top) + 1:] if under_top(p) else p for p in sorted(paths)) + "]"

def same(what, got, want):
    if got != want:
        failures.append(f"{what}: expected {short(want)}, got {short(got)}"
                        f" (extra {short(got - want)}, missing {short(want - got)})")

# inputs --json: the whole closure.
nodes = json.loads(query("inputs", "--json").stdout)["inputs"]
def paths(role, keep):
    return {n["path"] for n in nodes if n["role"] == role and keep(n)}
same("compiled sources (found)", paths("source", lambda n: n["origin"] == "found"), want_sources)
same("included headers under $T (found)",
     paths("header", lambda n: n["origin"] == "found" and under_top(n["path"])), want_headers)
same("included headers under $T (built)",
     paths("header", lambda n: n["origin"] != "found" and under_top(n["path"])), want_built_headers)
same("shared libraries under $T", paths("shlib", lambda n: under_top(n["path"])), want_shlibs)
same("copied under $T (found)", paths("copy", lambda n: n["origin"] == "found" and under_top(n["path"])),
     want_copies)
probes = {n["path"] for n in nodes if n["role"] in ("source", "header", "object") and PROBE.search(n["path"])}
if probes:
    failures.append(f"configure probes as compiled sources, headers or objects: {short(probes)}")
expected = want_sources | want_headers | want_built_headers | want_shlibs | want_copies
guessed = sorted(n["path"] for n in nodes if n["path"] in expected and n.get("guess") is True)
if guessed:
    failures.append(f"exact inputs labelled guesses: {short(guessed)}")

# inputs --roles, with and without --leaves: the same sets in the text.
def sections(text):
    out, title = {}, None
    for line in text.splitlines():
        m = re.match(r"^  (\S.*) \(\d+\):$", line)
        if m:
            title = m.group(1)
            out[title] = set()
            continue
        m = re.match(r"^    (\w+)\s+(\S+)", line)
        if m and title:
            out[title].add((m.group(1), m.group(2)))
    return out
full = sections(query("inputs", "--roles").stdout)
leaves = sections(query("inputs", "--leaves", "--roles").stdout)
def listed(secs, title, keep=lambda o, p: True):
    return {p for o, p in secs.get(title, set()) if keep(o, p)}
same("text, --leaves: compiled sources", listed(leaves, "compiled sources"), want_sources)
same("text, --leaves: included headers under $T",
     listed(leaves, "included headers", lambda o, p: under_top(p)), want_headers)
same("text: built included headers under $T",
     listed(full, "included headers", lambda o, p: o == "built" and under_top(p)), want_built_headers)
leaf_paths = {p for s in leaves.values() for o, p in s}
if leaf_paths & want_built_headers:
    failures.append(f"text, --leaves: built headers listed as leaves: {short(leaf_paths & want_built_headers)}")
same("text: shared libraries under $T",
     listed(full, "shared libraries", lambda o, p: under_top(p)), want_shlibs)

# licenses: the incorporated files, the roll-up from their SPDX tags, --deny.
declared = {}
for f in want_sources | want_headers | want_copies:
    m = re.search(r"SPDX-License-Identifier:\s*(\S+)", open(f).read())
    if m:  # (a configure template, config.h.in, has no license of its own)
        declared[f] = m.group(1)
lic = json.loads(query("licenses", "--json").stdout)
incorporated = {f["path"] for f in lic["files"] if f["category"] == "incorporated"}
same("licenses: incorporated files", incorporated - want_built_headers,
     want_sources | want_headers | want_copies)
probes = {p for p in incorporated if PROBE.search(p)}
if probes:
    failures.append(f"licenses: configure probes incorporated: {short(probes)}")
same("licenses: roll-up terms", set((lic["rollup"] or "NOASSERTION").split(" AND ")),
     set(declared.values()))
same("licenses: dynamic libraries under $T",
     {f["path"] for f in lic["files"] if f["category"] == "dynamic" and under_top(f["path"])}, want_shlibs)
for pattern in ("GPL-*", "Apache-*"):
    want = 1 if any(fnmatch.fnmatchcase(l, pattern) for l in declared.values()) else 0
    got = query("licenses", "--deny", pattern, status=(0, 1)).returncode
    if got != want:
        failures.append(f"licenses --deny '{pattern}': expected exit {want}, got {got}")

if failures:
    print(f"FAIL: {product} (paths relative to {top}):", file=sys.stderr)
    for f in failures:
        print(f"  {f}", file=sys.stderr)
    sys.exit(1)
print(f"ok {product}: {len(want_sources)} sources")
PY
}

check_project() {
    _cp_link=$1 _cp_lib=$2 _cp_prog1=$3 _cp_prog2=$4 _cp_dest=$5 _cp_config=$6 _cp_template=${7:-}
    _cp_ilib="$_cp_dest/lib/$(basename "$_cp_lib")"
    for _cp_f in "$_cp_lib" "$_cp_prog1" "$_cp_prog2" "$_cp_ilib" "$_cp_dest/bin/prog1" "$_cp_dest/bin/prog2" \
                 "$_cp_dest/include/foo.h" "$_cp_config"; do
        [ -f "$_cp_f" ] || fail "the build did not make $_cp_f"
    done
    # The ground truth in the binaries themselves.
    require_cmd readelf
    readelf -d "$_cp_prog2" | grep -q 'NEEDED.*libfoo' && fail "prog2 links libfoo: $(readelf -d "$_cp_prog2")"
    _cp_lib_sources="$P/lib/a.c $P/lib/b.c"
    if [ "$_cp_link" = shared ]; then
        readelf -d "$_cp_prog1" | grep -q 'NEEDED.*libfoo\.so\.1' || fail "prog1 does not NEED libfoo.so.1"
        _cp_prog1_sources="$P/prog1.c" _cp_prog1_shlibs=$_cp_lib
    else
        require_cmd ar
        assert_eq "$(ar t "$_cp_lib" | sort | tr '\n' ' ')" "a.o b.o " "the members of $_cp_lib"
        readelf -d "$_cp_prog1" | grep -q 'NEEDED.*libfoo' && fail "prog1 links libfoo dynamically"
        _cp_prog1_sources="$P/prog1.c $_cp_lib_sources" _cp_prog1_shlibs=
    fi
    _cp_st=0
    for _cp_f in "$_cp_lib" "$_cp_ilib"; do
        (check_product "$_cp_f" "$_cp_lib_sources" "$P/lib/foo.h $_cp_template" "$_cp_config" "") || _cp_st=1
    done
    for _cp_f in "$_cp_prog1" "$_cp_dest/bin/prog1"; do
        (check_product "$_cp_f" "$_cp_prog1_sources" "$P/lib/foo.h $_cp_template" "$_cp_config" "$_cp_prog1_shlibs") || _cp_st=1
    done
    for _cp_f in "$_cp_prog2" "$_cp_dest/bin/prog2"; do
        (check_product "$_cp_f" "$P/prog2.c" "$_cp_template" "$_cp_config" "") || _cp_st=1
    done
    # The installed header is a copy of lib/foo.h and nothing else (no config.h, no source).
    (check_product "$_cp_dest/include/foo.h" "" "" "" "" "$P/lib/foo.h") || _cp_st=1
    [ "$_cp_st" = 0 ] || fail "closures differ from the build files (above)"
}
