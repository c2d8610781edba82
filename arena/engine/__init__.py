"""The rules engine. Its hot modules run compiled by mypyc when ``scripts/build_engine.py`` built
them from exactly these sources; otherwise (or with ``ARENA_ENGINE_PURE=1``) as pure Python."""

from __future__ import annotations

import hashlib
import importlib.machinery
import json
import os
import sys
from pathlib import Path

# The modules of a hand's hot path: state machine, legality, dealing, showdown, pots and the
# shuffle. Interpreted: the events and actions (frozen dataclasses with a custom
# constructor), the evaluator (its lookup tables are dicts already) and the deck class (tests
# subclass it, and an interpreted class cannot subclass a compiled one).
COMPILED = ("dealing", "legal", "pots", "settlement", "shuffle", "state")
PURE_ENV = "ARENA_ENGINE_PURE"
SOURCE_DIR = Path(__file__).resolve().parent
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


def compiled_modules() -> tuple[str, ...]:
    """The engine modules this process has loaded compiled (none: pure Python)."""
    return tuple(sorted(
        name for name, module in list(sys.modules.items())
        if name.startswith(f"{__name__}.") and str(getattr(module, "__file__", "")).endswith(SUFFIX)))


if not os.environ.get(PURE_ENV) and BUILD_DIR.is_dir() and build_is_fresh(BUILD_DIR):
    # The compiled modules come first on this package's path; the runtime library they
    # share is a top-level module in the build directory.
    sys.path.append(str(BUILD_DIR))
    __path__.insert(0, str(BUILD_DIR / "arena" / "engine"))
