"""The event loop a bot runs on: uvloop's when it is installed (a sixth to a quarter less of the
bot's CPU per decision than asyncio's own loop, measured in ``bench.dealer``), else asyncio's.

``ARENA_BOT_EVENT_LOOP=asyncio`` chooses asyncio's own loop; ``uvloop`` requires uvloop.
"""

from __future__ import annotations

import asyncio
import importlib
import os
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

ENV = "ARENA_BOT_EVENT_LOOP"
CHOICES = ("auto", "uvloop", "asyncio")
T = TypeVar("T")


class EventLoopChoiceError(ValueError):
    """``ARENA_BOT_EVENT_LOOP`` names no loop this process can run (one line for people)."""


def loop_factory(choice: str | None = None) -> Callable[[], asyncio.AbstractEventLoop] | None:
    """The factory of the chosen loop (None: asyncio's own). ``choice`` defaults to the
    environment's ``ARENA_BOT_EVENT_LOOP``, else ``auto`` (uvloop when it can be imported)."""
    choice = (choice if choice is not None else os.environ.get(ENV, "")).strip().lower() or "auto"
    if choice not in CHOICES:
        raise EventLoopChoiceError(f"{ENV}={choice!r}: choose one of {', '.join(CHOICES)}")
    if choice == "asyncio":
        return None
    try:
        uvloop = importlib.import_module("uvloop")
    except ImportError:
        if choice == "uvloop":
            raise EventLoopChoiceError(f"{ENV}=uvloop, but uvloop is not installed "
                                       "(pip install uvloop)") from None
        return None
    factory: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
    return factory


def run(main: Coroutine[Any, Any, T], *, choice: str | None = None) -> T:
    """``asyncio.run(main)`` on the chosen event loop."""
    try:
        factory = loop_factory(choice)
    except EventLoopChoiceError:
        main.close()  # never started: no "never awaited" warning on top of the error
        raise
    with asyncio.Runner(loop_factory=factory) as runner:
        return runner.run(main)
