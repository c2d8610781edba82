"""Loads the hot modules compiled by mypyc (``scripts/build_engine.py``): the rules engine's and
the dealer's per-decision ones, when the build in ``build/mypyc`` was made from exactly the
current sources; otherwise, or with ``ARENA_ENGINE_PURE=1``, they import as pure Python.
Installed by ``arena/__init__.py``."""

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

# The engine modules of a hand's hot path: state machine, legality, dealing, the exchange rounds
# of the draw games, showdown, pots and the shuffle; and of every hand logged: its PHH text
# (phhtext; the reader, phh, is not).
# Interpreted: the events and actions (frozen dataclasses with a custom constructor), the
# evaluator (its lookup tables are dicts already) and the deck class (tests subclass it, and an
# interpreted class cannot subclass a compiled one).
COMPILED = ("dealing", "exchange", "legal", "phhtext", "pots", "settlement", "shuffle", "state")
# The dealer's modules of every decision (README "Dealer"): the table, the lobby, the prompt
# and events (the messages: native classes, see match/messages.py), their encoding, the
# stream's reads and writes; and of every hand: the event log's lines as text (typed writers
# reading the native messages' fields) and the events held for it, ~180 calls a hand (the
# event log's file is its interpreted subclass); and the tee that also tells the live web
# page each event (called in the event log's place, ~180 times a hand); and each reply's way
# from the stream's reader into trio (server.inbox); a recorded hand's timings rounded
# (match.decimals). Interpreted: the gRPC service (its base class is gRPC's) and the trio
# guest's host side (tests patch it).
DEALER_COMPILED = ("match.clock", "match.decimals", "match.feed", "match.live", "match.lobby",
                   "match.messages", "match.spectator", "match.timer", "server.bridge",
                   "server.connection", "server.convert", "server.eager", "server.guard", "server.inbox",
                   "server.stats", "server.wire", "storage.eventhold", "storage.eventtext")
PACKAGE = "arena.engine"
MODULES = (*(f"{PACKAGE}.{m}" for m in COMPILED), *(f"arena.{m}" for m in DEALER_COMPILED))
PURE_ENV = "ARENA_ENGINE_PURE"
ARENA_DIR = Path(__file__).resolve().parents[1]
# What the compiled modules are built from: their packages and everything below them (a build
# from other sources of any of these is stale: mypyc bakes in the types it saw).
SOURCE_PACKAGES = ("engine", "host", "match", "server", "storage", "v1")
BUILD_DIR = ARENA_DIR.parent / "build" / "mypyc"
MANIFEST = "manifest.json"
SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]
_PREFIXES = tuple(sorted({name.rpartition(".")[0] + "." for name in MODULES}))


def source_digests() -> dict[str, str]:
    """SHA-256 of every source of :data:`SOURCE_PACKAGES` by its path under ``arena/``: a
    build serves only these exact sources."""
    return {p.relative_to(ARENA_DIR).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for package in SOURCE_PACKAGES for pattern in ("*.py", "*.pyi")
            for p in sorted((ARENA_DIR / package).rglob(pattern))}


def build_is_fresh(build_dir: Path) -> bool:
    """Whether ``build_dir`` holds a build for this interpreter from the sources as they are."""
    try:
        manifest = json.loads((build_dir / MANIFEST).read_text())
    except (OSError, ValueError):
        return False
    return (isinstance(manifest, dict) and manifest.get("suffix") == SUFFIX
            and manifest.get("modules") == list(MODULES)
            and manifest.get("sources") == source_digests())


def module_file(build_dir: Path, name: str) -> Path:
    """Where a build keeps the extension of module ``name`` (``arena.x.y``)."""
    return build_dir.joinpath(*name.split(".")[:-1], name.rpartition(".")[2] + SUFFIX)


def build_files(build_dir: Path) -> dict[str, Path]:
    """The extension file of each module a build serves, by module name: the compiled modules
    and the runtime library they share (a top-level module in the build directory)."""
    files = {name: module_file(build_dir, name) for name in MODULES}
    for library in build_dir.glob(f"*{SUFFIX}"):
        files[library.name.removesuffix(SUFFIX)] = library
    return files


def compiled_modules() -> tuple[str, ...]:
    """The modules of :data:`MODULES` this process has loaded compiled (none: pure Python)."""
    return tuple(sorted(
        name for name, module in list(sys.modules.items())
        if name in MODULES and str(getattr(module, "__file__", "")).endswith(SUFFIX)))


class BuildFinder(importlib.abc.MetaPathFinder):
    """Finds the compiled modules in a build, checked on the first import from one of their
    packages (so a process that imports none of them reads nothing); finds nothing for a stale
    build."""

    def __init__(self, build_dir: Path) -> None:
        self.build_dir = build_dir
        self._files: dict[str, Path] | None = None

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        if self._files is None:
            if not fullname.startswith(_PREFIXES):
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
