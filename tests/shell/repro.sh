# repro.sh — sourced after lib.sh by the repro tests (t9025–t9036, t9062, issue #36): a small make
# project with one output per variation and one constant output (repro_scenario DIR), and a
# deterministic one (repro_deterministic DIR); `block TEXT ARTIFACT` cuts one artifact's part
# out of repro's text report.
#
# The scenario's outputs, each made by its own recipe (one shell each), and what varies it:
#   out/const.txt   echo hello                                 nothing
#   out/where.txt   pwd (a shell builtin)                      build_path
#   out/host.txt    hostname                                   domain_host
#   out/modes.tar   a tar of files made under the umask         umask
#   out/order.txt   the files of d/ in `ls -f` order, through a pipe into xargs cat
#                                                              fileordering
#   out/order.tar   tar of d/ (tar lists the directory itself)  fileordering
#   out/cpus.txt    nproc                                      num_cpus
#   out/tz.txt      date -d @0 +%H                             timezone
#   out/sorted.txt  sort                                       locales
#   out/libh.a      ar of h.o, compiled from h.c, which embeds the host name
#                                                              domain_host
#   out/uid.txt     id -u                                      user_group
#   out/home.txt    echo $HOME                                 home
#   out/env.txt     echo $REPROTEST_CAPTURE_ENVIRONMENT (reprotest's extra variable, unset
#                   in the control)                            environment
# kernel, exec_path, aslr and time have no output of their own.
repro_scenario() {
    mkdir -p "$1/d"
    for f in a b c d e f g h; do echo "$f" > "$1/d/$f"; done
    chmod 644 "$1"/d/*
    chmod 755 "$1/d"
    cat > "$1/Makefile" <<'MK'
TARFLAGS = --mtime=@0 --owner=0 --group=0 --numeric-owner
all: out/const.txt out/where.txt out/host.txt out/modes.tar out/order.txt out/order.tar \
     out/cpus.txt out/tz.txt out/sorted.txt out/libh.a out/uid.txt out/home.txt out/env.txt
out:
	mkdir -p out
out/const.txt: | out
	echo hello > $@
out/where.txt: | out
	pwd > $@
out/host.txt: | out
	hostname > $@
out/modes.tar: | out
	rm -rf t && mkdir t && echo x > t/x && tar --sort=name $(TARFLAGS) -cf $@ t
out/order.txt: | out
	ls -f d | grep -v '^\.' | xargs -I{} cat d/{} > $@
out/order.tar: | out
	tar $(TARFLAGS) -cf $@ d
out/cpus.txt: | out
	nproc > $@
out/tz.txt: | out
	date -d @0 +%H > $@
out/sorted.txt: | out
	printf 'a\nB\nb\nA\n' | sort > $@
h.c:
	echo "const char *h = \"$$(hostname)\";" > $@
out/libh.a: h.c | out
	cc -c h.c -o h.o && ar rcD $@ h.o
out/uid.txt: | out
	id -u > $@
out/home.txt: | out
	echo "$$HOME" > $@
out/env.txt: | out
	echo "$$REPROTEST_CAPTURE_ENVIRONMENT" > $@
MK
}

# A project that reproduces under every variation: objects without debug information, an
# archive with ar's D flag, a tar of sorted names with fixed times, owners and modes.
repro_deterministic() {
    mkdir -p "$1/src"
    printf 'int a(int x) { return x + 1; }\n' > "$1/src/a.c"
    printf 'int b(int x) { return x * 2; }\n' > "$1/src/b.c"
    cat > "$1/Makefile" <<'MK'
all: libab.a src.tar
%.o: src/%.c
	cc -O2 -c $< -o $@
libab.a: a.o b.o
	ar rcD $@ a.o b.o
src.tar: src/a.c src/b.c
	tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner --mode=go-w,u+rw -cf $@ src
MK
}

# block TEXT ARTIFACT: the lines of TEXT from "differs: ARTIFACT" to the next blank line.
block() {
    printf '%s\n' "$1" | awk -v a="$2" '$0 == "differs: " a { on = 1; print; next } on && /^$/ { exit } on { print }'
}

# repro_second_locale: fr_CH.UTF-8 compiled into $T/loc and LOCPATH set to it (as t9020), so
# that locales can be varied without touching the machine's locales; nothing when localedef
# or glibc's locale sources are missing (locales is then said as not varied).
repro_second_locale() {
    command -v localedef > /dev/null && [ -d /usr/share/i18n/locales ] || return 0
    mkdir -p "$T/loc"
    localedef -i fr_CH -f UTF-8 "$T/loc/fr_CH.UTF-8" > /dev/null 2>&1 || true
    if [ -f "$T/loc/fr_CH.UTF-8/LC_CTYPE" ]; then LOCPATH=$T/loc; export LOCPATH; fi
}
