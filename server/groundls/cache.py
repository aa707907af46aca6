"""Where groundls keeps files between runs: one folder per user, ``GROUNDLS_CACHE_DIR`` if set.

Installed once (by ``scripts/install.sh``) and read at run time: the derived static embedding
model, the joined answer model and the machine's llama.cpp kernel probe (:func:`models_dir`).
Written at run time: translations kept between runs, prefill rates, prompt prefixes, the
"answering now" markers and the default index folder."""

from __future__ import annotations

import os
from pathlib import Path

#: The environment variable that moves every cache groundls keeps (tests point it at a
#: temporary folder; a user may keep the cache on another disk).
ENV = "GROUNDLS_CACHE_DIR"


def cache_dir() -> Path:
    """The user's groundls cache folder."""
    if os.environ.get(ENV):
        return Path(os.environ[ENV]).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("groundls"))


def models_dir() -> Path:
    """Model files derived at install and what is measured or kept per model."""
    return cache_dir() / "models"
