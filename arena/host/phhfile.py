"""PHH hand-history files (``.phh``, ``.phhs``) read from disk for the engine's PHH reader."""

from __future__ import annotations

from arena.engine.phh import PhhHand, loads_bytes


def load_file(path: str) -> list[PhhHand]:
    """The hands of a ``.phh`` or ``.phhs`` file (OSError when it cannot be read)."""
    with open(path, "rb") as fh:
        raw = fh.read()
    return loads_bytes(raw, name=path)
