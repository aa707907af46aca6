#!/usr/bin/env bash
# The "ddskk-ja" corpus: the Daredevil SKK manual in Japanese (Debian package ddskk
# 17.1+0.20221030-2, GPL-2.0+), its reStructuredText chapters as shipped (gzipped ones
# unpacked), among them a chapter of questions and answers (FAQ). A held-out set built in the
# thirty-fifth session: its questions are written as a reader asks them, in words of their own.
#   usage: fetch_ddskk_ja.sh DEST
set -euo pipefail
. "$(dirname "$0")/deb_package.sh"
deb_fetch "${1:?usage: $0 DEST}" ddskk 17.1+0.20221030-2 \
  462cd97623470b2693d4e109913550eea3b170951f265f93a6baf9e2ac2e3b91
for f in "$deb_root"/usr/share/doc/ddskk/[0-9][0-9]_*.rst*; do
  name="$(basename "$f" .gz)"
  case "$f" in *.gz) gzip -dc "$f" >"$dest/$name" ;; *) cp "$f" "$dest/$name" ;; esac
done
deb_done
