#!/usr/bin/env bash
# The "installguide-en" corpus: the Debian GNU/Linux Installation Guide for 64-bit PC in English
# (installation-guide-amd64 20230508+deb12u1, GPL-2), its DocBook HTML section pages of chapters
# 1-8 (the chapter title pages, which only list their sections, and the appendices left out).
# Held out: built in the thirty-third session and never used to choose a rule or a constant.
#   usage: fetch_installation_guide_en.sh DEST
set -euo pipefail
. "$(dirname "$0")/deb_package.sh"
deb_fetch "${1:?usage: $0 DEST}" installation-guide-amd64 20230508+deb12u1 \
  812c43e1dc906daf671e3efe953dc023205c238e5bd5a3021ce4ca142793573a
cp "$deb_root"/usr/share/doc/installation-guide-amd64/en/ch0[1-8]s*.html "$dest/"
deb_done
