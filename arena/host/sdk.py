"""The Python bot SDK (``bots/python``) for the commands that run a bot in this process
(``arena bot``): the installed one, else this checkout's. Standard library only, so that a bot's
process loads nothing of the dealer (README "Bots")."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

SDK_DIR = Path(__file__).resolve().parents[2] / "bots" / "python"


def sdk_module(name: str) -> ModuleType:
    """``arena_bot.<name>`` of the installed SDK (``pip install -e bots/python``), else of the
    checkout beside this package; a ConfigError when there is neither."""
    try:
        return importlib.import_module(f"arena_bot.{name}")
    except ImportError:
        if not (SDK_DIR / "arena_bot").is_dir():
            from arena.engine.errors import ConfigError

            raise ConfigError("the bot SDK is not installed: pip install -e bots/python") from None
    sys.path.insert(0, str(SDK_DIR))
    return importlib.import_module(f"arena_bot.{name}")
