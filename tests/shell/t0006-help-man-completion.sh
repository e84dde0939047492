#!/bin/sh
# One style of help and its man pages: every command's --help fits 80 columns, lists -h,
# --help and an "Exit status:" section; `buildtrail help CMD` is CMD --help.  `cmake --install`
# puts the binary, buildtrail(1) and one buildtrail-CMD(1) per command (each rendered by man
# without a warning), the completions and the docs in place (GNUInstallDirs); the bash, zsh
# and fish completions load in their shells and complete commands, options, export formats
# and trace files.
. "$(dirname "$0")/lib.sh"
commands=$(bt --help | awk '/^Commands:$/ { on = 1; next } on && /^$/ { exit } on { print $1 }')
[ "$(printf '%s\n' "$commands" | wc -l)" -ge 15 ] || fail "the command list: $commands"
for c in $commands; do
    h=$(bt "$c" --help) || fail "$c --help failed"
    printf '%s\n' "$h" | awk -v c="$c" 'length($0) > 80 { print c ": " length($0) ": " $0; bad = 1 } END { exit bad }' ||
        fail "$c --help is wider than 80 columns"
    assert_contains "$h" "  -h, --help            print this help" "$c lists -h, --help"
    assert_contains "$h" "Exit status:" "$c says its exit statuses"
    [ "$(bt help "$c")" = "$h" ] || fail "help $c differs from $c --help"
done
set +e; bt help no-such-command > /dev/null 2>&1; st=$?; set -e
[ "$st" = 2 ] || fail "help no-such-command: exit $st"

# The install needs the build tree, which only the invoking user's variant is given.
if [ -z "${BUILD_DIR:-}" ] || [ ! -r "$BUILD_DIR/CMakeCache.txt" ]; then
    echo "# the install is checked by the variant that can read the build tree"
    exit 0
fi
cmake --install "$BUILD_DIR" --prefix "$T/inst" > "$T/install.log" 2>&1 || fail "cmake --install: $(tail -3 "$T/install.log")"
[ -x "$T/inst/bin/buildtrail" ] || fail "no binary installed"
for f in share/bash-completion/completions/buildtrail share/zsh/vendor-completions/_buildtrail \
         share/fish/vendor_completions.d/buildtrail.fish share/doc/buildtrail/README.md \
         share/doc/buildtrail/json.md share/man/man1/buildtrail.1; do
    [ -s "$T/inst/$f" ] || fail "not installed: $f"
done
# Every document the installed README points to is installed beside it.
for d in $(grep -o '[a-z]*\.md' "$T/inst/share/doc/buildtrail/README.md" | sort -u); do
    [ -s "$T/inst/share/doc/buildtrail/$d" ] || fail "the README points to $d, which is not installed"
done
for c in $commands; do
    [ -s "$T/inst/share/man/man1/buildtrail-$c.1" ] || fail "no man page for $c"
done
if command -v man > /dev/null; then
    for page in "$T"/inst/share/man/man1/*.1; do
        out=$(MANWIDTH=80 man --warnings -l "$page" 2> "$T/man.err") || fail "man -l $page failed: $(cat "$T/man.err")"
        [ ! -s "$T/man.err" ] || fail "man warns on $(basename "$page"): $(cat "$T/man.err")"
        printf '%s\n' "$out" | grep -q "^EXIT STATUS" || fail "$(basename "$page") has no EXIT STATUS"
    done
    MANWIDTH=80 man -l "$T/inst/share/man/man1/buildtrail-run.1" | grep -q -- "--output-mode" || fail "run's options in its page"
else
    missing_part "man (apt-get install man-db)"
fi

PATH="$T/inst/bin:$PATH"; export PATH
mkdir "$T/c" && cd "$T/c" && touch a.db b.txt
bash -c '
. "$1/share/bash-completion/completions/buildtrail"
comp() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); _buildtrail; printf "%s\n" "${COMPREPLY[@]}"; }
comp buildtrail exp | grep -qx export || { echo "command"; exit 1; }
comp buildtrail export --format sp | grep -qx spdx3 || { echo "format"; exit 1; }
comp buildtrail tree --fu | grep -qx -- --full || { echo "option"; exit 1; }
comp buildtrail tree -d "" | grep -qx a.db || { echo "trace file"; exit 1; }
comp buildtrail tree -d "" | grep -qx b.txt && { echo "not a trace"; exit 1; }
comp buildtrail help do | grep -qx doctor || { echo "help COMMAND"; exit 1; }
comp buildtrail run --vary all,-file | grep -qx all,-fileordering || { echo "run --vary LIST"; exit 1; }
comp buildtrail run --vary-control u | grep -qx user_group || { echo "run --vary-control LIST"; exit 1; }
comp buildtrail run --vary-control all --vary u | grep -qx user_group || { echo "run --vary-control LIST --vary LIST"; exit 1; }
comp buildtrail run --vary all --qu | grep -qx -- --quiet || { echo "a LIST taken for the command"; exit 1; }
exit 0' sh "$T/inst" > "$T/bash.out" 2>&1 || fail "bash completion: $(cat "$T/bash.out")"
if command -v zsh > /dev/null; then
    zsh -n "$T/inst/share/zsh/vendor-completions/_buildtrail" || fail "zsh: syntax"
    zsh -fc 'fpath=("$1" $fpath); autoload -Uz compinit; compinit -u -d "$2"; [[ $_comps[buildtrail] == _buildtrail ]]' \
        zsh "$T/inst/share/zsh/vendor-completions" "$T/zcompdump" || fail "zsh: _buildtrail is not buildtrail's completion"
else
    missing_part "zsh (apt-get install zsh)"
fi
if command -v fish > /dev/null; then
    out=$(HOME="$T" fish -c "source '$T/inst/share/fish/vendor_completions.d/buildtrail.fish'; complete -C 'buildtrail exp'; complete -C 'buildtrail export --format sp'; complete -C 'buildtrail run --vary all,-file'") ||
        fail "fish: $out"
    printf '%s\n' "$out" | grep -q '^export' || fail "fish: command: $out"
    printf '%s\n' "$out" | grep -qx 'spdx3' || fail "fish: format: $out"
    printf '%s\n' "$out" | grep -qx 'all,-fileordering' || fail "fish: run --vary LIST: $out"
else
    missing_part "fish (apt-get install fish)"
fi
cd "$T"
