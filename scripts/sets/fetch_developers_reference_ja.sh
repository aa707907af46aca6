#!/usr/bin/env bash
# The "devref-ja" corpus: Debian Developer's Reference in Japanese (Debian package
# developers-reference-ja 12.18, MIT/Expat), its Sphinx HTML chapters as shipped (the whole-book
# page, the table of contents and the search page left out: they repeat the chapters).
# Held out: built in the twenty-first session and never used to choose a rule or a constant.
#   usage: fetch_developers_reference_ja.sh DEST
set -euo pipefail
dest="${1:?usage: $0 DEST}"
deb=developers-reference-ja_12.18_all.deb
sha=fdcd6ac4ade8b3a68449c7ba881195e37f429c64b8067ee7269404d1b86fa229
if [ -f "$dest.fetched" ] && [ "$(cat "$dest.fetched")" = "$deb $sha" ] && [ -d "$dest" ]; then
  echo "up to date: $dest"; exit 0
fi
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT; chmod 755 "$tmp"
if ! (cd "$tmp" && apt-get download -q developers-reference-ja=12.18 >&2 2>/dev/null); then
  apt-get update -qq >&2
  (cd "$tmp" && apt-get download -q developers-reference-ja=12.18 >&2)
fi
echo "$sha  $tmp/$deb" | sha256sum -c --quiet -
dpkg-deb -x "$tmp/$deb" "$tmp/x"
rm -rf "$dest"; mkdir -p "$dest"
for page in tools new-maintainer developer-duties resources pkgs best-pkging-practices \
            beyond-pkging l10n scope; do
  cp "$tmp/x/usr/share/developers-reference/ja/$page.html" "$dest/"
done
echo "$deb $sha" > "$dest.fetched"
echo "fetched developers-reference-ja 12.18 -> $dest ($(ls "$dest" | wc -l) files)"
