#!/usr/bin/env bash
# The "policy-ja" corpus: the Debian Policy Manual as packaged in Japanese (Debian package
# debian-policy-ja 4.6.2.0, the Policy's own licence: GPL-2.0+), its chapter and appendix pages
# (Sphinx HTML). Only three chapters are translated; the rest is English, so most questions
# asked in Japanese are answered by English text. A development set built in the twenty-ninth
# session: questions in a user's own words rather than the manual's.
#   usage: fetch_policy_ja.sh DEST
set -euo pipefail
dest="${1:?usage: $0 DEST}"
deb=debian-policy-ja_4.6.2.0_all.deb
sha=0e1718a5b473f3d7a8f3ab4e616f4d2140d6d7d46f3b6e30bb6fddbd8948d4ef
if [ -f "$dest.fetched" ] && [ "$(cat "$dest.fetched")" = "$deb $sha" ] && [ -d "$dest" ]; then
  echo "up to date: $dest"; exit 0
fi
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT; chmod 755 "$tmp"
if ! (cd "$tmp" && apt-get download -q debian-policy-ja=4.6.2.0 >&2 2>/dev/null); then
  apt-get update -qq >&2
  (cd "$tmp" && apt-get download -q debian-policy-ja=4.6.2.0 >&2)
fi
echo "$sha  $tmp/$deb" | sha256sum -c --quiet -
dpkg-deb -x "$tmp/$deb" "$tmp/x"
rm -rf "$dest"; mkdir -p "$dest"
cp "$tmp"/x/usr/share/doc/debian-policy/ja/policy.html/{ch,ap}-*.html "$dest"/
echo "$deb $sha" > "$dest.fetched"
echo "fetched debian-policy-ja 4.6.2.0 -> $dest ($(ls "$dest" | wc -l) files)"
