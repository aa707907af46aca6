#!/usr/bin/env bash
# The "debref-ja" corpus: Debian Reference in Japanese (Debian package debian-reference-ja 2.100,
# GPL-2.0+ / Expat), its HTML chapters as shipped (the raw HTML, so the HTML chunker is what is
# measured).   usage: fetch_debian_reference_ja.sh DEST
set -euo pipefail
. "$(dirname "$0")/deb_package.sh"
deb_fetch "${1:?usage: $0 DEST}" debian-reference-ja 2.100 \
  f67140e0b994409413bd5fcc8dfcce832445c99d724401f0275fa238daf30325
tree=fc504fab697511393d6d579d365e8d207222b9a82a4f9cc659ac02986ae56414
cp "$deb_root"/usr/share/debian-reference/*.ja.html "$dest"/
got="$(cd "$dest" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)"
[ "$got" = "$tree" ] || { echo "HTML tree digest $got != $tree: ground-truth lines may be off" >&2; exit 3; }
deb_done
