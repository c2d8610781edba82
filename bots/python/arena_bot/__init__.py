"""Python SDK for arena bots: write a function from a seat's view to an action, and run it.

    from arena_bot import Action, SeatView, Strategy, run

    def my_bot(view: SeatView) -> Action:
        return view.check_or_call()

    def my_mixed_bot(view: SeatView) -> Action | Strategy:  # the dealer draws the action
        if not view.can("raise"):
            return view.check_or_call()
        return Strategy({view.check_or_call(): 0.7, view.raise_min(): 0.3})

    run(my_bot, server="127.0.0.1:50051", token="...", name="my-bot")

The SDK connects, authenticates, answers each decision request (each on its own, so a slow
decision holds up no other table), falls back to check/fold after a rejected reply or an
exception, reconnects after a lost connection (the dealer gives the seats back) and returns
when the dealer says every match is over. A bot may also return a :class:`Strategy` (a
probability for each of some legal actions): the dealer draws the action
(docs/strategy-replies.md). ``arena_bot.examples`` has four example bots.
"""

from arena_bot import _grpc_io  # noqa: F401  # first: grpc's I/O path (arena_bot/_grpc_io.py)
from arena_bot.client import BotError, play, run
from arena_bot.session import PlayResult
from arena_bot.strategy import Drawn, Strategy, StrategyError
from arena_bot.view import Action, Choice, SeatView

__all__ = ["Action", "BotError", "Choice", "Drawn", "PlayResult", "SeatView", "Strategy",
           "StrategyError", "play", "run"]
__version__ = "0.1.0"
