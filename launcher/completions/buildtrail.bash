# bash completion for buildtrail: commands, each command's options, export formats, trace
# files.  Everything is read from the installed binary's own --help, so it cannot drift.
_buildtrail_commands() {
    buildtrail --help 2>/dev/null | awk '/^Commands:$/ { on = 1; next } on && /^$/ { exit } on { print $1 }'
    echo help
}

_buildtrail_options() { # _buildtrail_options COMMAND
    buildtrail "$1" --help 2>/dev/null | grep -oE '(^|[ ,])--?[A-Za-z][A-Za-z-]*' | tr -d ' ,' | sort -u
}

_buildtrail_formats() {
    buildtrail export --help 2>/dev/null | awk '/^Formats:$/ { on = 1; next } on && /^$/ { exit } on && /^  [a-z]/ { print $1 }'
}

_buildtrail_variations() { # the names run --vary takes, from its one line on a bad LIST
    buildtrail run --vary '' -- true 2>&1 | sed -n 's/.*list of \(.*\) (-NAME.*/\1/p' | tr -d ','
}

_buildtrail_store_subcommands() {
    buildtrail store --help 2>/dev/null | awk '/^Subcommands:$/ { on = 1; next } on && /^$/ { exit } on && /^  [a-z]/ { print $1 }'
}

_buildtrail() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd=${COMP_WORDS[1]-} i
    COMPREPLY=()
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "$(_buildtrail_commands) --help --version" -- "$cur"))
        return
    fi
    if [ "$cmd" = help ]; then
        [ "$COMP_CWORD" -eq 2 ] && COMPREPLY=($(compgen -W "$(_buildtrail_commands)" -- "$cur"))
        return
    fi
    if [ "$cmd" = store ] && [ "$COMP_CWORD" -eq 2 ]; then
        COMPREPLY=($(compgen -W "$(_buildtrail_store_subcommands) --help" -- "$cur"))
        return
    fi
    if [ "$cmd" = run ]; then # after the command to run: that command's own words
        for ((i = 2; i < COMP_CWORD; i++)); do
            if [ "${COMP_WORDS[i]}" = -- ] || [[ ${COMP_WORDS[i]} != -* && ${COMP_WORDS[i-1]} != -o && ${COMP_WORDS[i-1]} != --output && ${COMP_WORDS[i-1]} != --trace && ${COMP_WORDS[i-1]} != --env-redact && ${COMP_WORDS[i-1]} != --hash-limit && ${COMP_WORDS[i-1]} != --output-mode && ${COMP_WORDS[i-1]} != --vary && ${COMP_WORDS[i-1]} != --vary-control ]]; then
                if [ "$i" -eq $((COMP_CWORD - 1)) ] && [ "${COMP_WORDS[i]}" = -- ]; then
                    COMPREPLY=($(compgen -c -- "$cur"))
                else
                    COMPREPLY=($(compgen -f -- "$cur"))
                fi
                return
            fi
        done
    fi
    case $prev in
    -d|--db)
        COMPREPLY=($(compgen -f -X '!*.db' -- "$cur") $(compgen -d -- "$cur"))
        return ;;
    -o|--output|--build-depends|--inputs|--corresponding-source|--admindir|--trace|--root|--known)
        COMPREPLY=($(compgen -f -- "$cur"))
        return ;;
    --vary|--vary-control) # LIST: the word after its last comma, and its sign
        local head=${cur%,*} last=${cur##*,} sign=
        if [ "$head" = "$cur" ]; then head=; else head=$head,; fi
        case $last in [-+]*) sign=${last:0:1}; last=${last:1} ;; esac
        COMPREPLY=($(compgen -P "$head$sign" -W "$(_buildtrail_variations)" -- "$last"))
        return ;;
    -f|--format)
        [ "$cmd" = export ] && COMPREPLY=($(compgen -W "$(_buildtrail_formats)" -- "$cur"))
        return ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_buildtrail_options "$cmd")" -- "$cur"))
        return
    fi
    COMPREPLY=($(compgen -f -- "$cur"))
}
complete -o filenames -F _buildtrail buildtrail
