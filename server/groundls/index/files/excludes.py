"""What is never indexed by default: VCS folders, dependencies, build outputs, lock files,
minified files, and names that look like they hold secrets."""

from __future__ import annotations

import os
import re
from fnmatch import translate

#: Never walked, whatever any ignore file says.
ALWAYS_EXCLUDED_DIRS = frozenset({".git", ".hg", ".svn", ".bzr", ".groundls"})

#: Walked only when a ``.groundlsignore`` or ``config.exclude`` re-includes them (``!build/``).
DEFAULT_EXCLUDED_DIRS = frozenset(
    {
        # virtualenvs (any directory holding pyvenv.cfg or conda-meta/ is skipped as well)
        ".venv", "venv", "env",
        # dependencies and caches
        "node_modules", "bower_components", "__pycache__", ".eggs",
        ".tox", ".nox", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".hypothesis",
        ".gradle", ".terraform", ".direnv", ".cache",
        # build outputs
        "build", "dist", "target", "out", "_build", "coverage", "htmlcov",
        ".next", ".nuxt", ".svelte-kit", ".parcel-cache", ".turbo", ".angular",
        # editor state
        ".idea", ".vscode",
    }
)  # fmt: skip

#: .NET build outputs, excluded only next to a project file (``bin/`` is often real scripts).
DOTNET_OUTPUT_DIRS = frozenset({"bin", "obj"})
DOTNET_PROJECT_SUFFIXES = (".csproj", ".fsproj", ".vbproj", ".sln")

DEFAULT_EXCLUDED_FILES = frozenset(
    {
        "package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "bun.lockb",
        "poetry.lock", "Cargo.lock", "Gemfile.lock", "composer.lock", "uv.lock",
        "Pipfile.lock", "pdm.lock", "go.sum", "flake.lock", "packages.lock.json",
    }
)  # fmt: skip
MINIFIED_SUFFIXES = (".min.js", ".min.mjs", ".min.cjs", ".min.css", ".map")

#: Secret-looking file names (matched case-insensitively against the base name).
SECRET_NAME_GLOBS = (
    ".env", ".env.*", "*.pem", "*.key", "*.p12", "*.pfx", "*.keystore", "*.jks", "*.kdbx",
    "id_rsa*", "id_ed25519*", "id_dsa*", "id_ecdsa*", "credentials*", "service-account*.json",
    ".netrc", ".npmrc", ".pypirc", ".pgpass", ".git-credentials", ".htpasswd",
    "secrets.*", "*secret*.json", "*secret*.yaml", "*secret*.yml",
)  # fmt: skip
#: Templates that document which variables exist without holding values.
SECRET_ALLOWED_NAMES = frozenset({".env.example", ".env.sample", ".env.template", ".env.dist"})
_SECRET_RE = re.compile("|".join(f"(?:{translate(g)})" for g in SECRET_NAME_GLOBS))


def is_secret(rel_path: str) -> bool:
    """True when the file name looks like it holds credentials (``.env``, keys, secrets.yaml...)."""
    if os.sep != "/":
        rel_path = rel_path.replace(os.sep, "/")
    return is_secret_name(rel_path.rstrip("/").rsplit("/", 1)[-1])


def is_secret_name(name: str) -> bool:
    lowered = name.lower()
    if not lowered or lowered in SECRET_ALLOWED_NAMES:
        return False
    return _SECRET_RE.match(lowered) is not None
