"""Dealer's choice for spectators (docs/house-rules.md §28): who chose the game of an orbit, or
that the dealer chose for the chooser (it timed out or was absent), in one wording for the live
view and the match and hand pages."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena.engine.games import ALL_VARIANTS

_WHY = {"timeout": "timed out", "absent": "was absent"}


def choice_view(*, game: str, chooser_seat: int, automatic: str | None, first_hand: int,
                hands: int, names: Sequence[str]) -> dict[str, Any]:
    """One orbit's choice as the pages show it: the seat and name of the chooser, why the
    dealer chose for it (``automatic``: ``timeout``, ``absent``; None: it chose itself), the
    game, the hands it covers and the sentence that says it all."""
    name = names[chooser_seat] if 0 <= chooser_seat < len(names) else f"seat {chooser_seat}"
    variant = ALL_VARIANTS.get(game)
    game_name = variant.name if variant is not None else game
    span = (f"hand {first_hand}" if hands <= 1
            else f"hands {first_hand}-{first_hand + hands - 1}")
    if automatic:
        why = _WHY.get(automatic, automatic)
        text = (f"dealer's choice: {name} {why}; the dealer chose {game_name} ({game}) for "
                f"{span}")
    else:
        text = f"dealer's choice: {name} chose {game_name} ({game}) for {span}"
    return {"game": str(game), "game_name": game_name, "chooser_seat": chooser_seat,
            "chooser": name, "automatic": automatic or None, "first_hand": first_hand,
            "hands": hands, "text": text}


def covers(choice: dict[str, Any] | None, hand_number: int) -> bool:
    """Whether ``choice`` is the one hand ``hand_number`` (from 1) is dealt under."""
    return choice is not None and choice["first_hand"] <= hand_number < (
        choice["first_hand"] + max(choice["hands"], 1))
