# fish completion for buildtrail: commands, each command's options, export formats, trace
# files — read from the binary's own --help, so it cannot drift.
function __buildtrail_commands
    buildtrail --help 2>/dev/null | awk '/^Commands:$/ { on = 1; next } on && /^$/ { exit } on { name = $1; $1 = ""; sub(/^ +/, ""); print name "\t" $0 }'
end

function __buildtrail_formats
    buildtrail export --help 2>/dev/null | awk '/^Formats:$/ { on = 1; next } on && /^$/ { exit } on && /^  [a-z]/ { print $1 }'
end

function __buildtrail_store_subcommands
    buildtrail store --help 2>/dev/null | awk '/^Subcommands:$/ { on = 1; next } on && /^$/ { exit } on && /^  [a-z]/ { print $1 }'
end

function __buildtrail_variations # run --vary's LIST: the names after what is typed up to its last comma and sign
    set -l head (string replace -r '[^,]*$' '' -- (commandline -ct))
    set -l sign (string match -r '^[-+]' -- (string replace -r '.*,' '' -- (commandline -ct)))
    for n in (buildtrail run --vary '' -- true 2>&1 | sed -n 's/.*list of \(.*\) (-NAME.*/\1/p' | tr -d ',' | string split ' ')
        echo "$head$sign$n"
    end
end

function __buildtrail_options
    set -l cmd (commandline -opc)[2]
    buildtrail $cmd --help 2>/dev/null | grep -oE '(^|[ ,])--?[A-Za-z][A-Za-z-]*' | tr -d ' ,' | sort -u
end

complete -c buildtrail -f
complete -c buildtrail -n __fish_use_subcommand -a '(__buildtrail_commands)'
complete -c buildtrail -n __fish_use_subcommand -a help -d 'the help of a command'
complete -c buildtrail -n '__fish_seen_subcommand_from help' -a '(__buildtrail_commands)'
complete -c buildtrail -n 'not __fish_use_subcommand; and string match -q -- "-*" (commandline -ct)' -a '(__buildtrail_options)'
complete -c buildtrail -n 'not __fish_use_subcommand' -s d -l db -r -F -d 'the trace'
complete -c buildtrail -n '__fish_seen_subcommand_from store; and test (count (commandline -opc)) -eq 2' -a '(__buildtrail_store_subcommands)'
complete -c buildtrail -n '__fish_seen_subcommand_from export' -s f -l format -x -a '(__buildtrail_formats)'
complete -c buildtrail -n '__fish_seen_subcommand_from run' -l vary -l vary-control -x -a '(__buildtrail_variations)'
complete -c buildtrail -n 'not __fish_use_subcommand; and not string match -q -- "-*" (commandline -ct)' -F
