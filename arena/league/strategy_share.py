"""Issue 40: the share of each bot's decisions it answered with a declared strategy, counted
from the league's stored hand logs, for the leaderboard: where the share is high, the
luck-adjusted results also remove that bot's own dice (docs/strategy-replies.md).

Only three lines of a hand's PHH text are read (``players``, ``actions``, ``_strategies``),
each parsed as TOML on its own, so counting a league's hands costs a fraction of reading them."""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from arena.engine.strategy_log import STRATEGIES_FIELD

_WANTED = ("players = ", "actions = ", f"{STRATEGIES_FIELD} = ")


@dataclass(frozen=True, slots=True, kw_only=True)
class StrategyShare:
    bot: str
    decisions: int  # the bot's actions in completed hands (automatic ones included)
    strategy_replies: int  # of them, drawn by the dealer from a declared strategy

    @property
    def share(self) -> float:
        return self.strategy_replies / self.decisions if self.decisions else 0.0


def _lines(text: str) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for line in text.splitlines():
        if line.startswith(_WANTED):
            try:
                found.update(tomllib.loads(line))
            except tomllib.TOMLDecodeError:
                continue  # not one line (a writer's change): counted as absent
    return found


def hand_counts(text: str) -> dict[str, tuple[int, int]]:
    """(decisions, strategy replies) by bot name in one hand's PHH text; {} when unreadable."""
    fields = _lines(text)
    players, actions = fields.get("players"), fields.get("actions")
    if not isinstance(players, list) or not isinstance(actions, list):
        return {}
    decisions = [0] * len(players)
    for action in actions:
        words = action.split() if isinstance(action, str) else []
        if len(words) >= 2 and words[0][:1] == "p" and words[0][1:].isdigit() and words[1] != "sm":
            seat = int(words[0][1:]) - 1
            if 0 <= seat < len(players):
                decisions[seat] += 1
    drawn = [0] * len(players)
    strategies = fields.get(STRATEGIES_FIELD)
    for record in strategies if isinstance(strategies, list) else ():
        owner = record.get("seat") if isinstance(record, dict) else None
        if type(owner) is int and 0 <= owner < len(players):
            drawn[owner] += 1
    return {str(name): (decisions[k], drawn[k]) for k, name in enumerate(players)}


def strategy_shares(texts: Iterable[str]) -> tuple[StrategyShare, ...]:
    """Per bot (by name) over the hands, sorted by name."""
    totals: dict[str, list[int]] = {}
    for text in texts:
        for bot, (decisions, drawn) in hand_counts(text).items():
            entry = totals.setdefault(bot, [0, 0])
            entry[0] += decisions
            entry[1] += drawn
    return tuple(StrategyShare(bot=bot, decisions=d, strategy_replies=k)
                 for bot, (d, k) in sorted(totals.items()))


def render_strategy_shares(shares: Iterable[StrategyShare]) -> str:
    """A line for the leaderboard's text; "" when no bot declared a strategy."""
    shares = [s for s in shares if s.strategy_replies]
    if not shares:
        return ""
    parts = ", ".join(f"{s.bot} {s.strategy_replies} of {s.decisions} ({100 * s.share:.0f}%)"
                      for s in shares)
    return (f"Strategy replies (decisions the dealer drew from a declared strategy; the "
            f"luck-adjusted results remove these draws' luck too): {parts}\n")
