"""Real editors (headless Neovim, Emacs eglot) drive `groundls serve` with their own commands;
skipped if not installed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
FIXTURE_WS = HERE.parent / "fixtures" / "lsp_ws"

pytestmark = pytest.mark.slow


def _server_cmd() -> str:
    if os.environ.get("GROUNDLS_CMD"):
        return os.environ["GROUNDLS_CMD"]
    beside = Path(sys.executable).parent / "groundls"
    return f"{beside} serve" if beside.exists() else f"{sys.executable} -m groundls.lsp"


def _eglot_available() -> bool:
    if shutil.which("emacs") is None:
        return False
    probe = subprocess.run(
        ["emacs", "--batch", "--eval", "(progn (package-initialize) (require 'eglot))"],
        capture_output=True,
        timeout=60,
    )
    return probe.returncode == 0


EDITORS = {
    "neovim": (
        lambda: shutil.which("nvim") is not None,
        ["nvim", "--headless", "-u", "NONE", "-i", "NONE", "-c", f"luafile {HERE / 'smoke.lua'}"],
    ),
    "emacs": (_eglot_available, ["emacs", "--batch", "-l", str(HERE / "smoke.el")]),
}


#: A line each editor prints once its own commands got what they must (the scripts check the
#: places; this makes sure those steps ran).
STEPS = {
    "neovim": [
        "definition from docs/discounts.md:3 -> src/billing/invoice.py:17",
        'code action "Ask the workspace about this" -> window/showDocument opened',
        'code action "Show related: apply_discount" -> window/showDocument opened',
    ],
    "emacs": [
        "xref-find-apropos(apply_discount) [workspace/symbol] -> src/billing/invoice.py:17,",
        "xref-find-references(apply_discount) [textDocument/references] -> ",
        "landed in src/billing/invoice.py:17",
    ],
}


@pytest.mark.parametrize("editor", list(EDITORS))
def test_editor_drives_groundls_serve_with_its_own_commands(editor: str, tmp_path: Path) -> None:
    available, argv = EDITORS[editor]
    if not available():
        pytest.skip(f"{editor} is not installed (tests/editors/run.sh installs it)")
    ws = tmp_path / "ws"
    shutil.copytree(FIXTURE_WS, ws)
    (ws / "tests").mkdir()  # a test of the hovered function: "Tested in" names it
    shutil.copy(HERE / "test_invoice.py.txt", ws / "tests" / "test_invoice.py")
    env = {
        **os.environ,
        "GROUNDLS_SMOKE_WS": str(ws),
        "GROUNDLS_CMD": _server_cmd(),
        "GROUNDLS_INDEX_DIR": str(tmp_path / "index"),
    }
    proc = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=400)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output
    assert "PASS" in output and "Related in this workspace" in output, output
    assert "Tested in" in output and "tests/test_invoice.py#L7" in output, output
    for step in STEPS[editor]:
        assert step in output, output
