#!/usr/bin/env python3
"""sizes.py SRCDIR — the project's size limits, as a test (ctest: style/sizes).

No C source or header over 1000 lines, no function over 150 (docs/architecture.md, "How the
code is laid out"): past those a newcomer cannot hold a file or a function in mind, and #35
cut every one that had grown so.  Functions are found the way the code is written here (GNU
style as clang-format lays it out): a line that is only "{" opens a function body, the next
line that is only "}" closes it, and the name is the last "name(" before the "{".  Prints
each file or function over its limit, and exits 1 if there was any.
"""
import os
import re
import subprocess
import sys

FILE_MAX, FUNC_MAX = 1000, 150


def sources(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "*.c", "*.h"], capture_output=True,
                             text=True, check=True).stdout.split()
        return [os.path.join(root, f) for f in out]
    except (OSError, subprocess.CalledProcessError):  # not a git checkout: walk the tree
        found = []
        for d, dirs, files in os.walk(root):
            dirs[:] = [x for x in dirs if not x.startswith(("build", "."))]
            found += [os.path.join(d, f) for f in files if f.endswith((".c", ".h"))]
        return found


def functions(lines):
    i = 0
    while i < len(lines):
        if lines[i] == "{":
            j = i - 1
            while j >= 0 and "(" not in lines[j]:
                j -= 1
            m = re.findall(r"(\w+)\s*\(", lines[j]) if j >= 0 else []
            k = i + 1
            while k < len(lines) and lines[k] != "}":
                k += 1
            yield (m[0] if m else "?"), i + 1, k - i + 1
            i = k
        i += 1


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    bad = 0
    for path in sorted(sources(root)):
        with open(path, errors="replace") as f:
            lines = f.read().split("\n")
        rel = os.path.relpath(path, root)
        if len(lines) - 1 > FILE_MAX:
            print(f"{rel}: {len(lines) - 1} lines (at most {FILE_MAX}): cut it along a seam")
            bad += 1
        for name, line, n in functions(lines):
            if n > FUNC_MAX:
                print(f"{rel}:{line}: {name}() is {n} lines (at most {FUNC_MAX})")
                bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
