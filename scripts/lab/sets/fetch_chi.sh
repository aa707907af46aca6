#!/usr/bin/env bash
# The "chi" code corpus (issue 82's behaviour questions): github go-chi/chi at 735ae2b87f8c.
#   usage: fetch_chi.sh DEST
exec bash "$(dirname "$0")/fetch_git_mirror.sh" go-chi+chi 735ae2b87f8c733d616e809ae86e0985c1bc3350 "${1:?usage: $0 DEST}" 
