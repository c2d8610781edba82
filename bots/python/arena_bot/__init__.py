"""Python SDK for arena bots: write a function from a seat's view to an action, and run it.

    from arena_bot import Action, SeatView, run

    def my_bot(view: SeatView) -> Action:
        return view.check_or_call()

    run(my_bot, server="127.0.0.1:50051", token="...", name="my-bot")

The SDK connects, authenticates, answers each decision request (each on its own, so a slow
decision holds up no other table), falls back to check/fold after a rejected reply or an
exception, reconnects after a lost connection (the dealer gives the seats back) and returns
when the dealer says every match is over. ``arena_bot.examples`` has three example bots.
"""

from arena_bot import _grpc_io  # noqa: F401  # first: grpc's I/O path (arena_bot/_grpc_io.py)
from arena_bot.client import BotError, play, run
from arena_bot.session import PlayResult
from arena_bot.view import Action, Choice, SeatView

__all__ = ["Action", "BotError", "Choice", "PlayResult", "SeatView", "play", "run"]
__version__ = "0.1.0"
