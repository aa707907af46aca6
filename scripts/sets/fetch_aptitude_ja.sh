#!/usr/bin/env bash
# The "aptitude-ja" corpus: the aptitude user's manual in Japanese (Debian package aptitude-doc-ja
# 0.8.13-5, GPL-2.0+), its DocBook HTML pages as shipped. A development set built in the
# twenty-eighth session: its questions are written as a user would ask them, in words of their
# own rather than the manual's (paraphrase), so it may be used to choose rules and constants.
#   usage: fetch_aptitude_ja.sh DEST
set -euo pipefail
dest="${1:?usage: $0 DEST}"
deb=aptitude-doc-ja_0.8.13-5_all.deb
sha=070ec003bdad1d3074c7cb012b0003f7379d7dce636f342705be4e2231072b45
if [ -f "$dest.fetched" ] && [ "$(cat "$dest.fetched")" = "$deb $sha" ] && [ -d "$dest" ]; then
  echo "up to date: $dest"; exit 0
fi
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT; chmod 755 "$tmp"
if ! (cd "$tmp" && apt-get download -q aptitude-doc-ja=0.8.13-5 >&2 2>/dev/null); then
  apt-get update -qq >&2
  (cd "$tmp" && apt-get download -q aptitude-doc-ja=0.8.13-5 >&2)
fi
echo "$sha  $tmp/$deb" | sha256sum -c --quiet -
dpkg-deb -x "$tmp/$deb" "$tmp/x"
rm -rf "$dest"; mkdir -p "$dest"
cp "$tmp"/x/usr/share/doc/aptitude/html/ja/*.html "$dest"/
echo "$deb $sha" > "$dest.fetched"
echo "fetched aptitude-doc-ja 0.8.13-5 -> $dest ($(ls "$dest" | wc -l) files)"
