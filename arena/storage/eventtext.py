"""The JSONL event log's lines written as text by typed code, one writer per message type:
byte for byte what the plain walk (:func:`plain`, then ``json.dumps``) writes, about 3x faster
(docs/performance.md, "Fast paths and the compiled build"). Whatever a writer does not expect
(a value of another type than its field's, a payload of no message type) raises
:class:`Unusual`: that line is left to the plain walk (``arena/storage/eventlog.py``).

Spelling as ``json.dumps`` writes it: strings (and str enums) by the standard library's own
``encode_basestring_ascii``; ints by ``str``; floats by ``repr``, NaN and the infinities as
``NaN``, ``Infinity``, ``-Infinity``; card numbers 0-51 of fields named ``...cards`` by name.
A writer writes the fields of its type in the order of its ``__slots__`` (what the plain walk
walks); tests/storage/test_eventlog_json.py fails when a message gets a field its writer
leaves out.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from arena.match.messages import (
    ActionAnnounced,
    BoardAnnounced,
    CardsDealt,
    DuplicateCopyStarted,
    GameChanged,
    HandEnded,
    HandStarted,
    HandSummary,
    MatchEnded,
    MatchStarted,
    Notice,
    ShowdownAnnounced,
    StreetEnded,
)
from arena.storage.eventleaves import (
    _SMALL_INTS,
    Unusual,
    _action_record,
    _action_records,
    _bool,
    _cards,
    _float,
    _hand_started_middle,
    _id_str,
    _int,
    _int_rows,
    _match_seat_results,
    _pot_awards,
    _pot_infos,
    _rules,
    _seat_infos,
    _seat_results,
    _shown_hands,
    _stakes,
    _str,
    _strs,
    _tournament,
    _tuple,
)


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
    # Dealer's choice (docs/house-rules.md §28): who chose, whether the dealer did for it.
    out.append(',"dealers_choice":')
    out.append(_bool(p.dealers_choice))
    out.append(',"chooser_seat":')
    out.append(_int(p.chooser_seat))
    out.append(',"automatic":null' if p.automatic is None else ',"automatic":')
    if p.automatic is not None:
        out.append(_str(p.automatic))
    out.append(',"hands":')
    out.append(_int(p.hands))
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
            out.append(unusual(notice, seats, sent))  # type: ignore[arg-type]  # the row as given: its types are what made it unusual
            continue
        out.append("}}\n")  # the notice's and the line's
    return "".join(out)
