#!/usr/bin/env bash
# The "cubby" code corpus (issue 82's behaviour questions): github seasarorg/cubby at daa57bc6631d, its cubby-project folder.
#   usage: fetch_cubby.sh DEST
exec bash "$(dirname "$0")/fetch_git_mirror.sh" seasarorg+cubby daa57bc6631db90d48b011a21f55739764dbd292 "${1:?usage: $0 DEST}" cubby-project
