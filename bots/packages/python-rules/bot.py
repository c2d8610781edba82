"""Raises strong hands, calls fair ones, folds the rest (the SDK's rule-based example).

The sandbox gives the dealer's address and this instance's token in ARENA_SERVER and
ARENA_TOKEN, so the bot's code names neither."""

from arena_bot import Action, SeatView
from arena_bot.examples import rule_based


def decide(view: SeatView) -> Action:
    return rule_based(view)
