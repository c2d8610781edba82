"""The hand-written wire encoding: serialized ``DealerMessage`` bytes built once and reused.

Protobuf's wire format lets repeated and length-delimited fields be concatenated, so a public
event is encoded once for every seat, action records once per hand, and batches are spliced
from already-serialized messages. What each message holds is :mod:`arena.server.convert`.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence

from arena.engine.rules import Stakes
from arena.match import messages as m
from arena.server.convert import (
    action_record,
    event,
    pot,
    rejection,
    request_changes,
    request_head,
    seat_state,
    stakes,
)
from arena.v1 import arena_pb2 as pb


class Encoder:
    """Serializes outgoing items, reusing what repeats.

    A public event goes to every seat but is encoded once; action records repeat in every
    later decision request of a hand and are converted once (a hand's history is kept as
    bytes, growing). The caches hold the objects
    they are keyed by (by identity), so an id is never reused while cached.
    """

    def __init__(self, cache_size: int = 4096) -> None:
        self._cache_size = cache_size
        # Oldest first; dict's "first key" is O(n) after many deletions, OrderedDict's is O(1).
        self._events: OrderedDict[int, tuple[m.Notice, bytes, bytes]] = OrderedDict()
        # hand id -> (its last record so far, how many, their bytes)
        self._histories: OrderedDict[str, tuple[m.ActionRecord, int, bytes]] = OrderedDict()
        self._seats: OrderedDict[int, tuple[m.SeatInfo, bytes]] = OrderedDict()
        self._heads: OrderedDict[tuple[str, int], bytes] = OrderedDict()  # (hand id, seat)
        self._pot_lists: OrderedDict[int, tuple[tuple[m.PotInfo, ...], bytes]] = OrderedDict()
        self._stakes: dict[tuple[Stakes, str], pb.Stakes] = {}

    def _event(self, notice: m.Notice) -> tuple[m.Notice, bytes, bytes]:
        found = self._events.get(id(notice))
        if found is None:
            data = pb.DealerMessage(event=event(notice)).SerializeToString()
            found = (notice, data, _field(_BATCH_MESSAGES_FIELD, data))
            cache = self._events
            cache[id(notice)] = found
            if len(cache) > self._cache_size:
                cache.popitem(last=False)  # the oldest, O(1)
        return found

    def _history(self, actions: tuple[m.ActionRecord, ...], hand_id: str) -> bytes:
        """``DecisionRequest.actions`` entries (field 15), serialized and framed. A hand's
        history only grows (every seat's requests share it), so the bytes so far are kept per
        hand and only the new records are converted; the last record kept (by identity)
        proves the history is the one the bytes were made from."""
        count = len(actions)
        if not count:
            return b""
        found = self._histories.get(hand_id)
        if found is not None and found[1] == count and actions[-1] is found[0]:
            return found[2]
        done, data = 0, b""
        if found is not None and found[1] < count and actions[found[1] - 1] is found[0]:
            done, data = found[1], found[2]
        data += b"".join([_field(_ACTIONS_FIELD, action_record(a).SerializeToString())
                          for a in actions[done:]])
        cache = self._histories
        cache[hand_id] = (actions[-1], count, data)
        if len(cache) > self._cache_size:
            cache.popitem(last=False)
        return data

    def _seat(self, seat: m.SeatInfo) -> bytes:
        """``DecisionRequest.seats`` entry (field 10), serialized and framed; a seat that has not
        changed is the same object from one request to the next (see ``HandFeed.seat_infos``)."""
        found = self._seats.get(id(seat))
        if found is None:
            found = (seat, _field(_SEATS_FIELD, seat_state(seat).SerializeToString()))
            cache = self._seats
            cache[id(seat)] = found
            if len(cache) > self._cache_size:
                cache.popitem(last=False)
        return found[1]

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

    def _head(self, p: m.Prompt) -> bytes:
        """What every request of a hand to one seat shares (ids, game, numbers, stakes)."""
        key = (p.hand_id, p.seat)
        found = self._heads.get(key)
        if found is None:
            found = request_head(p, stakes_of=self._stakes_of).SerializeToString()
            cache = self._heads
            cache[key] = found
            if len(cache) > self._cache_size:
                cache.popitem(last=False)
        return found

    def _stakes_of(self, value: Stakes, game: str) -> pb.Stakes:
        key = (value, game)
        found = self._stakes.get(key)
        if found is None:
            found = self._stakes[key] = stakes(value, game=game)
        return found

    def encode(self, item: m.Outgoing | pb.DealerMessage) -> bytes:
        """The serialized ``DealerMessage`` of one item."""
        if isinstance(item, m.Notice):
            return self._event(item)[1]
        if isinstance(item, m.Prompt):
            # Fields may come in any order on the wire and repeated ones concatenate, so what
            # repeats is spliced in as bytes: the hand's head, unchanged seats, the history.
            seat = self._seat
            return _field(_DECISION_REQUEST_FIELD, b"".join([
                self._head(item),
                request_changes(item, with_pots=False).SerializeToString(),
                self._pots(item.pots),
                *[seat(s) for s in item.seats],
                self._history(item.actions, item.hand_id)]))
        if isinstance(item, m.Rejection):
            return pb.DealerMessage(action_rejected=rejection(item)).SerializeToString()
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


def _field(number: int, data: bytes) -> bytes:
    """A length-delimited field (wire type 2) with its tag."""
    return _varint(number << 3 | 2) + _varint(len(data)) + data


_SMALL_VARINTS = tuple(bytes((v,)) for v in range(0x80))
_DECISION_REQUEST_FIELD = pb.DealerMessage.DESCRIPTOR.fields_by_name["decision_request"].number
_ACTIONS_FIELD = pb.DecisionRequest.DESCRIPTOR.fields_by_name["actions"].number
_SEATS_FIELD = pb.DecisionRequest.DESCRIPTOR.fields_by_name["seats"].number
_POTS_FIELD = pb.DecisionRequest.DESCRIPTOR.fields_by_name["pots"].number
_BATCH_FIELD = pb.DealerMessage.DESCRIPTOR.fields_by_name["batch"].number
_BATCH_MESSAGES_FIELD = pb.MessageBatch.DESCRIPTOR.fields_by_name["messages"].number


def _varint(value: int) -> bytes:
    if value < 0x80:
        return _SMALL_VARINTS[value]
    if value < 0x4000:
        return bytes((value & 0x7F | 0x80, value >> 7))
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)
