"""The arena's ``_``-prefixed PHH fields for what PHH cannot say about issue 42's games
(docs/hand-logs.md "Fields of the new games"): written by :func:`arena.engine.phhtext.hand_fields`,
checked against the replayed hand by `arena replay` (:func:`extension_problem`).

- ``_game``: the game's name, for the games PokerKit has no variant code for (every issue-42
  game but 2-7 triple draw, ``F2L3D``, which PokerKit reads).
- ``_wild_ranks`` (and ``_low_wild_ranks`` in the high-low wild games): for each player in PHH
  order, the ranks wild for its hand at the end as rank letters (docs/house-rules.md §23: the
  game's ``wild_ranks``, the same for every player; §24 Low Hole: the player's own lowest
  down card's rank, ``"A"`` for low with an ace in the hole).
- ``_face_up_exchanges``: English Stud (§25): the 1-based numbers of the ``actions`` lines of
  the exchanges that gave up an up card (their new card is dealt face up, the ``d dh`` line
  after them names it); every other ``pN sd CARDS`` line exchanged a down card.

The values are derived from the hand itself, so a replay recomputes them: a log whose fields
say otherwise (or are malformed) is reported, never trusted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from arena.engine.cards import RANKS
from arena.engine.describe_wild import LOW_HOLE_SHOWDOWNS, WILD_SHOWDOWNS, seat_wild
from arena.engine.events import CardsExchanged
from arena.engine.games import ENGINE_VARIANTS, EngineGame, Showdown
from arena.engine.state import HandState

GAME_FIELD: Final = "_game"
WILD_FIELD: Final = "_wild_ranks"
LOW_WILD_FIELD: Final = "_low_wild_ranks"
FACE_UP_FIELD: Final = "_face_up_exchanges"
FIELDS: Final = (GAME_FIELD, WILD_FIELD, LOW_WILD_FIELD, FACE_UP_FIELD)
_LOW_HALF: Final = frozenset({Showdown.WILD_HIGH_LOW_8, Showdown.LOW_HOLE_HI_LO})
_MAX_LIST: Final = 64  # seats or exchanges: far above any table's
_MAX_TEXT: Final = 200


def _ranks_text(ranks: frozenset[int]) -> str:
    return "".join(RANKS[r] for r in sorted(ranks))


def extension_fields(state: HandState, actions: Sequence[str]) -> dict[str, Any]:
    """The extension fields of ``state``'s hand, whose PHH ``actions`` are ``actions`` (none
    for the arena's original games)."""
    variant = state.variant
    code = variant.code
    if code not in ENGINE_VARIANTS:
        return {}
    fields: dict[str, Any] = {}
    if code != EngineGame.DEUCE_TO_SEVEN_TRIPLE_DRAW:
        fields[GAME_FIELD] = variant.name
    kind = variant.showdown
    if kind in WILD_SHOWDOWNS or kind in LOW_HOLE_SHOWDOWNS:
        wild = [seat_wild(variant, state.rules, state.cards[seat], state.is_up[seat])
                for seat in range(state.seat_count)]
        if kind is not Showdown.WILD_LOW:
            fields[WILD_FIELD] = [_ranks_text(w.high) for w in wild]
        if kind in _LOW_HALF or kind is Showdown.WILD_LOW:
            fields[LOW_WILD_FIELD] = [_ranks_text(w.low) for w in wild]
    if variant.priced_exchanges:  # English Stud: exchanges keep their card's face
        fields[FACE_UP_FIELD] = face_up_exchange_lines(state, actions)
    return fields


def face_up_exchange_lines(state: HandState, actions: Sequence[str]) -> list[int]:
    """The 1-based line numbers in ``actions`` (the hand's, as
    :func:`arena.engine.phhtext.phh_actions` writes them: one ``sd`` line per exchange, the
    round's ``d dh`` lines after its last exchange) of the exchanges that gave up an up card."""
    exchanges = [e for e in state.events if isinstance(e, CardsExchanged)]
    lines = [number for number, action in enumerate(actions, 1)
             if action.split()[1:2] == ["sd"]]
    return [line for line, event in zip(lines, exchanges, strict=True)
            if event.is_up and event.is_up[0]]


def _malformed(key: str, value: object) -> str:
    shown = repr(value)
    return f"{key} is malformed ({shown[:80]}{'...' if len(shown) > 80 else ''})"


def _valid(key: str, value: object) -> bool:
    if not isinstance(value, list) or len(value) > _MAX_LIST:
        return False
    if key == FACE_UP_FIELD:
        return all(type(v) is int and 0 < v <= 100_000 for v in value)
    return all(isinstance(v, str) and len(v) <= 13 for v in value)


def extension_problem(fields: Mapping[str, Any], state: HandState,
                      actions: Sequence[str]) -> str | None:
    """What a hand log's extension fields say that its replay (``state``, whose PHH actions
    are ``actions``) does not (None: nothing). A field the log lacks is not a problem (older
    logs); a field the game does not have, a malformed value or a different one is."""
    expected = extension_fields(state, actions)
    for key in FIELDS:
        if key not in fields:
            continue
        value = fields[key]
        if key not in expected:
            return f"{key} is not a field of {state.variant.code.value} hands"
        if key == GAME_FIELD:
            if not isinstance(value, str) or len(value) > _MAX_TEXT:
                return _malformed(key, value)
        elif not _valid(key, value):
            return _malformed(key, value)
        if value != expected[key]:
            return f"{key} says {_short(value)}, the replayed hand {_short(expected[key])}"
    return None


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 120 else text[:117] + "..."


def wild_summary(fields: Mapping[str, Any], players: Sequence[str]) -> str:
    """``arena replay --show``'s line for the wild ranks of a logged hand ("" without them):
    ``"wild: deuces"`` when every player's are the same, else each player's."""
    plural = ("deuces", "threes", "fours", "fives", "sixes", "sevens", "eights", "nines",
              "tens", "jacks", "queens", "kings", "aces")

    def said(text: str) -> str:
        return " and ".join(plural[RANKS.index(r)] for r in text if r in RANKS) or "none"

    parts = []
    for key, label in ((WILD_FIELD, "wild"), (LOW_WILD_FIELD, "wild for low")):
        value = fields.get(key)
        if not isinstance(value, list) or not _valid(key, value) or not value:
            continue
        if len(set(value)) == 1:
            parts.append(f"{label}: {said(value[0])}")
        else:
            parts.append(f"{label}: " + ", ".join(
                f"{name} {said(text)}" for name, text in zip(players, value, strict=False)))
    return "; ".join(parts)
