"""Loads the rules engine's hot modules compiled by mypyc (``scripts/build_engine.py``) when the
build in ``build/mypyc`` was made from exactly the engine's current sources; otherwise, or with
``ARENA_ENGINE_PURE=1``, they import as pure Python. Installed by ``arena/__init__.py``."""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType

# The modules of a hand's hot path: state machine, legality, dealing, showdown, pots and the
# shuffle. Interpreted: the events and actions (frozen dataclasses with a custom
# constructor), the evaluator (its lookup tables are dicts already) and the deck class (tests
# subclass it, and an interpreted class cannot subclass a compiled one).
COMPILED = ("dealing", "legal", "pots", "settlement", "shuffle", "state")
PACKAGE = "arena.engine"
PURE_ENV = "ARENA_ENGINE_PURE"
SOURCE_DIR = Path(__file__).resolve().parents[1] / "engine"
BUILD_DIR = SOURCE_DIR.parents[1] / "build" / "mypyc"
MANIFEST = "manifest.json"
SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]


def source_digests() -> dict[str, str]:
    """SHA-256 of every engine source by file name: a build serves only these exact sources."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(SOURCE_DIR.glob("*.py"))}


def build_is_fresh(build_dir: Path) -> bool:
    """Whether ``build_dir`` holds a build for this interpreter from the sources as they are."""
    try:
        manifest = json.loads((build_dir / MANIFEST).read_text())
    except (OSError, ValueError):
        return False
    return (isinstance(manifest, dict) and manifest.get("suffix") == SUFFIX
            and manifest.get("modules") == list(COMPILED)
            and manifest.get("sources") == source_digests())


def build_files(build_dir: Path) -> dict[str, Path]:
    """The extension file of each module a build serves, by module name: the compiled engine
    modules and the runtime library they share (a top-level module in the build directory)."""
    files = {f"{PACKAGE}.{m}": build_dir / "arena" / "engine" / f"{m}{SUFFIX}" for m in COMPILED}
    for library in build_dir.glob(f"*{SUFFIX}"):
        files[library.name.removesuffix(SUFFIX)] = library
    return files


def compiled_modules() -> tuple[str, ...]:
    """The engine modules this process has loaded compiled (none: pure Python)."""
    return tuple(sorted(
        name for name, module in list(sys.modules.items())
        if name.startswith(f"{PACKAGE}.") and str(getattr(module, "__file__", "")).endswith(SUFFIX)))


class BuildFinder(importlib.abc.MetaPathFinder):
    """Finds the compiled engine modules in a build, checked on the first engine import (so a
    process that never imports the engine reads nothing); finds nothing for a stale build."""

    def __init__(self, build_dir: Path) -> None:
        self.build_dir = build_dir
        self._files: dict[str, Path] | None = None

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        if self._files is None:
            if not fullname.startswith(f"{PACKAGE}."):
                return None
            fresh = not os.environ.get(PURE_ENV) and build_is_fresh(self.build_dir)
            self._files = build_files(self.build_dir) if fresh else {}
        file = self._files.get(fullname)
        if file is None:
            return None
        loader = importlib.machinery.ExtensionFileLoader(fullname, str(file))
        return importlib.util.spec_from_file_location(fullname, file, loader=loader)


def install(build_dir: Path = BUILD_DIR) -> None:
    """Put a :class:`BuildFinder` first on ``sys.meta_path`` (once per process)."""
    if not any(isinstance(finder, BuildFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, BuildFinder(build_dir))
