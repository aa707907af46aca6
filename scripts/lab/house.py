"""The house's measures, as issue "one clear house" defines them: module and function sizes,
the import rules, and comments that name an evaluation set.

    python scripts/lab/house.py            # prints every measure; exits 1 when one fails

``tests/test_architecture.py`` runs the same checks, so a change that breaks one fails the build.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: Where the engine's code lives, and the package each folder is.
SOURCES = {ROOT / "server" / "groundls": "groundls", ROOT / "chunkers": "groundls.chunkers"}
#: A module reads in one sitting up to this many lines; a function up to this many.
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60
#: The faces, and what of the engine they may import besides themselves.
FACES = ("groundls.cli", "groundls.lsp", "groundls.mcp")
FACE_MAY_IMPORT = (
    "groundls",  # the package itself: its __version__
    "groundls.workspace",
    "groundls.results",
    "groundls.config",
    "groundls.wire",
    "groundls.typed",
    "groundls.redact",
    "groundls.endpoints",
)
#: The CLI also prints the benchmark, and hands ``serve`` and ``mcp`` over to the other faces.
CLI_MAY_IMPORT = ("groundls.bench", "groundls.lsp", "groundls.mcp")
#: A face's table of handler registrations may be longer than a function otherwise may.
REGISTRATION_TABLES = {
    ("groundls.cli.commands", "register"),
    ("groundls.lsp.features", "create_server"),
    ("groundls.mcp.server", "create_server"),
}
#: Words that name an evaluation set (or a benchmark delta) in a comment or docstring.
SET_NAMES = re.compile(
    r"\bsemble\b|SEMBLE|click-ja|click-langs|maint-?guide|debref|devref|requests-qa|requests-langs"
    r"|aptitude-ja|policy-ja|debmake|installguide|ddskk|mixed-ja|\d\.\d{3} ?(?:->|→) ?\d\.\d{3}"
)


@dataclass(frozen=True)
class Module:
    name: str
    path: Path
    tree: ast.Module
    lines: int


def modules() -> list[Module]:
    out = []
    for folder, package in SOURCES.items():
        for path in sorted(folder.rglob("*.py")):
            rel = path.relative_to(folder).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            name = ".".join([package, *parts])
            text = path.read_text(encoding="utf-8")
            out.append(Module(name, path, ast.parse(text), len(text.splitlines())))
    return out


def imports(module: Module, known: set[str]) -> Iterator[tuple[str, int]]:
    """Each groundls module ``module`` imports (anywhere in it), with the line."""
    package = module.name if module.path.name == "__init__.py" else module.name.rpartition(".")[0]
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, *([base] if base else [])])
            targets = [f"{base}.{alias.name}" for alias in node.names]
            targets = [t if t in known else base for t in targets]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target.startswith("groundls"):
                yield target, node.lineno


def graph(mods: list[Module]) -> dict[str, set[str]]:
    known = {m.name for m in mods}
    return {m.name: {t for t, _ in imports(m, known) if t != m.name} for m in mods}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles (strongly connected components of more than one module)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    sys.setrecursionlimit(10_000)
    for v in edges:
        if v not in index:
            visit(v)
    return out


def _within(name: str, packages: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in packages)


def face_breaches(mods: list[Module]) -> list[str]:
    """Imports of a face that reach the engine other than through the allowed modules."""
    known = {m.name for m in mods}
    out = []
    for m in mods:
        face = next((f for f in FACES if _within(m.name, (f,))), None)
        if face is None:
            continue
        allowed = (face, *([*CLI_MAY_IMPORT] if face == "groundls.cli" else []))
        for target, line in imports(m, known):
            if target in FACE_MAY_IMPORT or _within(target, allowed):
                continue
            out.append(f"{m.name}:{line} imports {target}")
    return out


def chunker_breaches(mods: list[Module]) -> list[str]:
    """The chunkers are pure: they import nothing of groundls but themselves."""
    known = {m.name for m in mods}
    return [
        f"{m.name}:{line} imports {target}"
        for m in mods
        if _within(m.name, ("groundls.chunkers",))
        for target, line in imports(m, known)
        if not _within(target, ("groundls.chunkers",))
    ]


def long_modules(mods: list[Module]) -> list[str]:
    return [f"{m.name}: {m.lines} lines" for m in mods if m.lines > MAX_MODULE_LINES]


def long_functions(mods: list[Module]) -> list[str]:
    out = []
    for m in mods:
        for node in ast.walk(m.tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                size = (node.end_lineno or node.lineno) - node.lineno + 1
                if size > MAX_FUNCTION_LINES and (m.name, node.name) not in REGISTRATION_TABLES:
                    out.append(f"{m.name}.{node.name}: {size} lines")
    return out


def set_names(mods: list[Module]) -> list[str]:
    """Comments and docstrings that name an evaluation set or a measured delta."""
    out = []
    for m in mods:
        lines = m.path.read_text(encoding="utf-8").splitlines()
        in_doc = _docstring_lines(m.tree)
        for number, line in enumerate(lines, start=1):
            comment = line.partition("#")[2] if "#" in line else ""
            text = line if number in in_doc else comment
            if SET_NAMES.search(text):
                out.append(f"{m.path.relative_to(ROOT)}:{number}: {line.strip()[:80]}")
    return out


def _docstring_lines(tree: ast.Module) -> set[int]:
    """The lines of every docstring (module, class, function)."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                first = body[0]
                out.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    return out


MEASURES = {
    "import cycles": lambda mods: [" <-> ".join(c) for c in cycles(graph(mods))],
    "faces past their imports": face_breaches,
    "chunkers importing the engine": chunker_breaches,
    f"modules over {MAX_MODULE_LINES} lines": long_modules,
    f"functions over {MAX_FUNCTION_LINES} lines": long_functions,
    "comments naming an evaluation set": set_names,
}


def main() -> int:
    mods = modules()
    failed = 0
    for title, measure in MEASURES.items():
        found = measure(mods)
        print(f"{title}: {len(found)}")
        for item in found:
            print(f"  {item}")
        failed += bool(found)
    print(f"({len(mods)} modules, {sum(m.lines for m in mods)} lines)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
