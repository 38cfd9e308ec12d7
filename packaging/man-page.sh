#!/bin/sh
# man-page.sh HELP2MAN LAUNCHRANK H2M_DIR OUT [COMMAND]: one man page, written by
# Debian's help2man from `launchrank [COMMAND] --help` (the option tables that print
# --help stay the one source of every option's and example's text). help2man names a
# page after its program, and a command's NAME line must say launchrank-COMMAND (the
# page `man launchrank COMMAND` opens) with the command's line of the Commands list in
# `launchrank --help`: this wrapper writes that NAME into an include file; the page of
# launchrank itself gets a SEE ALSO naming every command's page. Sections that --help
# does not hold come from H2M_DIR's include files: launchrank.h2m for launchrank(1),
# launchrank-command.h2m for every command, launchrank-COMMAND.h2m where it exists.
set -eu
h2m=$1 lr=$2 dir=$3 out=$4 cmd=${5-}
names=$out.h2m
top=$("$lr" --help)
if [ -n "$cmd" ]; then
    summary=$(printf '%s\n' "$top" | sed -n "s/^  $cmd  *//p")
    if [ -z "$summary" ]; then
        echo "man-page.sh: 'launchrank --help' lists no command $cmd" >&2
        exit 1
    fi
    printf '[NAME]\nlaunchrank-%s \\- %s\n' "$cmd" "$summary" >"$names"
    set -- --include "$dir/launchrank-command.h2m" --opt-include "$dir/launchrank-$cmd.h2m"
else
    # the commands: the indented words under "Commands:", up to the blank line
    printf '%s\n' "$top" | sed -n '/^Commands:$/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p' |
        sed -e 's/.*/.BR launchrank\\-& (1)/' -e '$!s/$/,/' |
        { printf '[>SEE ALSO]\n' && cat; } >"$names"
    set -- --include "$dir/launchrank.h2m"
fi
# the footer's source: "launchrank 0.1.0" (--version adds the model's version, which
# would run into the date)
source=$("$lr" --version | cut -d' ' -f1-2)
"$h2m" --no-info --section 1 --source "$source" "$@" --include "$names" \
    --help-option "${cmd:+$cmd }--help" --output "$out" "$lr"
rm -f "$names"
