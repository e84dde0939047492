#!/bin/sh
# compile-commands sees through compiler wrappers (a ccache-like script that runs the compiler
# as a child, one that execs it, a program posing as gcc like ccache's symlinks): one entry per translation unit,
# from the real compiler; several sources in one command give one entry each, with the object
# each one produced; --with-links adds the link step.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd cc
require_cmd python3
mkdir -p "$T/ws/bin" && cd "$T/ws"
for n in a b c d e; do printf 'int %s(void) { return 1; }\n' "$n" > "$n.c"; done
printf 'int a(void); int main(void) { return a(); }\n' > main.c
cat > bin/cache-cc <<'W'
#!/bin/sh
# like ccache: runs the real compiler as a child, then does its own bookkeeping
cc "$@"; st=$?; echo hit > /dev/null; exit $st
W
cat > bin/exec-cc <<'W'
#!/bin/sh
exec cc "$@"
W
# like ccache's masquerade symlinks: a program named gcc that runs the real compiler
cat > masq.c <<'W'
#include <unistd.h>
#include <sys/wait.h>
int main(int argc, char **argv) {
    pid_t p = fork();
    if (p == 0) { argv[0] = "cc"; execvp("cc", argv); _exit(127); }
    int st; waitpid(p, &st, 0); return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
W
cc -o bin/gcc masq.c
chmod +x bin/cache-cc bin/exec-cc
cat > build.sh <<'B'
set -e
./bin/cache-cc -O2 -c a.c -o a.o
./bin/exec-cc -c b.c -o b.o
./bin/gcc -c e.c -o e.o
cc -c c.c d.c
cc -c main.c -o main.o
cc -o prog main.o a.o b.o c.o d.o
B
bt run -o "$T/trace.db" -- sh build.sh
bt export -d "$T/trace.db" --format compile-commands -o "$T/cc.json"
bt export -d "$T/trace.db" --format compile-commands --with-links -o "$T/links.json"
python3 - "$T/cc.json" "$T/links.json" "$T/ws" <<'PY'
import json, sys
cc = json.load(open(sys.argv[1])); links = json.load(open(sys.argv[2])); ws = sys.argv[3]
got = sorted((e["file"][len(ws) + 1:], e["output"][len(ws) + 1:]) for e in cc)
assert got == [("a.c", "a.o"), ("b.c", "b.o"), ("c.c", "c.o"), ("d.c", "d.o"), ("e.c", "e.o"),
               ("main.c", "main.o")], got
e = [e for e in cc if e["file"].endswith("/e.c")][0]
assert "bin/gcc" not in e["arguments"][0], ("the real compiler, not the wrapper", e)
a = [e for e in cc if e["file"].endswith("/a.c")][0]
assert a["arguments"][1:] == ["-O2", "-c", "a.c", "-o", "a.o"] and a["arguments"][0].startswith("/"), a
assert all(e["directory"] == ws for e in cc)
link = [e for e in links if e["output"] == ws + "/prog"]
assert len(link) == 1 and "a.o" in link[0]["arguments"], links
assert len(links) == len(cc) + 1
PY
assert_no_leftovers
