#!/usr/bin/env bash
# The "s2util" code corpus (issue 82's behaviour questions): github seasarorg/s2util at 3c69319d4260.
#   usage: fetch_s2util.sh DEST
exec bash "$(dirname "$0")/fetch_git_mirror.sh" seasarorg+s2util 3c69319d4260425518487b8781b11d69bcb1908c "${1:?usage: $0 DEST}" 
