#!/usr/bin/env python3
"""debpkg.py BUILDTRAIL TRACE SRC PKGDIR SPEC SCRATCH — check what a traced Debian package build says
went into every file it shipped against the ground truth SPEC, read by the test's author from
the package's Makefiles, meson.build, CMakeLists.txt and the build log's link lines; never
from buildtrail's answers.  Used by debpkg.sh's deb_check (t8005-t8009).

SPEC (JSON):
  "binaries": [{"shipped": GLOB,  a member of a .deb/.udeb (path without ./; fnmatch)
                "build": PATH,    the build-tree file it was installed from (relative to SRC;
                                  null for a file made after the build: dwz's multifile)
                "sources": [...], exactly the sources compiled into it (relative to SRC)
                "links": [...]}]  the package's own shared libraries it links (stems: "libfoo")
  "licenses": [{"shipped": GLOB, "rollup": EXPR, "deny": PATTERNS}]  (optional) the roll-up
                of `licenses` on it, and a --deny that must pass
  "system_incorporated": [...]  Debian packages whose code went in statically (Built-Using)

Checked, each as a set (a difference is reported expected against got, every one, then exit 1):
  - every ELF file or static archive shipped is in "binaries"; for the shipped file and its
    build-tree file alike: `inputs --leaves --json` compiled sources (role "source") == the
    truth, and so is the "compiled sources" group of `inputs --leaves --roles`; none of them
    a guess; no source or header outside SRC, /usr/include and /usr/lib/gcc (CMake's or
    Meson's files are not code); shared libraries (role "shlib", with and without --leaves;
    and `licenses`' "dynamic" ones) from the package's own tree == "links", the file itself
    never among them, every other one a library the link could name (its DT_NEEDED, glibc's
    and GCC's default set): never what the tools that made it loaded to run (libbfd, perl's
    XS modules, ld's LTO plugin, ar's bfd plugins);
  - `licenses`: incorporated sources == the truth, and the same roll-up for the shipped file
    as for its build-tree file;
  - a detached debug file (usr/lib/debug/.build-id/XX/YYYY.debug) has the compiled sources of
    the shipped binary with that build-id;
  - every other shipped file (headers, docs, .pc, man pages) has no compiled source but a copy
    of itself (same name: a shipped example is its original);
  - `export spdx`: valid SPDX 2.3 (with python3-jsonschema and $SCHEMAS); each .deb's
    GENERATED_FROM names exactly the compiled sources of the binaries it holds (and the
    originals of the sources it ships as such);
  - `packages`' incorporated and toolchain-runtime packages == the owners (dpkg -S) of the
    files `licenses` puts in those categories (incorporated: with its prebuilt objects) for
    the shipped binaries, and the incorporated ones == "system_incorporated": what the
    products hold, not a configure probe's a.out (libtool's "-static works" check links
    libc.a), nor an empty stub archive (glibc's libpthread.a, libdl.a, librt.a that -pthread,
    -ldl, -lrt read hold no code).
"""
import fnmatch
import hashlib
import json
import os
import re
import subprocess
import sys

BT, DB, SRC, PKGDIR = sys.argv[1], sys.argv[2], os.path.realpath(sys.argv[3]), sys.argv[4]
SPEC = json.loads(sys.argv[5])
SCRATCH = sys.argv[6]  # a directory of the test's own, for the SPDX export
problems = []
# What a link names without being told: glibc's libc.so script (libc.so.6, ld-linux's
# AS_NEEDED), GCC's libgcc_s, and the libraries -pthread, -lm, -ldl and -lrt read.
DEFAULT_LINK = {"libc", "libgcc_s", "ld-linux-x86-64", "libm", "libmvec", "libpthread", "libdl", "librt"}
CODE_DIRS = (SRC + "/", "/usr/include/", "/usr/lib/gcc/")
C_SOURCE = re.compile(r"\.(c|cc|cpp|cxx|C|S|s)$")


def problem(msg):
    problems.append(msg)
    print("FAIL: " + msg, flush=True)


def say(msg):
    print("# " + msg, flush=True)


def missing_part(what):
    if os.environ.get("CI") == "true":
        problem("missing in CI: " + what)
        return
    say("skipped: " + what)
    log = os.environ.get("BT_SKIP_LOG")
    if log:
        try:
            with open(log, "a") as f:
                f.write("%s (%s): %s\n" % (os.path.basename(SRC), os.environ.get("USER", "?"), what))
        except OSError:
            pass


def run(args):
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def rel(path):
    return path[len(SRC) + 1:] if path.startswith(SRC + "/") else path


def show(paths):
    return "{" + ", ".join(sorted(paths)) + "}"


def same_set(what, expected, got):
    expected, got = set(expected), set(got)
    if expected == got:
        return True
    problem("%s: expected %s, got %s (%d; missing %s, extra %s)" % (
        what, show(expected), show(got), len(got), show(expected - got), show(got - expected)))
    return False


def stem(path):
    base = os.path.basename(path)
    m = re.match(r"(.*?)\.so(\.|$)", base)
    return m.group(1) if m else base


_inputs = {}


def inputs(path, leaves=True):
    key = (path, leaves)
    if key not in _inputs:
        p = run([BT, "inputs", "-d", DB, "--json"] + (["--leaves"] if leaves else []) + [path])
        if p.returncode != 0:
            problem("inputs %s: exit %d: %s" % (rel(path), p.returncode, p.stderr.strip()))
            _inputs[key] = []
        else:
            _inputs[key] = json.loads(p.stdout)["inputs"]
    return _inputs[key]


_licenses = {}


def licenses(path):
    if path not in _licenses:
        p = run([BT, "licenses", "-d", DB, "--json", path])
        if p.returncode != 0:
            problem("licenses %s: exit %d: %s" % (rel(path), p.returncode, p.stderr.strip()))
            _licenses[path] = {"rollup": None, "files": []}
        else:
            _licenses[path] = json.loads(p.stdout)
    return _licenses[path]


def roles_text(path, group):
    """The paths `inputs --leaves --roles` lists under GROUP ("compiled sources")."""
    p = run([BT, "inputs", "-d", DB, "--leaves", "--roles", path])
    if p.returncode != 0:
        problem("inputs --roles %s: exit %d: %s" % (rel(path), p.returncode, p.stderr.strip()))
        return set()
    got, inside = set(), False
    for line in p.stdout.splitlines():
        m = re.match(r"^  (\S.*?) \(\d+\):$", line)
        if m:
            inside = m.group(1) == group
        elif inside and line.startswith("    "):
            m = re.search(r"\s(/\S+)", line)  # "found PATH", whatever marks come between
            if m:
                got.add(rel(m.group(1)))
    return got


def compiled(path):
    return {rel(i["path"]) for i in inputs(path) if i["role"] == "source"}


def magic(path):
    with open(path, "rb") as f:
        head = f.read(8)
    return "elf" if head[:4] == b"\x7fELF" else "ar" if head == b"!<arch>\n" else None


def readelf(path, opt):
    return run(["readelf", opt, "-W", path]).stdout


def needed(path):
    return {stem(n) for n in re.findall(r"\(NEEDED\).*\[(.*)\]", readelf(path, "-d"))}


def build_id(path):
    m = re.search(r"Build ID: ([0-9a-f]+)", readelf(path, "-n"))
    return m.group(1) if m else None


def check_binary(path, truth, kind):
    what = rel(path)
    srcs = truth["sources"]
    same_set(what + ": compiled sources", srcs, compiled(path))
    same_set(what + ": 'compiled sources' of inputs --leaves --roles", srcs, roles_text(path, "compiled sources"))
    guessed = {rel(i["path"]) for i in inputs(path) if i["role"] == "source" and i.get("guess")}
    if guessed:
        problem("%s: compiled sources reached only through an over-approximated edge: %s" % (what, show(guessed)))
    code = {i["path"] for i in inputs(path) if i["role"] in ("source", "header")}
    stray = {p for p in code if not p.startswith(CODE_DIRS)}
    if stray:
        problem("%s: sources or headers that are no code of it (build-system files): %s" % (what, show(stray)))
    check_shlibs(what, "", {i["path"] for i in inputs(path) + inputs(path, False) if i["role"] == "shlib"},
                 path, truth, kind)
    lic = licenses(path)
    same_set(what + ": incorporated sources (licenses)", srcs,
             {rel(f["path"]) for f in lic["files"] if f["category"] == "incorporated" and f["role"] == "source"})
    check_shlibs(what, " (licenses)", {f["path"] for f in lic["files"] if f["category"] == "dynamic"}, path, truth, kind)


def check_shlibs(what, by, shlibs, path, truth, kind):
    """SHLIBS, the shared libraries an answer gives for PATH: the package's own == "links", not
    PATH itself, and the others only what its link could name."""
    links = set(truth.get("links", []))
    same_set(what + ": shared libraries of the package's own" + by, links,
             {stem(p) for p in shlibs if p.startswith(SRC + "/")})
    own = stem(truth["build"] or path)
    if own not in links and any(stem(p) == own for p in shlibs):
        problem("%s: lists itself among its shared libraries%s: %s" % (what, by, show(p for p in shlibs if stem(p) == own)))
    allowed = set() if kind == "ar" else needed(path) | DEFAULT_LINK | links
    never = {p for p in shlibs if stem(p) not in allowed and stem(p) != own}
    if never:
        problem("%s: shared libraries it was never linked with%s (its DT_NEEDED: %s): %s" % (
            what, by, show(needed(path)) if kind == "elf" else "none, an archive", show(never)))


# Every regular file of every .deb and .udeb, found where debhelper put it before packing.
debs = sorted(os.path.join(PKGDIR, f) for f in os.listdir(PKGDIR) if f.endswith((".deb", ".udeb")))
members = {}  # deb -> [(member, tree path)]
for deb in debs:
    pkg = run(["dpkg-deb", "-f", deb, "Package"]).stdout.strip()
    roots = [os.path.join(SRC, "debian", pkg)]
    if pkg.endswith("-dbgsym"):
        roots.append(os.path.join(SRC, "debian", ".debhelper", pkg[:-len("-dbgsym")], "dbgsym-root"))
    members[deb] = []
    for line in run(["dpkg-deb", "-c", deb]).stdout.splitlines():
        fields = line.split(None, 5)
        if len(fields) < 6 or not fields[0].startswith("-"):
            continue
        member = fields[5][2:] if fields[5].startswith("./") else fields[5]
        tree = next((os.path.join(r, member) for r in roots if os.path.isfile(os.path.join(r, member))), None)
        if tree is None:
            problem("%s: %s is not in %s" % (os.path.basename(deb), member, " or ".join(rel(r) for r in roots)))
            continue
        members[deb].append((member, tree))
say("%d packages, %d shipped files" % (len(debs), sum(len(m) for m in members.values())))

def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


# The package's C sources by content: what a shipped copy of one (an example) was copied from.
originals = {}
for top, dirs, names in os.walk(SRC):
    dirs[:] = [d for d in dirs if not (top == SRC and d == "debian")]
    for n in names:
        if C_SOURCE.search(n) and os.path.isfile(os.path.join(top, n)):
            originals.setdefault(sha256(os.path.join(top, n)), set()).add(rel(os.path.join(top, n)))

truths = SPEC["binaries"]
matched = set()
by_build_id = {}
expected_by_deb = {}
debug_files = []
for deb in debs:
    expected_by_deb[deb] = set()
    for member, tree in members[deb]:
        kind = magic(tree)
        if kind and re.match(r"usr/lib/debug/\.build-id/../.*\.debug$", member):
            debug_files.append((deb, member, tree))
            continue
        truth = next((t for t in truths if fnmatch.fnmatch(member, t["shipped"])), None)
        if kind is None:
            if truth:
                problem("%s: not an ELF file or archive, yet the ground truth has it" % member)
            own = re.sub(r"\.gz$", "", os.path.basename(member))
            other = {s for s in compiled(tree) if os.path.basename(s) != own}
            if C_SOURCE.search(member):  # a source shipped as such (examples): its original
                expected_by_deb[deb] |= originals.get(sha256(tree), set())
            if other:
                problem("%s (%s): no program or library, yet compiled sources %s" % (
                    member, os.path.basename(deb), show(other)))
            continue
        if truth is None:
            problem("%s (%s): a shipped binary the test has no ground truth for: revise the test" % (
                member, os.path.basename(deb)))
            continue
        matched.add(truth["shipped"])
        expected_by_deb[deb] |= set(truth["sources"])
        if kind == "elf":
            bid = build_id(tree)
            if bid:
                by_build_id[bid] = truth
        check_binary(tree, truth, kind)
        if truth["build"] is None:  # made after the build: dwz's multifile
            continue
        check_binary(os.path.join(SRC, truth["build"]), truth, kind)
        if licenses(tree)["rollup"] != licenses(os.path.join(SRC, truth["build"]))["rollup"]:
            problem("%s: licenses roll-up %r, its build-tree file %s's %r" % (
                member, licenses(tree)["rollup"], truth["build"], licenses(os.path.join(SRC, truth["build"]))["rollup"]))
for t in truths:
    if t["shipped"] not in matched:
        problem("the ground truth's %s matches no shipped file: revise the test" % t["shipped"])
for deb, member, tree in debug_files:
    bid = member.split("/")[-2] + os.path.basename(member)[:-len(".debug")]
    truth = by_build_id.get(bid)
    if truth is None:
        problem("%s: the debug file of no shipped binary" % member)
        continue
    same_set("%s (debug file of %s): compiled sources" % (member, truth["shipped"]), truth["sources"], compiled(tree))
    expected_by_deb[deb] |= set(truth["sources"])

for spec in SPEC.get("licenses", []):
    trees = [tree for deb in debs for member, tree in members[deb] if fnmatch.fnmatch(member, spec["shipped"])]
    if not trees:
        problem("licenses: %s matches no shipped file" % spec["shipped"])
    for tree in trees:
        got = licenses(tree)["rollup"]
        if got != spec["rollup"]:
            problem("%s: licenses roll-up expected %r, got %r" % (rel(tree), spec["rollup"], got))
        if "deny" in spec:
            p = run([BT, "licenses", "-d", DB, "--deny", spec["deny"], tree])
            if p.returncode != 0:
                lines = p.stderr.strip().splitlines()
                problem("%s: licenses --deny '%s' exits %d: %s%s" % (rel(tree), spec["deny"], p.returncode,
                        "; ".join(lines[:2]), " (and %d more)" % (len(lines) - 2) if len(lines) > 2 else ""))

# SPDX 2.3: each .deb GENERATED_FROM the sources of what it holds.
out = os.path.join(SCRATCH, "out.spdx")
p = run([BT, "export", "-d", DB, "-f", "spdx", "-o", out])
if p.returncode != 0:
    problem("export spdx: exit %d: %s" % (p.returncode, p.stderr.strip()))
else:
    doc = json.load(open(out))
    schema = os.path.join(os.environ.get("SCHEMAS", ""), "spdx-2.3.schema.json")
    try:
        import warnings
        warnings.simplefilter("ignore", DeprecationWarning)
        from jsonschema import Draft7Validator
        have_schema = os.path.isfile(schema)
    except ImportError:
        have_schema = False
    if have_schema:
        errors = list(Draft7Validator(json.load(open(schema))).iter_errors(doc))
        if errors:
            problem("export spdx: not valid SPDX 2.3: %s" % errors[0].message[:300])
    else:
        missing_part("python3-jsonschema or the schemas in $SCHEMAS: SPDX 2.3 validation of the packages' export")
    files = {f["SPDXID"]: f for f in doc["files"]}

    def name(ref):
        n = files[ref]["fileName"]
        return os.path.join(SRC, n[2:]) if n.startswith("./") else n
    generated = {}
    for r in doc["relationships"]:
        if r["relationshipType"] == "GENERATED_FROM" and r["spdxElementId"] in files:
            generated.setdefault(name(r["spdxElementId"]), set()).add(name(r["relatedSpdxElement"]))
    for deb in debs:
        key = next((k for k in generated if os.path.realpath(k) == os.path.realpath(deb)), None)
        got = {rel(s) for s in generated.get(key, ()) if C_SOURCE.search(s)}
        if key is None and expected_by_deb[deb]:
            problem("export spdx: no GENERATED_FROM for %s" % os.path.basename(deb))
        same_set("export spdx: %s GENERATED_FROM (C sources)" % os.path.basename(deb), expected_by_deb[deb], got)

# packages and licenses agree on what of the system went in, and with the truth.
def owners(paths):
    found = set()
    for path in sorted(paths):
        for candidate in (path, re.sub(r"^/usr(/lib|/bin|/sbin)/", r"\1/", path)):
            p = run(["dpkg", "-S", candidate])
            if p.returncode == 0:
                found |= {l.split(":")[0] for l in p.stdout.splitlines() if ": " in l}
                break
        else:
            found.add("(no package: %s)" % path)
    return found


shipped = [tree for deb in debs for member, tree in members[deb]
           if magic(tree) and not member.startswith("usr/lib/debug/")]
by_category = {}
for tree in shipped:
    for f in licenses(tree)["files"]:
        if not f["path"].startswith(SRC + "/"):
            by_category.setdefault(f["category"], set()).add(f["path"])
p = run([BT, "packages", "-d", DB, "--json"])
if p.returncode != 0:
    problem("packages: exit %d: %s" % (p.returncode, p.stderr.strip()))
else:
    pk = json.loads(p.stdout)["packages"]
    incorporated = {x["package"] for x in pk if x["incorporated"]}
    # packages counts a prebuilt object or archive as code that went in; licenses lists it apart
    same_set("packages' incorporated (Built-Using candidates) against the owners of what licenses "
             "incorporated or lists as prebuilt objects",
             owners(by_category.get("incorporated", set()) | by_category.get("prebuilt-object", set())), incorporated)
    same_set("packages' incorporated (Built-Using candidates) against the build files",
             SPEC.get("system_incorporated", []), incorporated)
    same_set("packages' toolchain runtime against the owners of licenses' toolchain-runtime files",
             owners(by_category.get("toolchain-runtime", ())), {x["package"] for x in pk if x["toolchain_runtime"]})

say("%d problems" % len(problems))
sys.exit(1 if problems else 0)
