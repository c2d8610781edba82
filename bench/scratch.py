"""Scratch directories of a benchmark run (stores, logs, leagues), removed when the run ends: a
benchmark run many times must not fill the disk (each league's directory holds tens of MB)."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from functools import partial
from pathlib import Path


def scratch_dir(prefix: str) -> Path:
    """A new directory under the system's temporary directory, removed at the process's exit."""
    path = Path(tempfile.mkdtemp(prefix=prefix))
    atexit.register(partial(shutil.rmtree, path, ignore_errors=True))
    return path
