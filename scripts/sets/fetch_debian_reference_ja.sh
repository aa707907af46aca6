#!/usr/bin/env bash
# The "debref-ja" corpus: Debian Reference in Japanese (Debian package debian-reference-ja 2.100,
# GPL-2.0+ / Expat), its HTML chapters as shipped (the raw HTML, so the HTML chunker is what is
# measured).   usage: fetch_debian_reference_ja.sh DEST
set -euo pipefail
dest="${1:?usage: $0 DEST}"
deb=debian-reference-ja_2.100_all.deb
sha=f67140e0b994409413bd5fcc8dfcce832445c99d724401f0275fa238daf30325
tree=fc504fab697511393d6d579d365e8d207222b9a82a4f9cc659ac02986ae56414
if [ -f "$dest.fetched" ] && [ "$(cat "$dest.fetched")" = "$deb $sha" ] && [ -d "$dest" ]; then
  echo "up to date: $dest"; exit 0
fi
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT; chmod 755 "$tmp"
if ! (cd "$tmp" && apt-get download -q debian-reference-ja=2.100 >&2 2>/dev/null); then
  apt-get update -qq >&2
  (cd "$tmp" && apt-get download -q debian-reference-ja=2.100 >&2)
fi
echo "$sha  $tmp/$deb" | sha256sum -c --quiet -
dpkg-deb -x "$tmp/$deb" "$tmp/x"
rm -rf "$dest"; mkdir -p "$dest"
cp "$tmp"/x/usr/share/debian-reference/*.ja.html "$dest"/
got="$(cd "$dest" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)"
[ "$got" = "$tree" ] || { echo "HTML tree digest $got != $tree: ground-truth lines may be off" >&2; exit 3; }
echo "$deb $sha" > "$dest.fetched"
echo "fetched debian-reference-ja 2.100 -> $dest ($(ls "$dest" | wc -l) files)"
