"""Config files (rules, match, league, tournament) read from disk, at most
:data:`~arena.engine.configfile.MAX_FILE_BYTES` of them, for the engine's TOML parser."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from arena.engine.configfile import MAX_FILE_BYTES, parse_toml
from arena.engine.errors import ConfigError


def read_toml(path: str | Path, *, what: str = "config") -> tuple[dict[str, Any], str]:
    """A TOML file's table and text; any problem (unreadable, too big, not UTF-8, not TOML,
    nested too deep) is a :class:`ConfigError` naming the file."""
    path = Path(path)
    try:
        with path.open("rb") as fh:
            raw = fh.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"cannot read {what} file {path}: {exc.strerror or exc}") from None
    return parse_toml(raw, name=str(path), what=what)
