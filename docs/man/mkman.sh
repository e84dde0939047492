#!/bin/sh
# mkman.sh BUILDTRAIL OUTDIR VERSION DATE — write the man pages, buildtrail(1) and one
# buildtrail-COMMAND(1) per command, from the binary's own --help texts: one source for both,
# so they cannot drift.  Run by the build (CMake target `man`); needs only sh and awk.
#
# The help texts follow one shape (query/cmd/driver.c print_help, launcher/run.c usage,
# launcher/doctor.c): a "Usage:" line; paragraphs (lines indented by two or more spaces are
# kept as they are); "Options:" with one "  -x, --long ARG   what" per option, continued at
# column 25; "Exit status:" to the end.  buildtrail(1) adds the command list, the
# environment and the files, which only the main page has.
set -eu
bt=$1 out=$2 version=$3 date=$4
mkdir -p "$out"

# help2roff NAME SUMMARY: the --help text on stdin, a page on stdout.
help2roff() {
    awk -v name="$1" -v summary="$2" -v version="$version" -v date="$date" '
    function esc(s) {
        gsub(/\\/, "\\e", s)
        gsub(/-/, "\\-", s)
        if (s ~ /^[.\047]/) s = "\\&" s
        return s
    }
    function flush_opt() {
        if (opt != "") { print ".TP"; print ".B " esc(opt); print esc(desc); opt = ""; desc = "" }
    }
    BEGIN {
        up = toupper(name)
        printf ".TH %s 1 \"%s\" \"buildtrail %s\" \"User Commands\"\n", up, date, version
        print ".SH NAME"
        print esc(name) " \\- " esc(summary)
        section = ""
    }
    NR == 1 && /^Usage: / {
        sub(/^Usage: /, "")
        print ".SH SYNOPSIS"
        print ".nf"
        print esc($0)
        print ".fi"
        print ".SH DESCRIPTION"
        section = "desc"
        next
    }
    /^Options:$/ { section = "opts"; print ".SH OPTIONS"; next }
    /^Exit status:/ {
        flush_opt()
        section = "exit"
        print ".SH EXIT STATUS"
        sub(/^Exit status: */, "")
    }
    /^[A-Z][A-Za-z ]*:$/ && section == "desc" {
        print ".SS " esc(substr($0, 1, length($0) - 1))
        next
    }
    section == "opts" {
        if ($0 ~ /^ *$/) { flush_opt(); next }
        if ($0 ~ /^  +-/ && $0 !~ /^                        /) {
            flush_opt()
            line = $0
            sub(/^ +/, "", line)
            # the option and its argument, then two or more spaces, then what it does
            if (match(line, /   */) && RSTART > 0) {
                opt = substr(line, 1, RSTART - 1)
                desc = substr(line, RSTART + RLENGTH)
            } else {
                opt = line
                desc = ""
            }
            next
        }
        line = $0
        sub(/^ +/, "", line)
        desc = desc (desc == "" ? "" : "\n") line
        next
    }
    {
        if ($0 ~ /^ *$/) { if (pre) { print ".fi"; pre = 0 } print ".PP"; next }
        if ($0 ~ /^  /) { if (!pre) { print ".nf"; pre = 1 } print esc($0); next }
        if (pre) { print ".fi"; pre = 0 }
        print esc($0)
    }
    END {
        flush_opt()
        if (pre) print ".fi"
        if (name != "buildtrail") {
            print ".SH SEE ALSO"
            print ".BR buildtrail (1)"
        }
    }'
}

# The commands and their one-line summaries, from the main help.
commands=$("$bt" --help | awk '/^Commands:$/ { on = 1; next } on && /^$/ { exit } on { print }')

{
    "$bt" --help | awk '/^Commands:$/ { skip = 1; next } skip && /^$/ { skip = 0; next } !skip'
} | help2roff buildtrail "trace a build exactly and answer questions about it" > "$out/buildtrail.1"
{
    echo ".SH COMMANDS"
    printf '%s\n' "$commands" | while read -r cmd summary; do
        printf '.TP\n.B %s\n%s; see\n.BR buildtrail\\-%s (1).\n' "$cmd" "$summary" "$cmd"
    done
    cat <<'ROFF'
.SH ENVIRONMENT
.TP
.B BUILDTRAIL_DB
the trace a query reads when \-d is not given (else the nearest buildtrail.db in the
current directory or above it, if it and its directory are yours or root's)
.TP
.B BUILDTRAIL_SAFE_DIRS
directories, separated by ':', whose buildtrail.db a query finds and reads whoever owns
it (and the directory); '*' for every directory
.TP
.B BUILDTRAIL_PAGER, PAGER
the pager for answers on a terminal (default: less, with LESS=FRX when LESS is unset);
empty or "cat" for none
.TP
.B TMPDIR
where a run keeps its private directory
.TP
.B XDG_CONFIG_HOME
where export finds buildtrail/compilers (default ~/.config)
.SH FILES
.TP
.I buildtrail.db
the trace a run writes in the current directory (\-o to choose another)
.TP
.I ~/.config/buildtrail/compilers
more compiler names for export \-\-format compile\-commands, one glob per line
.SH SEE ALSO
.BR strace (1),
.BR bear (1),
.BR fuse (8)
ROFF
} >> "$out/buildtrail.1"

printf '%s\n' "$commands" | while read -r cmd summary; do
    "$bt" "$cmd" --help | help2roff "buildtrail-$cmd" "$summary" > "$out/buildtrail-$cmd.1"
done
