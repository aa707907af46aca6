"""``python -m groundls.answer.model.llama_server``: llama-cpp-python's OpenAI-compatible server
(``python -m llama_cpp.server``, the ``server`` extra) with the CPU buffers that run on this
machine.

On machines that advertise AMX (many Intel Xeon VMs), llama.cpp's repacked CPU buffers crash the
stock server on its first request. This runs the same server, choosing the buffers as groundls'
own runtime does (measured once per machine and build: :func:`cpu_buffers.use_extra_buffers`;
``GROUNDLS_LLM_EXTRA_BUFFERS=0`` forces them off). Every argument goes to ``llama_cpp.server``;
``--model`` defaults to the packaged answer model.

    python -m groundls.answer.model.llama_server --host 127.0.0.1 --port 8080 --model_alias qwen
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

from groundls.answer.model import cpu_buffers, model_files


def main(argv: list[str]) -> int:
    args = list(argv)
    if "--model" not in args:
        spec, note = model_files.resolve_model("", True)
        if spec is None:
            print(f"groundls: no packaged answer model: {note}", file=sys.stderr)
            return 2
        args = ["--model", str(model_files.gguf_path(spec)), *args]
    model = Path(args[args.index("--model") + 1])
    extra = cpu_buffers.use_extra_buffers(model)
    sys.argv = ["llama_cpp.server", *args]
    with cpu_buffers.model_params(use_extra_bufts=extra):
        runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
