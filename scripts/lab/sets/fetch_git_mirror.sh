#!/usr/bin/env bash
# A corpus from a pinned commit of a public repository, extracted from the bare mirror the
# library's `fetch` brings (github:OWNER/NAME -> /work/.mirror/OWNER+NAME/repo).
#   usage: fetch_git_mirror.sh OWNER+NAME COMMIT DEST [SUBDIR]
set -euo pipefail
repo="${1:?usage: $0 OWNER+NAME COMMIT DEST [SUBDIR]}"; commit="${2:?commit}"; dest="${3:?dest}"
subdir="${4:-}"
mirror="${MIRROR:-/work/.mirror}/$repo/repo"
[ -d "$mirror/.git" ] && mirror="$mirror/.git"
if [ -f "$dest.fetched" ] && [ "$(cat "$dest.fetched")" = "$repo $commit $subdir" ] && [ -d "$dest" ]; then
  echo "up to date: $dest"; exit 0
fi
if [ "$(git --git-dir="$mirror" cat-file -t "$commit" 2>/dev/null)" != commit ]; then
  echo "error: $commit not in $mirror (fetch github:${repo/+//} first)" >&2; exit 2
fi
rm -rf "$dest"; mkdir -p "$dest"
# files the mirror stores only as pointers (large binaries) are left out, not fatal
git --git-dir="$mirror" archive "$commit" ${subdir:+-- "$subdir"} | tar -x -C "$dest" || true
echo "$repo $commit $subdir" > "$dest.fetched"
echo "fetched $repo@${commit:0:8} ${subdir:+($subdir) }-> $dest"
