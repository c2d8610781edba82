"""The hand-written wire encoding: serialized ``DealerMessage`` bytes built once and reused.

Protobuf's wire format lets repeated and length-delimited fields be concatenated, so a public
event is encoded once for every seat, action records once per hand, and batches are spliced
from already-serialized messages. What each message holds is :mod:`arena.server.convert`.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Final, TypeVar

from arena.engine.cards import RANKS
from arena.engine.games import variant_for
from arena.engine.rules import Stakes
from arena.match import messages as m
from arena.match.faults import DecisionClosed
from arena.server.convert import (
    BETTING,
    CARD_TEXT,
    GAMES,
    HALVES,
    KINDS_OUT,
    REASONS,
    STATUSES,
    STREETS,
    decision_closed,
    event,
    legal_action,
    pot,
    rejection,
    stakes,
)
from arena.server.wirebytes import TRUE, number, tag
from arena.server.wirebytes import double as _double
from arena.server.wirebytes import field as _field
from arena.server.wirebytes import signed as _signed
from arena.server.wirebytes import text as _text
from arena.server.wirebytes import timestamp as _timestamp
from arena.server.wirebytes import varint as _varint
from arena.v1 import arena_pb2 as pb


class Encoder:
    """Serializes outgoing items, reusing what repeats.

    A public event goes to every seat but is encoded once; action records repeat in every
    later decision request of a hand and are converted once (a hand's history is kept as
    bytes, growing). The caches hold the objects
    they are keyed by (by identity), so an id is never reused while cached.

    The caches are small on purpose: what they hold survives the garbage collector's young
    generation, and each young collection walks all of it (a dealer's pauses). An event is
    only ever encoded again in the fan-out that delivers it to every seat, one call after the
    other, so ``event_cache_size`` events suffice; the seats, pots and histories are reused
    across a hand's requests, so ``cache_size`` should exceed the seats of the tables dealt
    at once (a miss only costs encoding again).
    """

    def __init__(self, cache_size: int = 1024, event_cache_size: int = 64) -> None:
        self._cache_size = cache_size
        self._event_cache_size = event_cache_size
        # Oldest first; dict's "first key" is O(n) after many deletions, OrderedDict's is O(1).
        self._events: OrderedDict[int, tuple[m.Notice, bytes, bytes]] = OrderedDict()
        # hand id -> (its last record so far, how many, their framed bytes, each unframed)
        self._histories: OrderedDict[
            str, tuple[m.ActionRecord, int, bytes, tuple[bytes, ...]]] = OrderedDict()
        # seat -> (it, its request entry, its SeatState bytes)
        self._seats: OrderedDict[int, tuple[m.SeatInfo, bytes, bytes]] = OrderedDict()
        self._heads: OrderedDict[tuple[str, int], bytes] = OrderedDict()  # (hand id, seat)
        self._pot_lists: OrderedDict[int, tuple[tuple[m.PotInfo, ...], bytes]] = OrderedDict()
        self._legal: OrderedDict[int, tuple[tuple[m.LegalChoice, ...], bytes]] = OrderedDict()
        self._stakes_bytes: dict[tuple[Stakes, str], bytes] = {}  # unframed ``Stakes``

    def event_message(self, notice: m.Notice) -> bytes:
        """The serialized ``Event`` of a notice, as :meth:`encode` sends it in a
        ``DealerMessage`` (not cached: the event log's records hold it). The events every seat
        gets one of per hand or action are written on the wire format directly; the others
        (a street's end and a showdown too: no measured gain) are built as messages."""
        payload = notice.payload
        if isinstance(payload, m.ActionTaken):
            return self._event_bytes(notice, _action_taken(payload))
        if isinstance(payload, m.CardsDealt):
            return self._event_bytes(notice, self._cards_dealt(payload))
        if isinstance(payload, m.HandStarted):
            return self._event_bytes(notice, self._hand_started(payload))
        if isinstance(payload, m.HandSummary):
            return self._event_bytes(notice, self._hand_summary(payload, notice.hand_id))
        return event(notice).SerializeToString()

    def _event(self, notice: m.Notice) -> tuple[m.Notice, bytes, bytes]:
        found = self._events.get(id(notice))
        if found is None:
            data = _field(_EVENT_FIELD, self.event_message(notice))
            found = (notice, data, _field(_BATCH_MESSAGES_FIELD, data))
            cache = self._events
            cache[id(notice)] = found
            if len(cache) > self._event_cache_size:
                cache.popitem(last=False)  # the oldest, O(1)
        return found

    def _history(self, actions: tuple[m.ActionRecord, ...], hand_id: str) -> bytes:
        """``DecisionRequest.actions`` entries (field 15), serialized and framed. A hand's
        history only grows (every seat's requests share it), so the bytes so far are kept per
        hand and only the new records are converted; the last record kept (by identity)
        proves the history is the one the bytes were made from."""
        if not actions:
            return b""
        return self._records(actions, hand_id)[2]

    def _records(self, actions: tuple[m.ActionRecord, ...], hand_id: str
                 ) -> tuple[m.ActionRecord, int, bytes, tuple[bytes, ...]]:
        """The history cache's entry for ``actions`` (not empty), brought up to date: the
        records framed as ``DecisionRequest.actions`` and each unframed (the hand's summary
        frames them as its own field)."""
        count = len(actions)
        found = self._histories.get(hand_id)
        if found is not None and found[1] == count and actions[-1] is found[0]:
            return found
        done, data = 0, b""
        records: tuple[bytes, ...] = ()
        if found is not None and found[1] < count and actions[found[1] - 1] is found[0]:
            done, data, records = found[1], found[2], found[3]
        new = tuple([_action_record(a) for a in actions[done:]])
        data += b"".join([_field(_ACTIONS_FIELD, r) for r in new])
        found = (actions[-1], count, data, records + new)
        cache = self._histories
        cache[hand_id] = found
        if len(cache) > self._cache_size:
            cache.popitem(last=False)
        return found

    def _seat_entry(self, seat: m.SeatInfo) -> tuple[m.SeatInfo, bytes, bytes]:
        """The seat, its ``DecisionRequest.seats`` entry (field 10, framed) and its
        ``SeatState`` bytes; a seat that has not changed is the same object from one request
        to the next (see ``HandFeed.seat_infos``)."""
        found = self._seats.get(id(seat))
        if found is None:
            data = _seat_state(seat)
            found = (seat, _field(_SEATS_FIELD, data), data)
            cache = self._seats
            cache[id(seat)] = found
            if len(cache) > self._cache_size:
                cache.popitem(last=False)
        return found

    def _event_bytes(self, notice: m.Notice, payload: bytes) -> bytes:
        """An ``Event``: what :func:`arena.server.convert.event` fills around the payload (its
        field, framed), written directly."""
        head = (_text(_EVENT_MATCH_ID_TAG, notice.match_id) if notice.match_id else b"") + (
            _text(_EVENT_HAND_ID_TAG, notice.hand_id) if notice.hand_id else b"")
        sequence = notice.sequence
        return b"".join([head, _EVENT_SEQUENCE_TAG + _varint(sequence) if sequence else b"",
                         _timestamp(_EVENT_TIME_TAG, notice.unix_seconds), payload])

    def _cards_dealt(self, p: m.CardsDealt) -> bytes:
        """``Event.cards_dealt``, framed (as :mod:`arena.server.convert` fills it)."""
        street = STREETS[p.street]
        return _field(_CARDS_DEALT_FIELD, b"".join([
            _CD_STREET_TAG + _varint(street) if street else b"",
            _CD_SEAT_TAG + _signed(p.seat) if p.seat else b"",
            *[_CD_UP_ENTRIES[c] for c in p.up_cards],
            *[_CD_HOLE_ENTRIES[c] for c in p.hole_cards],
            _CD_COUNT_TAG + _signed(p.hole_card_count) if p.hole_card_count else b""]))

    def _hand_started(self, p: m.HandStarted) -> bytes:
        """``Event.hand_started``, framed; each seat's and the stakes' bytes (the same for
        every viewer) from the caches."""
        stakes_data = _field(_HS_STAKES_FIELD, self._stakes_data(p.stakes, p.game))
        game = GAMES[p.game]
        return _field(_HAND_STARTED_FIELD, b"".join([
            _HS_HAND_NUMBER_TAG + _signed(p.hand_number) if p.hand_number else b"",
            _HS_GAME_TAG + _varint(game) if game else b"",
            _text(_HS_GAME_CODE_TAG, p.game) if p.game else b"",
            _HS_BUTTON_TAG + _signed(p.button_seat) if p.button_seat else b"",
            _HS_YOUR_SEAT_TAG + _signed(p.your_seat) if p.your_seat else b"",
            *[_field(_HS_SEATS_FIELD, self._seat_entry(s)[2]) for s in p.seats], stakes_data,
            _HS_COPY_TAG + _signed(p.duplicate_copy) if p.duplicate_copy else b"",
            _text(_HS_DEAL_ID_TAG, p.deal_id) if p.deal_id else b"",
            _HS_GAME_HAND_TAG + _signed(p.game_hand_number) if p.game_hand_number else b""]))

    def _hand_summary(self, p: m.HandSummary, hand_id: str) -> bytes:
        """``Event.hand_ended`` of a ``HandSummary`` (one per hand), framed, on the wire format
        directly; its seats' bytes come from the seat cache, its records from the hand's
        history (the requests' records)."""
        records = self._records(p.actions, hand_id)[3] if p.actions else ()
        return _field(_HAND_ENDED_FIELD, b"".join([
            *[_field(_HE_RESULTS_FIELD, b"".join([
                _SR_SEAT + _signed(r.seat) if r.seat else b"",
                _SR_NET + _signed(r.net_chips) if r.net_chips else b"",
                _SR_STACK + _signed(r.final_stack_chips) if r.final_stack_chips else b""]))
              for r in p.results],
            *[_field(_HE_AWARDS_FIELD, b"".join([
                _PA_INDEX + _signed(a.pot_index) if a.pot_index else b"",
                _PA_AMOUNT + _signed(a.amount_chips) if a.amount_chips else b"",
                _PA_HALVES[a.half],
                *[_field(_PA_WINNERS_FIELD, (_WS_SEAT + _signed(seat) if seat else b"")
                         + (_WS_AMOUNT + _signed(chips) if chips else b""))
                  for seat, chips in a.winners]]))
              for a in p.awards],
            _HE_VOIDED if p.voided else b"",
            _text(_HE_REASON_TAG, p.void_reason) if p.void_reason else b"",
            _HE_SHOWDOWN if p.went_to_showdown else b"",
            *[_field(_HE_ACTIONS_FIELD, r) for r in records],
            *[_HE_BOARD_ENTRIES[c] for c in p.board],
            *[_field(_HE_SEATS_FIELD, self._seat_entry(s)[2]) for s in p.seats]]))

    def _pots(self, pots: tuple[m.PotInfo, ...]) -> bytes:
        """``DecisionRequest.pots`` entries (field 7), serialized and framed; the pots stay the
        same tuple while they do not change (see ``HandFeed._pots``)."""
        found = self._pot_lists.get(id(pots))
        if found is None:
            found = (pots, b"".join(_field(_POTS_FIELD, pot(x).SerializeToString())
                                    for x in pots))
            cache = self._pot_lists
            cache[id(pots)] = found
            if len(cache) > self._cache_size:
                cache.popitem(last=False)
        return found[1]

    def _legal_actions(self, legal: tuple[m.LegalChoice, ...]) -> bytes:
        """``DecisionRequest.legal_actions`` entries (field 18), serialized and framed; equal
        choices are the same tuple (see ``arena.match.feed.legal_choices``)."""
        found = self._legal.get(id(legal))
        if found is None:
            found = (legal, b"".join([_field(_LEGAL_FIELD, legal_action(c).SerializeToString())
                                      for c in legal]))
            cache = self._legal
            cache[id(legal)] = found
            if len(cache) > self._cache_size:
                cache.popitem(last=False)
        return found[1]

    def _changes(self, p: m.Prompt) -> bytes:
        """The fields of :func:`arena.server.convert.decision_request` that change from one
        request to the next but the pots, seats and history, written on the wire format
        directly (building that message field by field cost twice as much)."""
        out = [_text(_DECISION_ID_TAG, p.decision_id)]
        street = STREETS[p.street]
        if street:
            out += (_STREET_TAG, _varint(street))
        out += [_HOLE_CARD_ENTRIES[c] for c in p.hole_cards]
        out += [_BOARD_CARD_ENTRIES[c] for c in p.board]
        if p.pot_total_chips:
            out += (_POT_TOTAL_TAG, _signed(p.pot_total_chips))
        if p.current_bet_chips:
            out += (_CURRENT_BET_TAG, _signed(p.current_bet_chips))
        if p.to_call_chips:
            out += (_TO_CALL_TAG, _signed(p.to_call_chips))
        out.append(self._legal_actions(p.legal))
        if p.bet_size_chips:
            out += (_BET_SIZE_TAG, _signed(p.bet_size_chips))
        if p.raises_left:
            out += (_RAISES_LEFT_TAG, _signed(p.raises_left))
        out.append(_timestamp(_DEADLINE_TAG, p.deadline_unix_seconds))
        if p.decision_time_left_seconds:
            out += (_DECISION_LEFT_TAG, _double(p.decision_time_left_seconds))
        if p.time_bank_left_seconds:
            out += (_BANK_LEFT_TAG, _double(p.time_bank_left_seconds))
        out.append(_timestamp(_SERVER_TIME_TAG, p.sent_unix_seconds))
        if p.wild_ranks or p.low_wild_ranks:  # docs/house-rules.md §23, §24
            out += [_WILD_RANK_ENTRIES[r] for r in p.wild_ranks]
            out += [_LOW_WILD_RANK_ENTRIES[r] for r in p.low_wild_ranks]
        return b"".join(out)

    def _head(self, p: m.Prompt) -> bytes:
        """What every request of a hand to one seat shares (ids, game, numbers, stakes): those
        fields of :func:`arena.server.convert.decision_request`, in field order."""
        key = (p.hand_id, p.seat)
        found = self._heads.get(key)
        if found is None:
            game = GAMES[p.game]
            betting = _BETTINGS[p.game]  # the same games as GAMES: an unknown one failed above
            found = b"".join([
                _text(_RH_MATCH_ID_TAG, p.match_id) if p.match_id else b"",
                _text(_RH_HAND_ID_TAG, p.hand_id) if p.hand_id else b"",
                _RH_GAME_TAG + _varint(game) if game else b"",
                _text(_RH_GAME_CODE_TAG, p.game) if p.game else b"",
                _RH_HAND_NUMBER_TAG + _signed(p.hand_number) if p.hand_number else b"",
                _RH_BUTTON_TAG + _signed(p.button_seat) if p.button_seat else b"",
                _RH_YOUR_SEAT_TAG + _signed(p.seat) if p.seat else b"",
                _field(_RH_STAKES_FIELD, self._stakes_data(p.stakes, p.game)),
                _RH_GAME_HAND_TAG + _signed(p.game_hand_number) if p.game_hand_number else b"",
                _RH_HANDS_PER_GAME_TAG + _signed(p.hands_per_game) if p.hands_per_game else b"",
                _RH_BETTING_TAG + _varint(betting) if betting else b""])
            cache = self._heads
            cache[key] = found
            if len(cache) > self._cache_size:
                cache.popitem(last=False)
        return found

    def _stakes_data(self, value: Stakes, game: str) -> bytes:
        """A hand's ``Stakes`` (:func:`arena.server.convert.stakes`), serialized, unframed."""
        key = (value, game)
        found = self._stakes_bytes.get(key)
        if found is None:
            found = self._stakes_bytes[key] = stakes(value, game=game).SerializeToString()
        return found

    def encode(self, item: m.Outgoing | pb.DealerMessage) -> bytes:
        """The serialized ``DealerMessage`` of one item."""
        if isinstance(item, m.Notice):
            return self._event(item)[1]
        if isinstance(item, m.Prompt):
            # Fields may come in any order on the wire and repeated ones concatenate, so what
            # repeats is spliced in as bytes: the hand's head, unchanged seats, the history.
            return _field(_DECISION_REQUEST_FIELD, b"".join([
                self._head(item),
                self._changes(item),
                self._pots(item.pots),
                *[self._seat_entry(s)[1] for s in item.seats],
                self._history(item.actions, item.hand_id)]))
        if isinstance(item, m.Rejection):
            return pb.DealerMessage(action_rejected=rejection(item)).SerializeToString()
        if isinstance(item, DecisionClosed):
            return pb.DealerMessage(decision_closed=decision_closed(item)).SerializeToString()
        return item.SerializeToString()

    def batch_of(self, encoded: Sequence[tuple[m.Outgoing | pb.DealerMessage, bytes]]) -> bytes:
        """One ``DealerMessage.batch`` of items already encoded by :meth:`encode`."""
        parts = []
        for item, data in encoded:
            found = self._events.get(id(item)) if isinstance(item, m.Notice) else None
            parts.append(found[2] if found is not None and found[0] is item
                         else _field(_BATCH_MESSAGES_FIELD, data))
        return _field(_BATCH_FIELD, b"".join(parts))


def batch(encoded: list[bytes]) -> bytes:
    """A ``DealerMessage`` with ``batch`` holding the given serialized messages.

    Built on the wire format directly: a repeated message field is the concatenation of
    (tag, length, bytes), so already-serialized messages are reused as they are.
    """
    return _field(_BATCH_FIELD, b"".join(_field(_BATCH_MESSAGES_FIELD, d) for d in encoded))


_DECISION_REQUEST_FIELD: Final = pb.DealerMessage.DESCRIPTOR.fields_by_name["decision_request"].number
_ACTIONS_FIELD: Final = pb.DecisionRequest.DESCRIPTOR.fields_by_name["actions"].number
_SEATS_FIELD: Final = pb.DecisionRequest.DESCRIPTOR.fields_by_name["seats"].number
_POTS_FIELD: Final = pb.DecisionRequest.DESCRIPTOR.fields_by_name["pots"].number
_BATCH_FIELD: Final = pb.DealerMessage.DESCRIPTOR.fields_by_name["batch"].number
_BATCH_MESSAGES_FIELD: Final = pb.MessageBatch.DESCRIPTOR.fields_by_name["messages"].number


_LEGAL_FIELD: Final = number(pb.DecisionRequest, "legal_actions")
_DECISION_ID_TAG: Final = tag(pb.DecisionRequest, "decision_id")
_STREET_TAG: Final = tag(pb.DecisionRequest, "street")
_POT_TOTAL_TAG: Final = tag(pb.DecisionRequest, "pot_total_chips")
_CURRENT_BET_TAG: Final = tag(pb.DecisionRequest, "current_bet_chips")
_TO_CALL_TAG: Final = tag(pb.DecisionRequest, "amount_to_call_chips")
_BET_SIZE_TAG: Final = tag(pb.DecisionRequest, "bet_size_chips")
_RAISES_LEFT_TAG: Final = tag(pb.DecisionRequest, "raises_left")
_DEADLINE_TAG: Final = tag(pb.DecisionRequest, "decision_deadline")
_DECISION_LEFT_TAG: Final = tag(pb.DecisionRequest, "decision_time_left_seconds")
_BANK_LEFT_TAG: Final = tag(pb.DecisionRequest, "time_bank_left_seconds")
_SERVER_TIME_TAG: Final = tag(pb.DecisionRequest, "server_time")
_RH_MATCH_ID_TAG: Final = tag(pb.DecisionRequest, "match_id")
_RH_HAND_ID_TAG: Final = tag(pb.DecisionRequest, "hand_id")
_RH_GAME_TAG: Final = tag(pb.DecisionRequest, "game")
_RH_GAME_CODE_TAG: Final = tag(pb.DecisionRequest, "game_code")
_RH_HAND_NUMBER_TAG: Final = tag(pb.DecisionRequest, "hand_number")
_RH_BUTTON_TAG: Final = tag(pb.DecisionRequest, "button_seat")
_RH_YOUR_SEAT_TAG: Final = tag(pb.DecisionRequest, "your_seat")
_RH_STAKES_FIELD: Final = number(pb.DecisionRequest, "stakes")
_RH_GAME_HAND_TAG: Final = tag(pb.DecisionRequest, "game_hand_number")
_RH_HANDS_PER_GAME_TAG: Final = tag(pb.DecisionRequest, "hands_per_game")
_RH_BETTING_TAG: Final = tag(pb.DecisionRequest, "betting")
# A game's betting structure by its code (``decision_request``'s ``betting``).
_BETTINGS: Final[dict[str, int]] = {code: BETTING[variant_for(code).betting] for code in GAMES}


def _card_entries(tag: bytes) -> tuple[bytes, ...]:
    """Each card as a whole entry of a repeated card field (tag, length, text), by card."""
    return tuple(_text(tag, text) for text in CARD_TEXT)


_K = TypeVar("_K")


def _enum_fields(tag: bytes, numbers: Mapping[_K, int]) -> dict[_K, bytes]:
    """An enum field, tag and value, for each key of ``numbers`` (nothing for the zero value)."""
    return {key: tag + _varint(number) if number else b"" for key, number in numbers.items()}


_HOLE_CARD_ENTRIES: Final = _card_entries(tag(pb.DecisionRequest, "hole_cards"))
_BOARD_CARD_ENTRIES: Final = _card_entries(tag(pb.DecisionRequest, "board_cards"))
_WILD_RANK_ENTRIES: Final = tuple(_text(tag(pb.DecisionRequest, "wild_ranks"), r) for r in RANKS)
_LOW_WILD_RANK_ENTRIES: Final = tuple(_text(tag(pb.DecisionRequest, "low_wild_ranks"), r) for r in RANKS)

_EVENT_FIELD: Final = number(pb.DealerMessage, "event")
_EVENT_MATCH_ID_TAG: Final = tag(pb.Event, "match_id")
_EVENT_HAND_ID_TAG: Final = tag(pb.Event, "hand_id")
_EVENT_SEQUENCE_TAG: Final = tag(pb.Event, "sequence")
_EVENT_TIME_TAG: Final = tag(pb.Event, "server_time")
_CARDS_DEALT_FIELD: Final = number(pb.Event, "cards_dealt")
_CD_STREET_TAG: Final = tag(pb.CardsDealt, "street")
_CD_SEAT_TAG: Final = tag(pb.CardsDealt, "seat")
_CD_UP_ENTRIES: Final = _card_entries(tag(pb.CardsDealt, "up_cards"))
_CD_HOLE_ENTRIES: Final = _card_entries(tag(pb.CardsDealt, "hole_cards"))
_CD_COUNT_TAG: Final = tag(pb.CardsDealt, "hole_card_count")
_HAND_STARTED_FIELD: Final = number(pb.Event, "hand_started")
_HS_HAND_NUMBER_TAG: Final = tag(pb.HandStarted, "hand_number")
_HS_GAME_TAG: Final = tag(pb.HandStarted, "game")
_HS_GAME_CODE_TAG: Final = tag(pb.HandStarted, "game_code")
_HS_BUTTON_TAG: Final = tag(pb.HandStarted, "button_seat")
_HS_YOUR_SEAT_TAG: Final = tag(pb.HandStarted, "your_seat")
_HS_SEATS_FIELD: Final = number(pb.HandStarted, "seats")
_HS_STAKES_FIELD: Final = number(pb.HandStarted, "stakes")
_HS_COPY_TAG: Final = tag(pb.HandStarted, "duplicate_copy")
_HS_DEAL_ID_TAG: Final = tag(pb.HandStarted, "deal_id")
_HS_GAME_HAND_TAG: Final = tag(pb.HandStarted, "game_hand_number")
_HAND_ENDED_FIELD: Final = number(pb.Event, "hand_ended")
_HE_RESULTS_FIELD: Final = number(pb.HandEnded, "results")
_HE_AWARDS_FIELD: Final = number(pb.HandEnded, "awards")
_HE_VOIDED: Final = tag(pb.HandEnded, "voided") + TRUE
_HE_REASON_TAG: Final = tag(pb.HandEnded, "void_reason")
_HE_SHOWDOWN: Final = tag(pb.HandEnded, "went_to_showdown") + TRUE
_HE_ACTIONS_FIELD: Final = number(pb.HandEnded, "actions")
_SR_SEAT: Final = tag(pb.SeatResult, "seat")
_SR_NET: Final = tag(pb.SeatResult, "net_chips")
_SR_STACK: Final = tag(pb.SeatResult, "final_stack_chips")
_PA_INDEX: Final = tag(pb.PotAward, "pot_index")
_PA_AMOUNT: Final = tag(pb.PotAward, "amount_chips")
_PA_WINNERS_FIELD: Final = number(pb.PotAward, "winners")
_WS_SEAT: Final = tag(pb.WinnerShare, "seat")
_WS_AMOUNT: Final = tag(pb.WinnerShare, "amount_chips")
_HE_BOARD_ENTRIES: Final = _card_entries(tag(pb.HandEnded, "board_cards"))
_PA_HALVES: Final = _enum_fields(tag(pb.PotAward, "half"), HALVES)
_HE_SEATS_FIELD: Final = number(pb.HandEnded, "seats")


_SS_SEAT: Final = tag(pb.SeatState, "seat")
_SS_STACK: Final = tag(pb.SeatState, "stack_chips")
_SS_BET: Final = tag(pb.SeatState, "bet_chips")
_SS_COMMITTED: Final = tag(pb.SeatState, "total_committed_chips")
_SS_HOLE_COUNT: Final = tag(pb.SeatState, "hole_card_count")
_SS_STATUS: Final = tag(pb.SeatState, "status")
_SS_NAME_TAG: Final = tag(pb.SeatState, "name")
_SS_UP_ENTRIES: Final = _card_entries(tag(pb.SeatState, "up_cards"))
_SS_STATUSES: Final = _enum_fields(_SS_STATUS, STATUSES)
_SS_BOT_ID_TAG: Final = tag(pb.SeatState, "bot_id")


def _seat_state(s: m.SeatInfo) -> bytes:
    """A ``SeatState`` (what ``convert.seat_state`` fills) on the wire format directly."""
    return b"".join([
        _SS_SEAT + _signed(s.seat) if s.seat else b"",
        _text(_SS_NAME_TAG, s.name) if s.name else b"",
        _SS_STACK + _signed(s.stack_chips) if s.stack_chips else b"",
        _SS_BET + _signed(s.bet_chips) if s.bet_chips else b"",
        _SS_COMMITTED + _signed(s.committed_chips) if s.committed_chips else b"",
        *[_SS_UP_ENTRIES[c] for c in s.up_cards],
        _SS_HOLE_COUNT + _signed(s.hole_card_count) if s.hole_card_count else b"",
        _SS_STATUSES[s.status],
        _text(_SS_BOT_ID_TAG, s.bot_id) if s.bot_id else b""])


_AR_SEAT: Final = tag(pb.ActionRecord, "seat")
_AR_STREET: Final = tag(pb.ActionRecord, "street")
_AR_KIND: Final = tag(pb.ActionRecord, "kind")
_AR_RAISE_TO: Final = tag(pb.ActionRecord, "raise_to_chips")
_AR_AMOUNT: Final = tag(pb.ActionRecord, "amount_chips")
_AR_ROUND_BET: Final = tag(pb.ActionRecord, "round_bet_chips")
_AR_ALL_IN: Final = tag(pb.ActionRecord, "is_all_in")
_AR_AUTOMATIC: Final = tag(pb.ActionRecord, "automatic")
_AR_REASON: Final = tag(pb.ActionRecord, "automatic_reason")
_AR_EXCHANGE_COUNT: Final = tag(pb.ActionRecord, "exchange_card_count")
_AR_EXCHANGED_ENTRIES: Final = _card_entries(tag(pb.ActionRecord, "exchanged_cards"))
_AR_DRAWN_ENTRIES: Final = _card_entries(tag(pb.ActionRecord, "drawn_cards"))
_AR_FACE_UP: Final = tag(pb.ActionRecord, "exchange_face_up") + TRUE
_AR_STREETS: Final = _enum_fields(_AR_STREET, STREETS)
_AR_KINDS: Final = _enum_fields(_AR_KIND, KINDS_OUT)
_AR_REASONS: Final = {reason: (_AR_AUTOMATIC + TRUE if reason is not None else b"")
               + (_AR_REASON + _varint(number) if number else b"")
               for reason, number in REASONS.items()}


def _action_record(a: m.ActionRecord) -> bytes:
    """An ``ActionRecord`` (what ``convert.action_record`` fills) on the wire format directly."""
    return b"".join([
        _AR_SEAT + _signed(a.seat) if a.seat else b"",
        _AR_STREETS[a.street], _AR_KINDS[a.kind],
        _AR_RAISE_TO + _signed(a.raise_to_chips) if a.raise_to_chips else b"",
        _AR_AMOUNT + _signed(a.amount_chips) if a.amount_chips else b"",
        _AR_ROUND_BET + _signed(a.round_bet_chips) if a.round_bet_chips else b"",
        _AR_ALL_IN + TRUE if a.is_all_in else b"",
        _AR_REASONS[a.automatic],  # then an exchange's fields (docs/house-rules.md §26)
        _AR_EXCHANGE_COUNT + _signed(a.exchange_card_count) if a.exchange_card_count else b"",
        *[_AR_EXCHANGED_ENTRIES[c] for c in a.exchanged_cards],
        *[_AR_DRAWN_ENTRIES[c] for c in a.drawn_cards], _AR_FACE_UP if a.exchange_face_up else b""])


_ACTION_TAKEN_FIELD: Final = number(pb.Event, "action_taken")
_AT_ACTION_FIELD: Final = number(pb.ActionTaken, "action")
_AT_STACK: Final = tag(pb.ActionTaken, "stack_after_chips")
_AT_POT: Final = tag(pb.ActionTaken, "pot_total_after_chips")
_AT_DECISION_TAG: Final = tag(pb.ActionTaken, "decision_id")
_AT_DRAWN: Final = tag(pb.ActionTaken, "drawn_from_strategy") + TRUE


def _action_taken(p: m.ActionTaken) -> bytes:
    """``Event.action_taken`` (what :mod:`arena.server.convert` fills), framed, on the wire
    format directly (one per action, the same for every seat)."""
    return _field(_ACTION_TAKEN_FIELD, b"".join([
        _field(_AT_ACTION_FIELD, _action_record(p.action)),
        _AT_STACK + _signed(p.stack_after_chips) if p.stack_after_chips else b"",
        _AT_POT + _signed(p.pot_total_after_chips) if p.pot_total_after_chips else b"",
        _text(_AT_DECISION_TAG, p.decision_id) if p.decision_id else b"",
        _AT_DRAWN if p.strategy else b""]))
