"""The JSONL event log's lines written as text by typed code, one writer per message type
(compiled by mypyc, see arena/host/compiled.py: the messages are native classes, so each field
is a struct read): byte for byte what the plain walk (:func:`plain`, then ``json.dumps``)
writes. Whatever a writer does not expect (a value of another type than its field's, a payload
of no message type) raises :class:`Unusual`: that line is left to the plain walk
(``arena/storage/eventlog.py``).

Spelling as ``json.dumps`` writes it: strings (and str enums) by the standard library's own
``encode_basestring_ascii``; ints by ``str``; floats by ``repr``, NaN and the infinities as
``NaN``, ``Infinity``, ``-Infinity``; card numbers 0-51 of fields named ``...cards`` by name.
A writer writes the fields of its type in the order of its ``__slots__`` (what the plain walk
walks); tests/storage/test_eventlog_json.py fails when a message gets a field its writer
leaves out.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from json.encoder import encode_basestring_ascii
from typing import Final

import orjson

from arena.engine.cards import format_card
from arena.engine.rules import Stakes
from arena.match.decimals import scaled_round
from arena.match.messages import (
    ActionAnnounced,
    ActionRecord,
    BoardAnnounced,
    CardsDealt,
    DuplicateCopyStarted,
    GameChanged,
    HandEnded,
    HandSeatResult,
    HandStarted,
    HandSummary,
    MatchEnded,
    MatchSeatResult,
    MatchStarted,
    Notice,
    PotAward,
    PotInfo,
    SeatInfo,
    ShowdownAnnounced,
    ShownHand,
    StreetEnded,
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
    out.append(',"automatic":null}' if automatic is None else ',"automatic":')
    if automatic is not None:
        out.append(_str(automatic))
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


def _cards_dealt(out: list[str], p: CardsDealt) -> None:
    out.append('"type":"CardsDealt","payload":{"street":')
    out.append(_str(p.street))
    out.append(',"seat":')
    out.append(_int(p.seat))
    out.append(',"up_cards":')
    _cards(out, p.up_cards)
    out.append(',"hole_cards":')
    _cards(out, p.hole_cards)
    out.append(',"hole_card_count":')
    out.append(_int(p.hole_card_count))
    out.append("}")


def _action_announced(out: list[str], p: ActionAnnounced) -> None:
    out.append('"type":"ActionTaken","payload":{"action":')
    _action_record(out, p.action)
    out.append(',"stack_after_chips":')
    out.append(_int(p.stack_after_chips))
    out.append(',"pot_total_after_chips":')
    out.append(_int(p.pot_total_after_chips))
    out.append(',"decision_id":')
    out.append(_id_str(p.decision_id))
    out.append(',"strategy":')
    _strategy(out, p.strategy)
    out.append("}")


def _strategy(out: list[str], value: object) -> None:
    """``((PHH action, weight), ...)`` of a strategy reply (issue 40); usually empty."""
    separator = "["
    for entry in _tuple(value):
        action, weight = _tuple(entry)
        out.append(separator)
        out.append("[")
        out.append(_id_str(action))
        out.append(",")
        out.append(_float(weight))
        out.append("]")
        separator = ","
    out.append("[]" if separator == "[" else "]")


def _street_ended(out: list[str], p: StreetEnded) -> None:
    out.append('"type":"StreetEnded","payload":{"street":')
    out.append(_str(p.street))
    out.append(',"pots":')
    _pot_infos(out, p.pots)
    out.append(',"pot_total_chips":')
    out.append(_int(p.pot_total_chips))
    out.append(',"returned":')
    _int_rows(out, p.returned)
    out.append("}")


def _hand_started(out: list[str], p: HandStarted) -> None:
    out.append('"type":"HandStarted","payload":{"hand_number":')
    out.append(_int(p.hand_number))
    out.append(',"game":')
    out.append(_str(p.game))
    out.append(',"button_seat":')
    out.append(_int(p.button_seat))
    out.append(',"your_seat":')
    out.append(_int(p.your_seat))
    out.append(_hand_started_middle(p.seats, p.stakes, p.deal_id))
    out.append(',"game_hand_number":')
    out.append(_int(p.game_hand_number))
    out.append(',"duplicate_copy":')
    out.append(_int(p.duplicate_copy))
    out.append("}")


def _board_announced(out: list[str], p: BoardAnnounced) -> None:
    out.append('"type":"BoardDealt","payload":{"street":')
    out.append(_str(p.street))
    out.append(',"cards":')
    _cards(out, p.cards)
    out.append(',"board_cards":')
    _cards(out, p.board_cards)
    out.append(',"is_common_card":')
    out.append(_bool(p.is_common_card))
    out.append("}")


def _hand_ended_fields(out: list[str], p: HandEnded) -> None:
    out.append('"type":"HandEnded","payload":{"results":')
    _seat_results(out, p.results)
    out.append(',"awards":')
    _pot_awards(out, p.awards)
    out.append(',"voided":')
    out.append(_bool(p.voided))
    out.append(',"void_reason":')
    out.append(_str(p.void_reason))
    out.append(',"went_to_showdown":')
    out.append(_bool(p.went_to_showdown))


def _hand_ended(out: list[str], p: HandEnded) -> None:
    _hand_ended_fields(out, p)
    out.append("}")


def _hand_summary(out: list[str], p: HandSummary) -> None:
    """A ``HandEnded`` with the hand's public record (as the wire sends it to a seat on requests
    and results only): its fields, then the subclass's."""
    _hand_ended_fields(out, p)
    out.append(',"actions":')
    _action_records(out, p.actions)
    out.append(',"board":')
    _cards(out, p.board)
    out.append(',"seats":')
    _seat_infos(out, p.seats)
    out.append("}")


def _game_changed(out: list[str], p: GameChanged) -> None:
    out.append('"type":"GameChanged","payload":{"game":')
    out.append(_str(p.game))
    out.append(',"previous_game":')
    out.append(_str(p.previous_game))
    out.append(',"first_hand_number":')
    out.append(_int(p.first_hand_number))
    out.append("}")


def _match_started(out: list[str], p: MatchStarted) -> None:
    out.append('"type":"MatchStarted","payload":{"seats":')
    _seat_infos(out, p.seats)
    out.append(',"your_seat":')
    out.append(_int(p.your_seat))
    out.append(',"games":')
    _strs(out, p.games)
    out.append(',"hands_per_game":')
    out.append(_int(p.hands_per_game))
    out.append(',"total_hands":')
    out.append(_int(p.total_hands))
    out.append(',"stakes":')
    _stakes(out, p.stakes)
    out.append(',"starting_stack_chips":')
    out.append(_int(p.starting_stack_chips))
    out.append(',"decision_seconds":')
    out.append(_float(p.decision_seconds))
    out.append(',"time_bank_seconds":')
    out.append(_float(p.time_bank_seconds))
    out.append(',"rules":')
    out.append(_rules(p.rules))
    out.append(',"duplicate_copies":')
    out.append(_int(p.duplicate_copies))
    out.append(',"tournament":')
    _tournament(out, p.tournament)
    out.append("}")


def _match_ended(out: list[str], p: MatchEnded) -> None:
    out.append('"type":"MatchEnded","payload":{"results":')
    _match_seat_results(out, p.results)
    out.append(',"match_seed":')
    out.append(_id_str(p.match_seed))
    out.append(',"hands_played":')
    out.append(_int(p.hands_played))
    out.append(',"aborted":')
    out.append(_bool(p.aborted))
    out.append(',"abort_reason":')
    out.append(_id_str(p.abort_reason))
    out.append("}")


def _duplicate_copy_started(out: list[str], p: DuplicateCopyStarted) -> None:
    out.append('"type":"DuplicateCopyStarted","payload":{"copy_index":')
    out.append(_int(p.copy_index))
    out.append(',"copies_total":')
    out.append(_int(p.copies_total))
    out.append(',"deal_set_id":')
    out.append(_str(p.deal_set_id))
    out.append(',"your_seat":')
    out.append(_int(p.your_seat))
    out.append(',"seats":')
    _seat_infos(out, p.seats)
    out.append("}")


def _payload(out: list[str], payload: object) -> None:
    """``"type":...,"payload":{...}`` of an event: its name on the wire and its fields."""
    if type(payload) is CardsDealt:
        _cards_dealt(out, payload)
    elif type(payload) is ActionAnnounced:
        _action_announced(out, payload)
    elif type(payload) is StreetEnded:
        _street_ended(out, payload)
    elif type(payload) is HandStarted:
        _hand_started(out, payload)
    elif type(payload) is BoardAnnounced:
        _board_announced(out, payload)
    elif type(payload) is ShowdownAnnounced:
        out.append('"type":"Showdown","payload":{"hands":')
        _shown_hands(out, payload.hands)
        out.append("}")
    elif type(payload) is HandEnded:
        _hand_ended(out, payload)
    elif type(payload) is GameChanged:
        _game_changed(out, payload)
    elif type(payload) is HandSummary:
        _hand_summary(out, payload)
    elif type(payload) is MatchStarted:
        _match_started(out, payload)
    elif type(payload) is MatchEnded:
        _match_ended(out, payload)
    elif type(payload) is DuplicateCopyStarted:
        _duplicate_copy_started(out, payload)
    else:
        raise Unusual


def _notice(out: list[str], notice: object) -> None:
    if type(notice) is not Notice:
        raise Unusual
    out.append('{"match_id":')
    out.append(_str(notice.match_id))
    out.append(',"hand_id":')
    out.append(_id_str(notice.hand_id))
    out.append(',"sequence":')
    out.append(_int(notice.sequence))
    out.append(',"server_unix_seconds":')
    out.append(_float(notice.unix_seconds))
    out.append(",")
    _payload(out, notice.payload)
    out.append("}")


def notice_text(notice: Notice) -> str:
    """One event as the plain walk's JSON; raises :class:`Unusual` where it leaves it to it."""
    out: list[str] = []
    _notice(out, notice)
    return "".join(out)


_DIGITS3: Final = tuple(f"{k:03d}" for k in range(1000))


def micros(value: float) -> int:
    """``value`` in millionths rounded as ``"%.6f" % value`` rounds it (to the nearest, a tie to
    even, from its exact binary value), for 0 < value < 2**33; -1 for any other value (-0.0
    is spelled with its sign)."""
    return scaled_round(value, 1e6)


# A line's start up to its time, by the seats that received it when they are 0-7 in increasing
# order, a bit each: ``'{"seats":[0,2,3],"logged_at":'`` for 0b1101.
_SEATS_TEXT: Final = tuple(
    '{"seats":[' + ",".join([_SMALL_INTS[seat] for seat in range(8) if mask >> seat & 1])
    + '],"logged_at":' for mask in range(256))


def _seats_bits(seats: object) -> int:
    """The bits of ``seats`` (a list of ints 0-7 in increasing order, as the dealer sends an
    event's copies), or -1 for any other value."""
    if type(seats) is not list:
        return -1
    bits = 0
    previous = -1
    for seat in seats:
        if type(seat) is not int or not previous < seat < 8:
            return -1
        bits |= 1 << seat
        previous = seat
    return bits


def lines_text(held: Sequence[tuple[Notice, Sequence[int], float]],
               unusual: Callable[[Notice, Sequence[int], float], str]) -> str:
    """The event log's lines of events (each with the seats that received it and the time it
    was sent), as :func:`arena.storage.eventlog.event_line` spells them; a line this module
    leaves to the plain walk by ``unusual``."""
    out: list[str] = []
    last_second = -1
    second_text = ""
    match_id: object = None
    hand_id: object = None
    event_ids = ""
    last_seconds: object = None
    seconds_text = ""
    rows: list[tuple[object, object, object]] = list(held)  # a list: indexed, not iterated
    for notice, seats, sent in rows:
        start = len(out)
        bits = _seats_bits(seats)
        if bits >= 0:
            out.append(_SEATS_TEXT[bits])
        else:
            out.append('{"seats":[')
            seat_list: Sequence[object] = seats  # type: ignore[assignment]  # str, as event_line
            separator = ""
            for seat in seat_list:
                out.append(separator)
                out.append(_SMALL_INTS[seat] if type(seat) is int and 0 <= seat < 1024
                           else str(seat))
                separator = ","
            out.append('],"logged_at":')
        sent_micros = micros(sent) if type(sent) is float else -1
        if sent_micros >= 0:  # "%.6f" without formatting a float; the whole second kept
            second = sent_micros // 1000000
            if second != last_second:
                last_second = second
                second_text = f"{second}."
            out.append(second_text)
            # Not ``sent_micros - second * 1000000``: mypyc multiplies a factor of 2**30 or
            # more (the seconds since 1970) as boxed ints, ~1,300 instructions a line.
            fraction = sent_micros % 1000000
            out.append(_DIGITS3[fraction // 1000])
            out.append(_DIGITS3[fraction % 1000])
        else:
            out.append(f"{sent:.6f}")
        try:
            if type(notice) is not Notice:
                raise Unusual
            # The notice's ids and time: spelled again only when they change (the ids are the
            # same string objects line after line of a hand; copies of an event share a time).
            if notice.match_id is not match_id or notice.hand_id is not hand_id:
                event_ids = (f',"event":{{"match_id":{_str(notice.match_id)},"hand_id":'
                             f'{_id_str(notice.hand_id)},"sequence":')
                match_id = notice.match_id
                hand_id = notice.hand_id
            out.append(event_ids)
            out.append(_int(notice.sequence))
            seconds: object = notice.unix_seconds
            if type(seconds) is not float or seconds != last_seconds or seconds == 0.0:
                seconds_text = f',"server_unix_seconds":{_float(seconds)},'
                last_seconds = seconds
            out.append(seconds_text)
            _payload(out, notice.payload)
        except Unusual:
            del out[start:]
            out.append(unusual(notice, seats, sent))  # type: ignore[arg-type]
            continue
        out.append("}}\n")  # the notice's and the line's
    return "".join(out)
