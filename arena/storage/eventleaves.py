"""The event log's typed writers' parts (``arena/storage/eventtext.py``): the spelling of
each leaf value as ``json.dumps`` writes it, the nested values of the messages (seats,
pots, actions, results, a tournament) and the plain walk whose bytes they must equal."""


from __future__ import annotations

import json
from collections.abc import Mapping
from json.encoder import encode_basestring_ascii
from typing import Final

import orjson

from arena.engine.cards import format_card
from arena.engine.rules import Stakes
from arena.match.messages import (
    ActionRecord,
    HandSeatResult,
    MatchSeatResult,
    PotAward,
    PotInfo,
    SeatInfo,
    ShownHand,
    TournamentInfo,
)

_orjson_dumps: Final = orjson.dumps
_encode_str: Final = encode_basestring_ascii
_SMALL_INTS: Final = tuple(str(k) for k in range(1024))  # spelled once


class Unusual(Exception):
    """A value the typed writers leave to the plain walk."""


# ----------------------------------------------------------------------------- the plain walk


def plain(value: object, cards: bool = False) -> object:
    """The event as plain data (dicts, lists, plain values) for ``json.dumps``: slotted objects
    by their ``__slots__``, fields named ``...cards`` and ``board`` with card numbers as names."""
    if value is None or isinstance(value, str | bool | float):
        return value
    if isinstance(value, int):
        return format_card(value) if cards and 0 <= value < 52 else value
    if isinstance(value, tuple | list):
        return [plain(v, cards) for v in value]
    if isinstance(value, Mapping):  # the rules of MatchStarted: each value is a JSON text
        return {str(k): _json_text(v) for k, v in value.items()}
    kind = type(value)
    fields = _FIELDS.get(kind)
    if fields is None:
        if getattr(kind, "__slots__", None) is None:
            return str(value)
        # A slotted subclass's slots come after its bases' (HandSummary after HandEnded's).
        names = [name for base in reversed(kind.__mro__) for name in base.__dict__.get("__slots__", ())]
        fields = _FIELDS[kind] = tuple((name, name.endswith("cards") or name == "board")
                                       for name in names if not name.startswith("_"))
    return {name: plain(getattr(value, name), is_cards) for name, is_cards in fields}


_FIELDS: Final[dict[type, tuple[tuple[str, bool], ...]]] = {}


def _json_text(value: object) -> object:
    """A mapping's value as data: JSON texts (``"20"``, ``'["FT"]'``) decoded, others as they are."""
    if isinstance(value, str):
        try:
            decoded: object = json.loads(value)
        except ValueError:
            return value
        return decoded
    return plain(value)


# ----------------------------------------------------------------------------- values


def _int(value: object) -> str:
    if type(value) is int:
        return _SMALL_INTS[value] if 0 <= value < 1024 else str(value)
    raise Unusual  # a bool (json: true), an int subclass


# The JSON text of the strings of few values (names, bot ids, streets, kinds, states, games,
# hand descriptions) seen lately, up to a bound (emptied when full): a dict lookup costs a fifth
# of encoding one. Strings of many values (ids, seeds, reasons) are encoded by `_id_str`.
_STR_TEXTS: Final[dict[str, str]] = {}
_STR_TEXTS_MAX: Final = 4096


def _str(value: object) -> str:
    if isinstance(value, str):  # str enums too: json.dumps writes their value (equal keys)
        text = _STR_TEXTS.get(value)
        if text is None:
            text = _encode_str(value)
            if len(_STR_TEXTS) >= _STR_TEXTS_MAX:
                _STR_TEXTS.clear()
            _STR_TEXTS[value] = text
        return text
    raise Unusual


def _id_str(value: object) -> str:
    """`_str` of a string of many values (ids, seeds, reasons): not kept."""
    if isinstance(value, str):
        return _encode_str(value)
    raise Unusual


def _float(value: object) -> str:
    if type(value) is float:
        if value == 0.0 or 1e-4 <= abs(value) < 1e16:  # orjson spells these as repr does
            return _orjson_dumps(value).decode()
        if value - value == 0.0:  # finite
            return repr(value)
        return "NaN" if value != value else "Infinity" if value > 0.0 else "-Infinity"
    raise Unusual  # an int (json: no ".0"), a float subclass


def _bool(value: object) -> str:
    if value is True:
        return "true"
    if value is False:
        return "false"
    raise Unusual


def _leaf(value: object) -> str:
    """A value of a mixed tuple (TournamentInfo's moves and placings)."""
    if isinstance(value, str):
        return _encode_str(value)
    if type(value) is int:
        return str(value)
    if value is None:
        return "null"
    return _bool(value)


# Each writer below appends its value's text to ``out`` in pieces (joined once per call of
# `lines_text`: no text is copied into another before that).

_CARD_TEXT: Final = tuple(f'"{format_card(card)}"' for card in range(52))


def _tuple(value: object) -> tuple[object, ...]:
    if type(value) is not tuple:
        raise Unusual
    return value


def _cards(out: list[str], value: object) -> None:
    """A ``...cards`` field: card numbers 0-51 by name, other ints as they are."""
    separator = "["
    for card in _tuple(value):
        if type(card) is not int:
            raise Unusual
        out.append(separator)
        out.append(_CARD_TEXT[card] if 0 <= card < 52 else str(card))
        separator = ","
    out.append("[]" if separator == "[" else "]")


def _ints(out: list[str], value: object) -> None:
    separator = "["
    for item in _tuple(value):
        out.append(separator)
        out.append(_int(item))
        separator = ","
    out.append("[]" if separator == "[" else "]")


def _int_rows(out: list[str], value: object) -> None:
    """``((seat, chips), ...)``."""
    separator = "["
    for row in _tuple(value):
        out.append(separator)
        _ints(out, row)
        separator = ","
    out.append("[]" if separator == "[" else "]")


def _leaf_rows(out: list[str], value: object) -> None:
    separator = "["
    for row in _tuple(value):
        out.append(separator)
        inner = "["
        for item in _tuple(row):
            out.append(inner)
            out.append(_leaf(item))
            inner = ","
        out.append("[]" if inner == "[" else "]")
        separator = ","
    out.append("[]" if separator == "[" else "]")


def _strs(out: list[str], value: object) -> None:
    separator = "["
    for item in _tuple(value):
        out.append(separator)
        out.append(_str(item))
        separator = ","
    out.append("[]" if separator == "[" else "]")


# ----------------------------------------------------------------------------- objects


def _seat_infos(out: list[str], value: object) -> None:
    separator = "["
    for seat in _tuple(value):
        if type(seat) is not SeatInfo:
            raise Unusual
        out.append(separator)
        out.append('{"seat":')
        out.append(_int(seat.seat))
        out.append(',"name":')
        out.append(_str(seat.name))
        out.append(',"bot_id":')
        out.append(_str(seat.bot_id))
        out.append(',"stack_chips":')
        out.append(_int(seat.stack_chips))
        out.append(',"bet_chips":')
        out.append(_int(seat.bet_chips))
        out.append(',"committed_chips":')
        out.append(_int(seat.committed_chips))
        out.append(',"up_cards":')
        _cards(out, seat.up_cards)
        out.append(',"hole_card_count":')
        out.append(_int(seat.hole_card_count))
        out.append(',"status":')
        out.append(_str(seat.status))
        out.append("}")
        separator = ","
    out.append("[]" if separator == "[" else "]")


# The seats, stakes and deal id of the last HandStarted written, with their text, as one entry
# (one store: a writer thread and the dealer's never see one's values with the other's text):
# every seat is sent a HandStarted of its own, all four (say) with the same objects
# (`arena.match.feed`), their copies differing in ``your_seat`` only.
_LAST_STARTED: Final[list[tuple[object, object, object, str]]] = [(None, None, None, "")]


def _hand_started_middle(seats: object, stakes: object, deal_id: object) -> str:
    """``,"seats":...,"stakes":...,"deal_id":...`` of a HandStarted, kept for its next copy."""
    last_seats, last_stakes, last_deal_id, last_text = _LAST_STARTED[0]
    if seats is last_seats and stakes is last_stakes and deal_id is last_deal_id:
        return last_text
    part: list[str] = [',"seats":']
    _seat_infos(part, seats)
    part.append(',"stakes":')
    _stakes(part, stakes)
    part.append(',"deal_id":')
    part.append(_id_str(deal_id))
    text = "".join(part)
    # Held, so that their ids are not other objects' while they are kept.
    _LAST_STARTED[0] = (seats, stakes, deal_id, text)
    return text


def _stakes(out: list[str], value: object) -> None:
    if type(value) is not Stakes:
        raise Unusual
    out.append('{"small_bet":')
    out.append(_int(value.small_bet))
    out.append(',"big_bet":')
    out.append(_int(value.big_bet))
    out.append(',"small_blind":')
    out.append(_int(value.small_blind))
    out.append(',"big_blind":')
    out.append(_int(value.big_blind))
    out.append(',"ante":')
    out.append(_int(value.ante))
    out.append(',"bring_in":')
    out.append(_int(value.bring_in))
    out.append("}")


def _pot_infos(out: list[str], value: object) -> None:
    separator = "["
    for pot in _tuple(value):
        if type(pot) is not PotInfo:
            raise Unusual
        out.append(separator)
        out.append('{"amount_chips":')
        out.append(_int(pot.amount_chips))
        out.append(',"eligible_seats":')
        _ints(out, pot.eligible_seats)
        out.append("}")
        separator = ","
    out.append("[]" if separator == "[" else "]")


def _action_record(out: list[str], value: object) -> None:
    if type(value) is not ActionRecord:
        raise Unusual
    out.append('{"seat":')
    out.append(_int(value.seat))
    out.append(',"street":')
    out.append(_str(value.street))
    out.append(',"kind":')
    out.append(_str(value.kind))
    out.append(',"raise_to_chips":')
    out.append(_int(value.raise_to_chips))
    out.append(',"amount_chips":')
    out.append(_int(value.amount_chips))
    out.append(',"round_bet_chips":')
    out.append(_int(value.round_bet_chips))
    out.append(',"is_all_in":')
    out.append(_bool(value.is_all_in))
    automatic = value.automatic
    out.append(',"automatic":null' if automatic is None else ',"automatic":')
    if automatic is not None:
        out.append(_str(automatic))
    # An exchange (docs/house-rules.md §26); zeros and empties for the other kinds.
    out.append(',"exchange_card_count":')
    out.append(_int(value.exchange_card_count))
    out.append(',"exchanged_cards":')
    _cards(out, value.exchanged_cards)
    out.append(',"drawn_cards":')
    _cards(out, value.drawn_cards)
    out.append(',"exchange_face_up":')
    out.append(_bool(value.exchange_face_up))
    out.append("}")


def _action_records(out: list[str], value: object) -> None:
    separator = "["
    for record in _tuple(value):
        out.append(separator)
        _action_record(out, record)
        separator = ","
    out.append("[]" if separator == "[" else "]")


def _shown_hands(out: list[str], value: object) -> None:
    separator = "["
    for hand in _tuple(value):
        if type(hand) is not ShownHand:
            raise Unusual
        out.append(separator)
        out.append('{"seat":')
        out.append(_int(hand.seat))
        out.append(',"cards":')
        _cards(out, hand.cards)
        out.append(',"high_description":')
        out.append(_str(hand.high_description))
        out.append(',"high_cards":')
        _cards(out, hand.high_cards)
        out.append(',"low_description":')
        out.append(_str(hand.low_description))
        out.append(',"low_cards":')
        _cards(out, hand.low_cards)
        out.append("}")
        separator = ","
    out.append("[]" if separator == "[" else "]")


def _seat_results(out: list[str], value: object) -> None:
    separator = "["
    for result in _tuple(value):
        if type(result) is not HandSeatResult:
            raise Unusual
        out.append(separator)
        out.append('{"seat":')
        out.append(_int(result.seat))
        out.append(',"net_chips":')
        out.append(_int(result.net_chips))
        out.append(',"final_stack_chips":')
        out.append(_int(result.final_stack_chips))
        out.append("}")
        separator = ","
    out.append("[]" if separator == "[" else "]")


def _pot_awards(out: list[str], value: object) -> None:
    separator = "["
    for award in _tuple(value):
        if type(award) is not PotAward:
            raise Unusual
        out.append(separator)
        out.append('{"pot_index":')
        out.append(_int(award.pot_index))
        out.append(',"amount_chips":')
        out.append(_int(award.amount_chips))
        out.append(',"half":')
        out.append(_str(award.half))
        out.append(',"winners":')
        _int_rows(out, award.winners)
        out.append("}")
        separator = ","
    out.append("[]" if separator == "[" else "]")


def _match_seat_results(out: list[str], value: object) -> None:
    separator = "["
    for result in _tuple(value):
        if type(result) is not MatchSeatResult:
            raise Unusual
        out.append(separator)
        out.append('{"seat":')
        out.append(_int(result.seat))
        out.append(',"name":')
        out.append(_str(result.name))
        out.append(',"bot_id":')
        out.append(_str(result.bot_id))
        out.append(',"net_chips":')
        out.append(_int(result.net_chips))
        out.append(',"hands_played":')
        out.append(_int(result.hands_played))
        out.append(',"mbb_per_hand":')
        out.append(_float(result.mbb_per_hand))
        out.append(',"mbb_per_hand_ci95":')
        out.append(_float(result.mbb_per_hand_ci95))
        out.append(',"final_stack_chips":')
        out.append(_int(result.final_stack_chips))
        out.append(',"place":')
        out.append(_int(result.place))
        out.append("}")
        separator = ","
    out.append("[]" if separator == "[" else "]")


def _tournament(out: list[str], value: object) -> None:
    if value is None:
        out.append("null")
        return
    if type(value) is not TournamentInfo:
        raise Unusual
    out.append('{"tournament":')
    out.append(_str(value.tournament))
    out.append(',"event_id":')
    out.append(_str(value.event_id))
    out.append(',"event_title":')
    out.append(_str(value.event_title))
    out.append(',"table":')
    out.append(_int(value.table))
    out.append(',"table_hand":')
    out.append(_int(value.table_hand))
    out.append(',"round":')
    out.append(_int(value.round))
    out.append(',"level":')
    out.append(_int(value.level))
    out.append(',"small_blind_chips":')
    out.append(_int(value.small_blind_chips))
    out.append(',"big_blind_chips":')
    out.append(_int(value.big_blind_chips))
    out.append(',"ante_chips":')
    out.append(_int(value.ante_chips))
    out.append(',"next_level_at_round":')
    out.append(_int(value.next_level_at_round))
    out.append(',"next_level_in_seconds":')
    out.append(_float(value.next_level_in_seconds))
    out.append(',"players_left":')
    out.append(_int(value.players_left))
    out.append(',"tables":')
    out.append(_int(value.tables))
    out.append(',"moves":')
    _leaf_rows(out, value.moves)
    out.append(',"placings":')
    _leaf_rows(out, value.placings)
    out.append("}")


# The rules of the last MatchStarted written (their keys and values, all strings, in order)
# with their text, as one pair: each seat is sent one, the same rules in a dict of its own.
_LAST_RULES: Final[list[tuple[object, str]]] = [((), "")]


def _rules(value: object) -> str:
    """MatchStarted's rules: each value a JSON text, written decoded (once a match)."""
    if not isinstance(value, Mapping):
        raise Unusual
    items = tuple(value.items())
    strings = all(type(key) is str and type(rule) is str for key, rule in items)
    last_items, last_text = _LAST_RULES[0]
    if strings and items and items == last_items:
        return last_text
    text = json.dumps(plain(value), separators=(",", ":"))
    if strings:
        _LAST_RULES[0] = (items, text)
    return text


# ----------------------------------------------------------------------------- payloads
