#!/usr/bin/env bash
# The real tools the document tests make their files with, from Debian's packages: Chromium
# (prints HTML to PDF), pandoc (Word, OpenDocument, EPUB), LibreOffice with its UNO bridge (PDF
# with bookmarks, a password-protected .odt), qpdf (an encrypted PDF) and Japanese fonts (so
# Chromium prints Japanese text, not empty boxes). Installs only what is missing.
set -euo pipefail
as_root() { if [[ "$(id -u)" == 0 ]]; then "$@"; else sudo "$@"; fi; }
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v pandoc >/dev/null 2>&1 || missing+=(pandoc)
command -v qpdf >/dev/null 2>&1 || missing+=(qpdf)
command -v soffice >/dev/null 2>&1 || missing+=(libreoffice-writer-nogui)
/usr/bin/python3 -c "import uno" >/dev/null 2>&1 || missing+=(python3-uno)
fc-list :lang=ja 2>/dev/null | grep -q . || missing+=(fonts-ipafont-gothic fonts-ipafont-mincho)
if ((${#missing[@]})); then
  as_root apt-get -o DPkg::Lock::Timeout=600 update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
    --no-install-recommends "${missing[@]}" >/dev/null
fi
