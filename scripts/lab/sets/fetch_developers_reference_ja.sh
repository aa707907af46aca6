#!/usr/bin/env bash
# The "devref-ja" corpus: Debian Developer's Reference in Japanese (Debian package
# developers-reference-ja 12.18, MIT/Expat), its Sphinx HTML chapters as shipped (the whole-book
# page, the table of contents and the search page left out: they repeat the chapters).
# Held out: built in the twenty-first session and never used to choose a rule or a constant.
#   usage: fetch_developers_reference_ja.sh DEST
set -euo pipefail
. "$(dirname "$0")/deb_package.sh"
deb_fetch "${1:?usage: $0 DEST}" developers-reference-ja 12.18 \
  fdcd6ac4ade8b3a68449c7ba881195e37f429c64b8067ee7269404d1b86fa229
for page in tools new-maintainer developer-duties resources pkgs best-pkging-practices \
            beyond-pkging l10n scope; do
  cp "$deb_root/usr/share/developers-reference/ja/$page.html" "$dest/"
done
deb_done
