#!/usr/bin/env bash
# Real-editor smoke tests: headless Neovim and Emacs eglot each run `groundls serve` on a copy of
# tests/fixtures/lsp_ws, wait for indexing, then check groundls.search, groundls.similar and hover.
# Installs the editors with apt when they are missing. Exit status is non-zero on any failure.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
TIMEOUT_S="${GROUNDLS_SMOKE_TIMEOUT_S:-300}"

# The server command: `groundls serve` from $PATH, else next to the Python running the tests.
if [[ -z "${GROUNDLS_CMD:-}" ]]; then
  if command -v groundls >/dev/null 2>&1; then
    GROUNDLS_CMD="$(command -v groundls) serve"
  elif [[ -x /work/venv/bin/groundls ]]; then
    GROUNDLS_CMD="/work/venv/bin/groundls serve"
  else
    echo "run.sh: groundls is not installed (pip install -e .), or set GROUNDLS_CMD" >&2
    exit 2
  fi
fi
export GROUNDLS_CMD
# the Python that isolates the cache: the one beside the server's executable, else $PATH's
if [[ -z "${GROUNDLS_PYTHON:-}" ]]; then
  server_bin="$(dirname "${GROUNDLS_CMD%% *}")"
  if [[ -x "$server_bin/python" ]]; then GROUNDLS_PYTHON="$server_bin/python"; else GROUNDLS_PYTHON=python; fi
fi

as_root() { if [[ "$(id -u)" == 0 ]]; then "$@"; else sudo "$@"; fi; }
apt_updated=0
apt_install() {
  if [[ $apt_updated == 0 ]]; then as_root apt-get update -qq; apt_updated=1; fi
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}
command -v nvim >/dev/null 2>&1 || apt_install neovim
if ! command -v emacs >/dev/null 2>&1 ||
   ! emacs --batch --eval "(progn (package-initialize) (require 'eglot))" >/dev/null 2>&1; then
  apt_install emacs-nox elpa-eglot
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/groundls-editors.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
export GROUNDLS_INDEX_DIR="$WORK/index"   # never the user's cache
# a cache of this run that links to what install.sh derived (the static model is not derived
# again in the editors' home, and the user's cache is never written)
if [[ -z "${GROUNDLS_CACHE_DIR:-}" ]]; then
  export GROUNDLS_CACHE_DIR="$WORK/cache"
  (cd "$REPO" && "$GROUNDLS_PYTHON" -m tests.helpers.user_cache isolate "$GROUNDLS_CACHE_DIR" >/dev/null)
fi
export HOME="$WORK/home" XDG_CONFIG_HOME="$WORK/home/.config" XDG_DATA_HOME="$WORK/home/.local/share"
mkdir -p "$HOME"

status=0
run() {  # run NAME COMMAND...: one editor on its own copy of the fixture workspace
  local name="$1"; shift
  export GROUNDLS_SMOKE_WS="$WORK/$name-ws"
  cp -r "$REPO/tests/fixtures/lsp_ws" "$GROUNDLS_SMOKE_WS"
  # a test of the hovered function: the hover names it under "Tested in"
  mkdir -p "$GROUNDLS_SMOKE_WS/tests"
  cp "$HERE/test_invoice.py.txt" "$GROUNDLS_SMOKE_WS/tests/test_invoice.py"
  local t0=$SECONDS
  if (cd "$WORK" && timeout "$TIMEOUT_S" "$@"); then
    echo "== $name: PASS ($((SECONDS - t0)) s)"
  else
    echo "== $name: FAIL (exit $?, $((SECONDS - t0)) s)"
    status=1
  fi
}

echo "groundls: $GROUNDLS_CMD; $(nvim --version | head -1); $(emacs --version | head -1)"
run neovim nvim --headless -u NONE -i NONE -c "luafile $HERE/smoke.lua"
run emacs emacs --batch -l "$HERE/smoke.el"
exit $status
