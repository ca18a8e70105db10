#!/usr/bin/env bash
# Writes a program's manual page (section 1, gzip -9n) from its --help with help2man, and, for a program with
# subcommands, each subcommand's --help as a section of its own, so the page documents every option.
# Usage: man-page.sh OUTPUT.1.gz PROGRAM VERSION "one-line description" [SUBCOMMAND...]
set -euo pipefail
out=$1 program=$2 version=$3 name=$4
shift 4
# help2man prints the usage line with the name it ran, so run the program by its bare name from PATH.
export PATH="$(dirname "$program"):$PATH"
export QT_QPA_PLATFORM=offscreen # the desktop app answers --help without a display
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(date -d "$(dpkg-parsechangelog -l "$(dirname "$0")/changelog" -S Date 2>/dev/null || date -R)" +%s)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
include=()
if (($# > 0)); then
    {
        echo "[SUBCOMMANDS]"
        for sub in "$@"; do
            echo ".SS $sub"
            echo ".nf"
            # roff: a backslash is \e, and a line starting with . or ' needs \& before it.
            "$program" "$sub" --help | sed -e 's/\\/\\e/g' -e "s/^\([.']\)/\\\\\&\1/"
            echo ".fi"
        done
    } >"$tmp/subcommands.h2m"
    include=(--include "$tmp/subcommands.h2m")
fi
help2man --locale=C.UTF-8 --no-info --section=1 --version-string="$version" --name="$name" "${include[@]}" \
    --output="$tmp/page.1" "$(basename "$program")"
gzip -9n <"$tmp/page.1" >"$out"
