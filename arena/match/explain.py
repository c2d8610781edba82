"""Rejection messages for bots: in the bot's own table seat numbers, saying what is allowed."""

from __future__ import annotations

import re
from collections.abc import Sequence

from arena.engine.actions import LegalActions
from arena.engine.errors import ArenaError

_SEAT = re.compile(r"\bseat (\d+)\b")


def in_table_seats(message: str, order: Sequence[int]) -> str:
    """``seat N`` in an engine message (engine order) as the table seat the bots know."""

    def table_seat(match: re.Match[str]) -> str:
        engine_seat = int(match.group(1))
        return f"seat {order[engine_seat]}" if engine_seat < len(order) else match.group(0)

    return _SEAT.sub(table_seat, message)


def allowed(legal: LegalActions) -> str:
    """What the seat may do, in words: ``post the bring-in (5) or complete to 20``."""
    if legal.can_exchange:  # docs/house-rules.md §26
        price = f", paying {legal.exchange_price_chips}" if legal.exchange_price_chips else ""
        return (f"exchange up to {legal.exchange_max_cards} of your cards{price}, or stand pat "
                f"(an exchange of none)")
    parts: list[str] = []
    if legal.bring_in_to_chips is not None:
        parts.append(f"post the bring-in ({legal.bring_in_to_chips})")
    if legal.can_check:
        parts.append("check")
    if legal.call_to_chips is not None:
        parts.append(f"call (to {legal.call_to_chips}{', all in' if legal.call_is_all_in else ''})")
    amounts = legal.raise_amounts()
    if amounts:
        verb = "complete" if legal.bring_in_to_chips is not None else "raise"
        all_in = " (all in)" if legal.raise_is_all_in else ""
        parts.append(f"{verb} to {' or '.join(map(str, amounts))}{all_in}")
    if legal.can_fold:
        parts.append("fold")
    if not parts:
        return "nothing"
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " or " + parts[-1]


def explained(error: ArenaError, legal: LegalActions | None, order: Sequence[int]) -> ArenaError:
    """The same kind of error, its message in table seats and followed by what is allowed."""
    text = in_table_seats(str(error), order)
    if legal is not None:
        text += f"; allowed: {allowed(legal)}"
    try:
        return type(error)(text)
    except TypeError:  # an error type with another constructor keeps its own message
        return error
