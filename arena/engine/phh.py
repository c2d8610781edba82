"""PHH hand histories (TOML): writing finished hands (``arena/engine/phhtext.py``),
reading and replaying them through the engine. ``.phhs`` files hold several hands as tables
``[1]``, ``[2]``, ...
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.engine.actions import ActionKind
from arena.engine.cards import DECK_SIZE, Card, parse_cards
from arena.engine.errors import ArenaError, MalformedInput
from arena.engine.games import Betting, EngineGame, GameCode, Variant, game_with_betting, variant_for
from arena.engine.phhtext import BETTING_FIELD as BETTING_FIELD
from arena.engine.phhtext import dumps_hand as dumps_hand
from arena.engine.phhtext import dumps_hands as dumps_hands
from arena.engine.phhtext import hand_fields as hand_fields
from arena.engine.phhtext import phh_actions as phh_actions
from arena.engine.phhtext import toml_string as toml_string
from arena.engine.rules import Rules, Stakes, hand_rules
from arena.engine.state import BOARD, HandState

# --------------------------------------------------------------------------- reading


@dataclass
class PhhHand:
    """One hand read from a file: its fields and where it came from (for error messages)."""

    name: str
    fields: dict[str, Any]
    errors: list[str] = field(default_factory=list)


def loads(text: str, *, name: str = "<text>") -> list[PhhHand]:
    """Read a ``.phh`` (one hand) or ``.phhs`` (tables of hands) text."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise MalformedInput(f"{name}: not valid TOML: {exc}") from None
    except RecursionError:
        raise MalformedInput(f"{name}: not a hand history (nested too deeply)") from None
    return hands_of(data, name=name)


def hands_of(data: dict[str, Any], *, name: str) -> list[PhhHand]:
    """The hands of a parsed ``.phh`` (one hand) or ``.phhs`` (tables of hands) document."""
    if "variant" in data or "actions" in data:
        return [PhhHand(name, data)]
    hands: list[PhhHand] = []
    for key, value in data.items():
        if not isinstance(value, dict):
            raise MalformedInput(f"{name}: top-level key {key!r} is neither a PHH field nor a hand table")
        hands.append(PhhHand(f"{name}[{key}]", value))
    if not hands:
        raise MalformedInput(f"{name}: no hands in file")
    return hands


def loads_bytes(raw: bytes, *, name: str) -> list[PhhHand]:
    """Read the bytes of a ``.phh`` or ``.phhs`` file (``name``: the file, for messages)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MalformedInput(f"{name}: not a hand history (not UTF-8 text at byte {exc.start})"
                             ) from None
    return loads(text, name=name)


class ScriptedCards:
    """Serves the cards a hand history says were dealt, in order, per seat and for the board.

    It counts like a real deck (52 cards less dealt and burned), so the stud running-out rule
    plays out exactly as it did live.
    """

    def __init__(self, hole: dict[int, list[Card]], board: list[Card], *, name: str) -> None:
        self._hole = {seat: list(reversed(cards)) for seat, cards in hole.items()}
        self._board = list(reversed(board))
        self._remaining = DECK_SIZE
        self._burned = 0
        self._name = name

    def __len__(self) -> int:
        return self._remaining

    def deal(self, seat: int) -> Card:
        queue = self._board if seat == BOARD else self._hole.get(seat, [])
        if not queue:
            where = "the board" if seat == BOARD else f"p{seat + 1}"
            raise MalformedInput(f"{self._name}: the history deals too few cards to {where}")
        self._remaining -= 1
        return queue.pop()

    def burn(self) -> Card | None:
        if self._remaining:
            self._remaining -= 1
            self._burned += 1
        return None

    def recycle_burned(self) -> None:
        self._remaining += self._burned
        self._burned = 0

    def recycle(self, discards: Sequence[Card]) -> None:
        self._remaining += self._burned + len(discards)
        self._burned = 0

    def leftover(self) -> list[str]:
        out = [f"p{s + 1}: {len(q)} card(s)" for s, q in self._hole.items() if q]
        if self._board:
            out.append(f"board: {len(self._board)} card(s)")
        return out


UNKNOWN_CARD_BASE = DECK_SIZE  # unknown cards ("??") are 52, 56, 60, ...: distinct, with distinct ranks


def _parse_phh_cards(text: str, unknown: list[int]) -> list[Card]:
    if len(text) % 2:
        raise MalformedInput(f"not a card list: {text!r}")
    out: list[Card] = []
    for i in range(0, len(text), 2):
        token = text[i : i + 2]
        if token == "??":
            out.append(UNKNOWN_CARD_BASE + 4 * len(unknown))
            unknown.append(out[-1])
        else:
            out.append(parse_cards(token)[0])
    return out


def _required(hand: PhhHand, key: str, kind: type) -> Any:
    if key not in hand.fields:
        raise MalformedInput(f"{hand.name}: missing field {key!r}")
    value = hand.fields[key]
    if not isinstance(value, kind):
        raise MalformedInput(f"{hand.name}: field {key!r} should be {kind.__name__}, got {value!r}")
    return value


def int_list(hand: PhhHand, key: str, length: int) -> list[int]:
    values = _required(hand, key, list)
    if len(values) != length or not all(isinstance(v, int) for v in values):
        raise MalformedInput(f"{hand.name}: field {key!r} should be {length} whole numbers, got {values!r}")
    return [int(v) for v in values]


_ENGINE_CODES: frozenset[str] = frozenset(EngineGame)


def variant_of(hand: PhhHand) -> Variant:
    """The game of a hand: its PHH ``variant``, and arena's ``_betting`` where PHH has no code."""
    text = _required(hand, "variant", str)
    if text in _ENGINE_CODES and BETTING_FIELD not in hand.fields:
        # docs/house-rules.md §21-§25: PokerKit's F2L3D, and the arena's codes of the others.
        return variant_for(text)
    code = GameCode.parse(text)
    if BETTING_FIELD in hand.fields:
        betting = _required(hand, BETTING_FIELD, str)
        if betting not in tuple(Betting):
            raise MalformedInput(f"{hand.name}: {BETTING_FIELD} should be one of "
                                 f"{', '.join(b.value for b in Betting)}, got {betting!r}")
        code = game_with_betting(code, Betting(betting))
    return variant_for(code)


def stakes_of(hand: PhhHand, variant: Variant, seat_count: int) -> Stakes:
    antes = int_list(hand, "antes", seat_count) if "antes" in hand.fields else [0] * seat_count
    if variant.betting is not Betting.FIXED:
        blinds = int_list(hand, "blinds_or_straddles", seat_count)
        min_bet = _required(hand, "min_bet", int)
        if min_bet != max(blinds):
            raise MalformedInput(f"{hand.name}: min_bet {min_bet} must equal the big blind "
                                 f"{max(blinds)} (docs/house-rules.md §4)")
        return Stakes(small_bet=min_bet, big_bet=2 * min_bet,
                      small_blind=min((b for b in blinds if b), default=0), big_blind=min_bet,
                      ante=max(antes), bring_in=0)
    if variant.is_stud and len(set(antes)) > 1:
        raise MalformedInput(f"{hand.name}: only equal antes are supported, got {antes}")
    small_bet = _required(hand, "small_bet", int)
    big_bet = _required(hand, "big_bet", int)
    if variant.is_stud:
        return Stakes(small_bet=small_bet, big_bet=big_bet, small_blind=0, big_blind=0,
                      ante=antes[0], bring_in=_required(hand, "bring_in", int))
    blinds = int_list(hand, "blinds_or_straddles", seat_count)
    return Stakes(small_bet=small_bet, big_bet=big_bet,
                  small_blind=min((b for b in blinds if b), default=0), big_blind=max(blinds),
                  ante=max(antes), bring_in=0)


def forced_bets_of(hand: PhhHand, variant: Variant,
                   seat_count: int) -> tuple[list[int] | None, list[int] | None, bool]:
    """A blind game's blinds and antes as the hand history lists them, and whether the antes
    are dead money (``ante_trimming_status = false``: a big-blind ante, docs/house-rules.md §4)."""
    if variant.is_stud:
        return None, None, False
    blinds = int_list(hand, "blinds_or_straddles", seat_count)
    antes = int_list(hand, "antes", seat_count) if "antes" in hand.fields else None
    dead = hand.fields.get("ante_trimming_status", False) is False and any(antes or ())
    return blinds, antes, dead


def _seat(token: str, hand: PhhHand, line: int, seat_count: int) -> int:
    if not token.startswith("p") or not token[1:].isdigit():
        raise MalformedInput(f"{hand.name}: action {line + 1}: bad player {token!r}")
    seat = int(token[1:]) - 1
    if not 0 <= seat < seat_count:
        raise MalformedInput(f"{hand.name}: action {line + 1}: no player {token}")
    return seat


def replay(hand: PhhHand, rules: Rules | None = None, *,
           before_action: Callable[[HandState, int, int], None] | None = None) -> HandState:
    """Play a hand history through the engine and return the final state.

    ``before_action(state, seat, action_index)`` is called before each player action (not a
    show), ``action_index`` counting them from 0. Raises :class:`MalformedInput` or an engine
    error naming the hand and the action (or what ``before_action`` raised, with its name).
    """
    variant = variant_of(hand)
    stacks = _required(hand, "starting_stacks", list)
    seat_count = len(stacks)
    stacks = int_list(hand, "starting_stacks", seat_count)
    actions = _required(hand, "actions", list)
    stakes = stakes_of(hand, variant, seat_count)
    hole: dict[int, list[Card]] = {}
    board: list[Card] = []
    parsed: list[list[str]] = []
    unknown: list[int] = []
    for line, raw in enumerate(actions):
        if not isinstance(raw, str):
            raise MalformedInput(f"{hand.name}: action {line + 1} is not a string: {raw!r}")
        words = raw.split("#", 1)[0].split()
        if not words:
            raise MalformedInput(f"{hand.name}: action {line + 1} is empty")
        parsed.append(words)
        try:
            if words[:2] == ["d", "dh"] and len(words) == 4:
                seat = _seat(words[2], hand, line, seat_count)
                hole.setdefault(seat, []).extend(_parse_phh_cards(words[3], unknown))
            elif words[:2] == ["d", "db"] and len(words) == 3:
                board.extend(_parse_phh_cards(words[2], unknown))
            elif words[0] == "d":
                raise MalformedInput("unknown dealer action (expected 'd dh pN CARDS' or 'd db CARDS')")
        except MalformedInput as exc:
            raise MalformedInput(f"{hand.name}: action {line + 1} {raw!r}: {exc}") from None
    source = ScriptedCards(hole, board, name=hand.name)
    rules = hand_rules(rules or Rules(), hand.fields, where=hand.name)  # an arena log's own
    blinds, antes, dead_antes = forced_bets_of(hand, variant, seat_count)
    state = HandState(variant, stacks, rules=rules, stakes=stakes, cards=source,
                      manual_showdown=True, blinds=blinds, antes=antes, dead_antes=dead_antes)
    action_index = 0
    for line, words in enumerate(parsed):
        raw = " ".join(words)
        if words[0] == "d":
            if words[1] not in ("dh", "db") or len(words) != 4 - (words[1] == "db"):
                raise MalformedInput(f"{hand.name}: action {line + 1} {raw!r}: unknown dealer action")
            continue
        seat = _seat(words[0], hand, line, seat_count)
        try:
            if words[1:2] != ["sm"]:
                if before_action is not None:
                    before_action(state, seat, action_index)
                action_index += 1
            _apply(state, seat, words[1:], hand.name)
        except ArenaError as exc:
            raise type(exc)(f"{hand.name}: action {line + 1} {raw!r}: {exc}") from None
    leftover = source.leftover()
    if leftover:
        raise MalformedInput(f"{hand.name}: cards dealt in the history but never used: {'; '.join(leftover)}")
    return state


def _apply(state: HandState, seat: int, words: list[str], name: str) -> None:
    code = words[0]
    if code == "sm":
        if len(words) > 2:
            raise MalformedInput("sm takes one card list")
        state.show(seat, parse_cards(words[1]) if len(words) == 2 else None)
        return
    if state.actor is None:
        raise MalformedInput("no player is to act here")
    if code == "f" and len(words) == 1:
        state.act(seat, ActionKind.FOLD)
    elif code == "cc" and len(words) == 1:
        if state.actor == seat:
            legal = state.legal_actions()
            state.act(seat, ActionKind.CHECK if legal.can_check else ActionKind.CALL)
        else:
            state.act(seat, ActionKind.CALL)
    elif code == "pb" and len(words) == 1:
        state.act(seat, ActionKind.BRING_IN)
    elif code == "cbr" and len(words) == 2 and words[1].isdigit():
        state.act(seat, ActionKind.RAISE, int(words[1]))
    elif code == "sd" and len(words) <= 2:  # stand pat or discard (docs/house-rules.md §26)
        state.exchange(seat, parse_cards(words[1]) if len(words) == 2 else [])
    else:
        raise MalformedInput(f"unknown or malformed action {' '.join(words)!r}")


def iter_replays(
    hands: Sequence[PhhHand], rules: Rules | None = None
) -> Iterator[tuple[PhhHand, HandState | None, str | None]]:
    """Replay each hand, collecting errors per hand instead of stopping at the first."""
    for hand in hands:
        try:
            state = replay(hand, rules)
        except ArenaError as exc:
            yield hand, None, str(exc)
            continue
        expected = hand.fields.get("finishing_stacks")
        if expected is not None and list(expected) != list(state.stacks):
            diffs = [f"p{i + 1}: log {e}, engine {g}" for i, (e, g) in
                     enumerate(zip(expected, state.stacks, strict=False)) if e != g]
            yield hand, state, f"{hand.name}: finishing_stacks differ ({'; '.join(diffs)})"
        elif not state.is_over:
            yield hand, state, f"{hand.name}: the hand history ends before the hand does"
        else:
            yield hand, state, None
