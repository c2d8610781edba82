"""gRPC's I/O path for this process: its older epoll path unless the user chose one, set for the
length of grpc's import only (gRPC reads ``GRPC_EXPERIMENTS`` there), so no child inherits it.

grpcio 1.85's EventEngine hands every read and write from its own threads to the completion
queue's poller thread: about 7 context switches per heads-up decision instead of about 4 on
the older path, for the same work (README "Dealer"). A fast path of arena/host/fastpaths.py:
used only with the grpcio versions the suite runs on (`TESTED_VERSIONS`) and not with
``ARENA_FAST_PATHS=off``; ``GRPC_EXPERIMENTS`` set by the user, even empty, is left alone (an
empty value keeps gRPC's own defaults).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Final

from arena.host import fastpaths

ENV: Final = "GRPC_EXPERIMENTS"
# The EventEngine experiments for listeners, client channels and other endpoints, switched off.
OLDER_IO: Final = ("-event_engine_listener,-event_engine_client,"
                   "-event_engine_for_all_other_endpoints")
TESTED_VERSIONS: Final = fastpaths.GRPC_OLDER_IO.tested


def grpc_version(spec: importlib.machinery.ModuleSpec) -> str:
    """grpcio's version from the file beside its ``__init__.py``, without importing it."""
    if spec.origin is None:
        return ""
    try:
        text = Path(spec.origin).with_name("_grpcio_metadata.py").read_text()
    except OSError:
        return ""
    return text.partition('"""')[2].partition('"""')[0]


class _ImportWithEnv(importlib.abc.Loader):
    """grpc's own loader, with ``GRPC_EXPERIMENTS`` set while it runs."""

    def __init__(self, loader: importlib.abc.Loader) -> None:
        self.loader = loader
        self.chosen = False

    def __getattr__(self, name: str) -> object:  # resource readers and the like: grpc's own
        return getattr(self.loader, name)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        if ENV in os.environ:  # set meanwhile: the user's choice
            self.loader.exec_module(module)
            return
        os.environ[ENV] = OLDER_IO
        self.chosen = True
        try:
            self.loader.exec_module(module)
        finally:
            os.environ.pop(ENV, None)


class GrpcIoFinder(importlib.abc.MetaPathFinder):
    """Finds grpc where the other finders do and wraps its loader (once, on grpc's import)."""

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if fullname != "grpc":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec("grpc")
        if spec is None or spec.loader is None:
            return spec
        version = grpc_version(spec)
        why = (f"{ENV} is set" if ENV in os.environ else fastpaths.why_not(fastpaths.GRPC_OLDER_IO)
               if version.startswith(TESTED_VERSIONS) else f"grpcio {version} is not a tested version")
        fastpaths.record(fastpaths.GRPC_OLDER_IO, taken=why is None, why=why or "",
                         asked=ENV in os.environ)
        if why is None:
            spec.loader = _ImportWithEnv(spec.loader)
        return spec


def install() -> None:
    """Choose the older I/O path for the grpc this process imports later (once per process;
    nothing when grpc is imported already or ``GRPC_EXPERIMENTS`` is set)."""
    if "grpc" in sys.modules or ENV in os.environ:
        fastpaths.record(fastpaths.GRPC_OLDER_IO, taken=False, asked=True,
                         why=f"{ENV} is set" if ENV in os.environ else "grpc was imported first")
        return
    if not any(isinstance(finder, GrpcIoFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, GrpcIoFinder())


def older_io_chosen() -> bool:
    """Whether this process's grpc was imported with the older I/O path chosen here."""
    grpc = sys.modules.get("grpc")
    spec = getattr(grpc, "__spec__", None)
    loader = getattr(spec, "loader", None)
    return isinstance(loader, _ImportWithEnv) and loader.chosen
