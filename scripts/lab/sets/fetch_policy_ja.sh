#!/usr/bin/env bash
# The "policy-ja" corpus: the Debian Policy Manual as packaged in Japanese (Debian package
# debian-policy-ja 4.6.2.0, the Policy's own licence: GPL-2.0+), its chapter and appendix pages
# (Sphinx HTML). Only three chapters are translated; the rest is English, so most questions
# asked in Japanese are answered by English text. A development set built in the twenty-ninth
# session: questions in a user's own words rather than the manual's.
#   usage: fetch_policy_ja.sh DEST
set -euo pipefail
. "$(dirname "$0")/deb_package.sh"
deb_fetch "${1:?usage: $0 DEST}" debian-policy-ja 4.6.2.0 \
  0e1718a5b473f3d7a8f3ab4e616f4d2140d6d7d46f3b6e30bb6fddbd8948d4ef
cp "$deb_root"/usr/share/doc/debian-policy/ja/policy.html/{ch,ap}-*.html "$dest"/
deb_done
