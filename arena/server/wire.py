"""The dealer's outgoing items as serialized ``DealerMessage`` bytes.

Each message is built by :mod:`arena.server.convert` and serialized by protobuf; a public event
goes to every seat but is built and serialized once. (A hand-written encoder that spliced
cached bytes measured no gain on the dealer: docs/performance.md, "Fast paths and the compiled
build".)
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from arena.match import messages as m
from arena.match.faults import DecisionClosed
from arena.server.convert import (
    action_record,
    decision_closed,
    decision_request,
    event,
    rejection,
)
from arena.v1 import arena_pb2 as pb

Item = m.Outgoing | pb.DealerMessage
_V = TypeVar("_V")
_R = TypeVar("_R")


class Encoder:
    """Serializes outgoing items, keeping the last few messages built.

    A public event is one :class:`~arena.match.messages.Notice` delivered to every seat, one
    call after the other, so it is built and serialized once; a batch reuses the messages of
    the items it holds; a hand's action records, repeated in each of its later requests, are
    converted once. The caches hold what they are keyed by (by identity), so an id is never
    reused while cached; they are small on purpose (what they hold survives the collector's
    young generation, which walks all of it), and a miss only costs building again.
    """

    def __init__(self, cache_size: int = 1024, event_cache_size: int = 64) -> None:
        self._cache_size = cache_size
        self._event_cache_size = event_cache_size
        self._recent: OrderedDict[int, tuple[Item, pb.DealerMessage, bytes]] = OrderedDict()
        # hand id -> (its last record so far, the records converted)
        self._histories: OrderedDict[str, tuple[m.ActionRecord, list[pb.ActionRecord]]] = (
            OrderedDict())
        # id of a seat, or of a hand's legal choices or pots -> (it, its converter, converted)
        self._converted: OrderedDict[int, tuple[object, object, Any]] = OrderedDict()

    def _memo(self, value: _V, convert: Callable[[_V], _R], /) -> _R:
        """``convert(value)``, kept: an unchanged seat, and equal legal choices and pots, are
        the same object from one request to the next (see ``arena.match.feed``)."""
        found = self._converted.get(id(value))
        if found is None or found[0] is not value or found[1] is not convert:
            found = (value, convert, convert(value))
            converted = self._converted
            converted[id(value)] = found
            if len(converted) > self._cache_size:
                converted.popitem(last=False)
        result: _R = found[2]
        return result

    def message(self, item: Item) -> pb.DealerMessage:
        """The ``DealerMessage`` of one item (built anew)."""
        if isinstance(item, m.Notice):
            return pb.DealerMessage(event=event(item))
        if isinstance(item, m.Prompt):
            return pb.DealerMessage(decision_request=decision_request(
                item, memo=self._memo, history=self._history(item.actions, item.hand_id)))
        if isinstance(item, m.Rejection):
            return pb.DealerMessage(action_rejected=rejection(item))
        if isinstance(item, DecisionClosed):
            return pb.DealerMessage(decision_closed=decision_closed(item))
        return item

    def _history(self, actions: tuple[m.ActionRecord, ...], hand_id: str
                 ) -> list[pb.ActionRecord]:
        """A hand's records converted: a history only grows (every request of the hand
        repeats it), so only the new records are; the last one kept (by identity) proves the
        history is the one converted so far."""
        if not actions:
            return []
        found = self._histories.get(hand_id)
        done: list[pb.ActionRecord] = []
        if found is not None and len(found[1]) <= len(actions) and (
                actions[len(found[1]) - 1] is found[0]):
            done = found[1]
        if len(done) < len(actions):
            done = done + [action_record(a) for a in actions[len(done):]]
            histories = self._histories
            histories[hand_id] = (actions[-1], done)
            if len(histories) > self._cache_size:
                histories.popitem(last=False)
        return done

    def _entry(self, item: Item) -> tuple[Item, pb.DealerMessage, bytes]:
        found = self._recent.get(id(item))
        if found is None or found[0] is not item:
            built = self.message(item)
            found = (item, built, built.SerializeToString())
            recent = self._recent
            recent[id(item)] = found
            if len(recent) > self._event_cache_size:
                recent.popitem(last=False)  # the oldest
        return found

    def encode(self, item: Item) -> bytes:
        """The serialized ``DealerMessage`` of one item."""
        return self._entry(item)[2]

    def event(self, notice: m.Notice) -> pb.Event:
        """The ``Event`` of a notice, as :meth:`encode` sends it (the event log's records hold
        it)."""
        return self._entry(notice)[1].event

    def batch_of(self, encoded: Sequence[tuple[Item, bytes]]) -> bytes:
        """One ``DealerMessage.batch`` of items already encoded by :meth:`encode`."""
        messages = []
        for item, data in encoded:
            found = self._recent.get(id(item))
            messages.append(found[1] if found is not None and found[0] is item
                            else pb.DealerMessage.FromString(data))
        return pb.DealerMessage(batch=pb.MessageBatch(messages=messages)).SerializeToString()


def batch(encoded: Sequence[bytes]) -> bytes:
    """A ``DealerMessage`` with ``batch`` holding the given serialized messages."""
    return pb.DealerMessage(batch=pb.MessageBatch(
        messages=[pb.DealerMessage.FromString(data) for data in encoded])).SerializeToString()
