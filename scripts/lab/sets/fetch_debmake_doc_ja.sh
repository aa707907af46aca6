#!/usr/bin/env bash
# The "debmake-ja" corpus: the Guide for Debian Maintainers (debmake-doc 1.17-7, MIT/Expat) as
# packaged in Japanese, its DocBook HTML chapters 1-8 (the table of contents, preface and
# appendix left out). Only some of it is translated: most paragraphs are English under Japanese
# or English headings, as a half-translated manual is.
# Held out: built in the thirty-third session and never used to choose a rule or a constant.
#   usage: fetch_debmake_doc_ja.sh DEST
set -euo pipefail
. "$(dirname "$0")/deb_package.sh"
deb_fetch "${1:?usage: $0 DEST}" debmake-doc 1.17-7 \
  f562cf744d906b9255c60d659873609ed5f40d657d99c4a6f3f5c194c24507cf
for n in 1 2 3 4 5 6 7 8; do
  cp "$deb_root/usr/share/doc/debmake-doc/html/ch0$n.ja.html" "$dest/"
done
deb_done
