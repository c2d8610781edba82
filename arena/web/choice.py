"""Dealer's choice for spectators (docs/house-rules.md §28): who chose the game of an orbit, or
that the dealer chose for the chooser (it timed out or was absent), in one wording for the live
view and the match and hand pages."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
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


MAX_SEATS = 16
MAX_CHOICES = 100_000  # a match has at most one choice a hand; a damaged log cannot make more


def orbit_choices(records: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The dealer's-choice announcements of a match's event log, as :func:`choice_view` gives
    them (the seats named as the log's ``MatchStarted`` names them), in order of their first
    hand: one per orbit (a record repeated for several seats, or a fixed rotation's game
    change, gives none more). ``records`` are the log's records as its reader gives them
    (protobuf's JSON mapping of ``LoggedEvent``, proto field names); fields of the wrong type
    count as absent (the log is untrusted input)."""
    names: list[str] = []
    seen: dict[int, tuple[str, int, str | None, int]] = {}
    for record in records:
        event = record.get("event") if isinstance(record, Mapping) else None
        if not isinstance(event, Mapping):
            continue
        started = event.get("match_started")
        if not names and isinstance(started, Mapping) and isinstance(started.get("seats"), list):
            seats = [s for s in started["seats"][:MAX_SEATS] if isinstance(s, Mapping)]
            names = [str(s.get("name", ""))[:64] for s in seats]
        change = event.get("game_changed")
        if not isinstance(change, Mapping) or change.get("dealers_choice") is not True:
            continue
        first = _int(change.get("first_hand_number"))
        game = change.get("game_code")
        if first < 1 or first in seen or not isinstance(game, str) or len(seen) >= MAX_CHOICES:
            continue
        reason = change.get("automatic_reason")
        seen[first] = (game[:16], _int(change.get("chooser_seat")),
                       _REASONS.get(reason) if isinstance(reason, str) else None,
                       _int(change.get("hands")))
    return [choice_view(game=game, chooser_seat=seat, automatic=automatic, first_hand=first,
                        hands=hands, names=names)
            for first, (game, seat, automatic, hands) in sorted(seen.items())]


_REASONS = {"AUTOMATIC_REASON_TIMEOUT": "timeout", "AUTOMATIC_REASON_ABSENT": "absent"}


def _int(value: object) -> int:
    """A JSON number as an int (protobuf's JSON mapping may give an int64 as a string)."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.isdigit() and len(value) < 12:
        return int(value)
    return 0
