"""The user's groundls cache, kept out of the tests.

A test run gets its own cache folder (``GROUNDLS_CACHE_DIR``) that holds only links to the
files the install derived there (the static embedding model, the joined answer model and the
machine's kernel probe), read as shipped. Everything the product writes at run time
(translations, rates, prefixes, markers, indexes) lands in the run's folder. A snapshot of the
real cache, taken before the run and compared after it, shows the run left it as it found it.

    python -m tests.helpers.user_cache isolate DIR      # DIR becomes a test run's cache
    python -m tests.helpers.user_cache snapshot FILE    # record the real cache
    python -m tests.helpers.user_cache compare FILE     # exit 1 if it changed since
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import platformdirs

from groundls.answer.model import model_files
from groundls.answer.model.cpu_buffers import PROBE_FILE
from groundls.index.embed import static_model

#: Files larger than this are compared by size and modification time, not by their bytes
#: (the 1.1 GB answer model is never rewritten in place: the install replaces it whole).
_HASHED_UP_TO = 16 << 20


def real_cache() -> Path:
    """The user's cache folder, whatever a test run points the product at."""
    return Path(platformdirs.user_cache_dir("groundls"))


def installed_files() -> list[str]:
    """The cache files the install writes, relative to the cache folder."""
    static = static_model.model_path().name
    gguf = f"{model_files.PACKAGED_NAME}-{model_files.PACKAGED_VERSION}.gguf"
    names = [static, str(Path(static).with_suffix(".json")), gguf, f"{gguf}.json", PROBE_FILE]
    return [f"models/{name}" for name in names]


def isolate(dest: Path, real: Path | None = None) -> Path:
    """Make ``dest`` a test run's cache: links to the installed files of the real cache."""
    real = real or real_cache()
    for name in installed_files():
        source, link = real / name, dest / name
        link.parent.mkdir(parents=True, exist_ok=True)
        if source.is_file() and not link.exists():
            link.symlink_to(source)
    return dest


def _digest(path: Path) -> str:
    stat = path.stat()
    if stat.st_size > _HASHED_UP_TO:
        return f"{stat.st_size}:{stat.st_mtime_ns}"
    return hashlib.sha256(path.read_bytes()).hexdigest()


def snapshot(root: Path | None = None) -> dict[str, str]:
    """Every file under the real cache (or ``root``) with a digest of its bytes."""
    root = root or real_cache()
    if not root.is_dir():
        return {}
    return {
        str(p.relative_to(root)): _digest(p)
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def changes(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """What differs between two snapshots, one line per file."""
    lines = [f"added {p}" for p in sorted(after.keys() - before.keys())]
    lines += [f"removed {p}" for p in sorted(before.keys() - after.keys())]
    lines += [f"changed {p}" for p in sorted(before.keys() & after.keys()) if before[p] != after[p]]
    return lines


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in ("isolate", "snapshot", "compare"):
        print(__doc__, file=sys.stderr)
        return 2
    verb, target = argv[0], Path(argv[1])
    if verb == "isolate":
        print(isolate(target))
        return 0
    if verb == "snapshot":
        target.write_text(json.dumps(snapshot()))
        return 0
    found = changes(json.loads(target.read_text()), snapshot())
    for line in found:
        print(f"the test run wrote to the user's cache {real_cache()}: {line}", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
