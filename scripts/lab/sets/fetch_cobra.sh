#!/usr/bin/env bash
# The "cobra" code corpus (issue 82's behaviour questions): github spf13/cobra at adbc8813901b.
#   usage: fetch_cobra.sh DEST
exec bash "$(dirname "$0")/fetch_git_mirror.sh" spf13+cobra adbc8813901bba65827259daa8e22ff94ec1f30e "${1:?usage: $0 DEST}" 
