#!/usr/bin/env bash
# The "aptitude-ja" corpus: the aptitude user's manual in Japanese (Debian package aptitude-doc-ja
# 0.8.13-5, GPL-2.0+), its DocBook HTML pages as shipped. A development set built in the
# twenty-eighth session: its questions are written as a user would ask them, in words of their
# own rather than the manual's (paraphrase), so it may be used to choose rules and constants.
#   usage: fetch_aptitude_ja.sh DEST
set -euo pipefail
. "$(dirname "$0")/deb_package.sh"
deb_fetch "${1:?usage: $0 DEST}" aptitude-doc-ja 0.8.13-5 \
  070ec003bdad1d3074c7cb012b0003f7379d7dce636f342705be4e2231072b45
cp "$deb_root"/usr/share/doc/aptitude/html/ja/*.html "$dest"/
deb_done
