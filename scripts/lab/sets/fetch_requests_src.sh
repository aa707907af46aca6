#!/usr/bin/env bash
# The "requests-qa" corpus: the sdist of requests 2.32.3 from PyPI (Apache-2.0), its source and
# docs. Held out: built in the twenty-first session and never used to choose a rule or a constant.
#   usage: fetch_requests_src.sh DEST
set -euo pipefail
dest="${1:?usage: $0 DEST}"
sdist=requests-2.32.3.tar.gz
sha=55365417734eb18255590a9ff9eb97e9e1da868d4ccd6402399eaf68af20a760
if [ -f "$dest.fetched" ] && [ "$(cat "$dest.fetched")" = "$sdist $sha" ] && [ -d "$dest" ]; then
  echo "up to date: $dest"; exit 0
fi
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
"${PYTHON:-python3}" -m pip download --quiet --no-deps --no-binary :all: requests==2.32.3 -d "$tmp"
echo "$sha  $tmp/$sdist" | sha256sum -c --quiet -
tar xzf "$tmp/$sdist" -C "$tmp"
rm -rf "$dest"; mkdir -p "$dest"
cp -r "$tmp/requests-2.32.3/src" "$tmp/requests-2.32.3/README.md" "$tmp/requests-2.32.3/HISTORY.md" "$dest/"
echo "$sdist $sha" > "$dest.fetched"
echo "fetched requests 2.32.3 -> $dest"
