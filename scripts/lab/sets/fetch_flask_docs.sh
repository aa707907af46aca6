#!/usr/bin/env bash
# The "flask-docs" corpus: the sdist of Flask 3.0.3 from PyPI (BSD-3-Clause), its Sphinx manual
# (reStructuredText with code samples) and its source. Held out: built in the forty-sixth
# session for issue 71 (a Sphinx manual read as text), with questions in English and in Japanese
# written in words of their own; never used to choose a rule or a constant.
#   usage: fetch_flask_docs.sh DEST
set -euo pipefail
dest="${1:?usage: $0 DEST}"
sdist=flask-3.0.3.tar.gz
sha=ceb27b0af3823ea2737928a4d99d125a06175b8512c445cbd9a9ce200ef76842
if [ -f "$dest.fetched" ] && [ "$(cat "$dest.fetched")" = "$sdist $sha" ] && [ -d "$dest" ]; then
  echo "up to date: $dest"; exit 0
fi
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
"${PYTHON:-python3}" -m pip download --quiet --no-deps --no-binary :all: flask==3.0.3 -d "$tmp"
echo "$sha  $tmp/$sdist" | sha256sum -c --quiet -
tar xzf "$tmp/$sdist" -C "$tmp"
rm -rf "$dest"; mkdir -p "$dest"
cp -r "$tmp/flask-3.0.3/src" "$tmp/flask-3.0.3/docs" "$tmp/flask-3.0.3/README.md" "$dest/"
echo "$sdist $sha" > "$dest.fetched"
echo "fetched flask 3.0.3 -> $dest"
