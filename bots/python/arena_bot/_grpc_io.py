"""Import grpc on its older epoll I/O path unless the user chose one (``GRPC_EXPERIMENTS``,
even empty) or grpc is imported already: fewer thread hand-offs per message, as the dealer.

gRPC reads ``GRPC_EXPERIMENTS`` while it is imported; the variable is set for that import only,
so processes the bot starts do not inherit it. Only grpcio versions this SDK is tested with.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import os
import sys

_ENV = "GRPC_EXPERIMENTS"
_OLDER_IO = ("-event_engine_listener,-event_engine_client,"
             "-event_engine_for_all_other_endpoints")
TESTED_VERSIONS = ("1.85.",)


def import_grpc() -> bool:
    """Import grpc now; whether on the older I/O path chosen here."""
    if "grpc" in sys.modules or _ENV in os.environ:
        return False
    try:  # the installed distribution's version (public metadata), before grpc is imported
        version = importlib.metadata.version("grpcio")
    except importlib.metadata.PackageNotFoundError:
        return False
    if not version.startswith(TESTED_VERSIONS):
        return False
    os.environ[_ENV] = _OLDER_IO
    try:
        importlib.import_module("grpc")
    finally:
        os.environ.pop(_ENV, None)
    return True


OLDER_IO_CHOSEN = import_grpc()
