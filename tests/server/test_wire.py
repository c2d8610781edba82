"""The encoder's spliced bytes (cached heads, seats, records) parse to exactly the messages the
plain converters build, for every request of random hands of every game."""

from __future__ import annotations

import random
import sys

import pytest

from arena.engine.actions import ActionKind
from arena.engine.games import variant_for
from arena.engine.rules import Rules
from arena.engine.state import HandState
from arena.match import messages as m
from arena.match.clock import DecisionClock
from arena.match.feed import HandFeed, Private
from arena.match.records import HandContext
from arena.server import convert, wire
from arena.server.wire import Encoder, batch
from arena.v1 import arena_pb2 as pb

pytestmark = pytest.mark.no_dealer  # never runs the dealer: not in the fast-paths-off pass

# The exchange and wild-card games too (docs/house-rules.md §21-§26).
GAMES = ["FT", "FO/8", "FR", "F7S", "F7S/8", "NT", "PO", "F2L3D", "FES", "F7SW", "FLH/8"]


def _hands(game: str, count: int, seed: int, *, calling: bool = False
           ) -> list[tuple[list[m.Prompt], list[m.Notice]]]:
    """Prompts and notices of ``count`` random-policy hands at a table of four (``calling``:
    seats that never fold nor raise, so hands end in showdowns, and each hand's end is
    followed by its ``HandSummary``, as seats that get requests and results see it)."""
    rng = random.Random(seed)
    rules = Rules()
    out = []
    for h in range(count):
        state = HandState(variant_for(game), [rules.starting_stack] * 4, rules=rules,
                          seed=seed * 1000 + h)
        ctx = HandContext("t", f"t-h{h}", h + 1, 1, 4, 0, (0, 1, 2, 3),
                          ("a", "b", "c", "d"), ("a", "b", "c", "d"), (2000,) * 4, rules, "d")
        feed = HandFeed(state, ctx, lambda seat: seat != 3)
        prompts: list[m.Prompt] = []
        notices: list[m.Notice] = []

        _publish(feed, notices)
        while not state.is_over:
            clock = DecisionClock(opened_at=0.0, decision_seconds=2.0, bank_seconds=rng.choice([0.0, 3.5]))
            prompts.append(feed.prompt(f"{ctx.hand_id}-d{len(prompts)}", clock,
                                       rng.random(), None))
            legal = state.legal_actions()
            assert state.actor is not None
            if legal.can_exchange:  # docs/house-rules.md §26: any of its cards, or none
                feed.note_action(prompts[-1].decision_id, None)
                state.exchange(state.actor, rng.sample(legal.exchangeable,
                                                       rng.randint(0, legal.exchange_max_cards)))
                _publish(feed, notices)
                continue
            kind = rng.choice(legal.kinds())
            if calling:
                kind = next(k for k in (ActionKind.BRING_IN, ActionKind.CHECK, ActionKind.CALL)
                            if k in legal.kinds())
            raise_to = (rng.choice([legal.raise_min_to, legal.raise_max_to])
                        if kind is ActionKind.RAISE else None)
            feed.note_action(prompts[-1].decision_id, None)
            state.act(state.actor, kind, raise_to)
            _publish(feed, notices)
        ended = notices[-1].payload
        if calling and isinstance(ended, m.HandEnded):
            summary = m.HandSummary(results=ended.results, awards=ended.awards, voided=ended.voided,
                                    void_reason=ended.void_reason,
                                    went_to_showdown=ended.went_to_showdown, actions=tuple(feed.records),
                                    board=tuple(state.board), seats=feed.seat_infos())
            notices.append(m.Notice(match_id="t", hand_id=ctx.hand_id, sequence=len(notices),
                                    unix_seconds=1.5, payload=summary))
        out.append((prompts, notices))
    return out


def _publish(feed: HandFeed, notices: list[m.Notice]) -> None:
    """The feed's new items as notices (a private item as its owner sees it)."""
    for item in feed.drain():
        payload = item.own if isinstance(item, Private) else item
        notices.append(m.Notice(match_id="t", hand_id=feed.ctx.hand_id, sequence=len(notices),
                                unix_seconds=1.5, payload=payload))


@pytest.mark.parametrize("game", GAMES)
def test_spliced_requests_and_events_equal_the_converters_messages(game: str) -> None:
    encoder = Encoder(cache_size=64)  # small: entries are evicted and rebuilt along the way
    checked = 0
    for prompts, notices in _hands(game, 12, seed=GAMES.index(game) + 1):
        for prompt in prompts:
            data = encoder.encode(prompt)
            assert pb.DealerMessage.FromString(data).decision_request == \
                convert.decision_request(prompt)
            checked += 1
        encoded = [encoder.encode(n) for n in notices]
        for notice, data in zip(notices, encoded, strict=True):
            assert pb.DealerMessage.FromString(data).event == convert.event(notice)
        parsed = pb.DealerMessage.FromString(batch(encoded)).batch.messages
        assert [x.event for x in parsed] == [convert.event(n) for n in notices]
    assert checked > 40


def test_an_event_is_held_only_for_its_fan_out_and_encodes_the_same_after() -> None:
    """The event cache is small (its survivors cost the collector's young generation): an
    event leaves it after ``event_cache_size`` later ones, and encodes to the same bytes."""
    prompts, notices = _hands("FT", 1, seed=3)[0]
    encoder = Encoder(event_cache_size=4)
    first = notices[0]
    held = sys.getrefcount(first)
    data = encoder.encode(first)
    assert encoder.encode(first) == data  # the fan-out: a cached second encoding
    assert sys.getrefcount(first) > held
    others = [m.Notice(match_id="t", hand_id="h", sequence=100 + k, unix_seconds=1.5,
                       payload=first.payload) for k in range(4)]
    for notice in others:
        encoder.encode(notice)
    assert sys.getrefcount(first) == held  # evicted: no longer kept alive
    assert encoder.encode(first) == data
    assert len(prompts) > 0


@pytest.mark.parametrize("game", GAMES)
def test_written_bytes_are_the_plain_serializations_byte_for_byte(game: str) -> None:
    """What the encoder writes on the wire format directly (every event here, and summaries
    with their records taken from the requests' history) is byte for byte what protobuf's own
    serialization of the converters' messages is."""
    encoder = Encoder(cache_size=64)
    showdowns = summaries = 0
    for prompts, notices in _hands(game, 12, seed=GAMES.index(game) + 11, calling=True):
        for prompt in prompts:
            encoder.encode(prompt)  # the hand's history, which the summary's records reuse
        for notice in notices:
            plain = pb.DealerMessage(event=convert.event(notice)).SerializeToString()
            assert encoder.encode(notice) == plain
            showdowns += isinstance(notice.payload, m.Showdown)
            summaries += isinstance(notice.payload, m.HandSummary)
    assert showdowns > 0 and summaries == 12


def test_a_summary_without_the_requests_history_is_written_from_its_own_records() -> None:
    """A hand's summary whose records are not the cached history's (another encoder, or the
    history evicted) is still written in full."""
    prompts, notices = _hands("F7S/8", 1, seed=5, calling=True)[0]
    summary = next(n for n in notices if isinstance(n.payload, m.HandSummary))
    plain = pb.DealerMessage(event=convert.event(summary)).SerializeToString()
    assert Encoder().encode(summary) == plain
    warm = Encoder(cache_size=1)
    for prompt in prompts:
        warm.encode(prompt)
    assert warm.encode(summary) == plain
    assert isinstance(summary.payload, m.HandSummary) and summary.payload.actions


@pytest.mark.parametrize("value", [0, 1, 127, 128, 0x3FFF, 0x4000, 0x1FFFFF, 0x200000,
                                   0xFFFFFFF, 0x10000000, 1_700_000_000, 999_999_999,
                                   2**35 - 1, 2**35, 2**42 - 1, 2**42, 2**63 - 1, -1, -2**31,
                                   -2**63])
def test_varints_are_protobufs(value: int) -> None:
    """A varint written by the encoder's tables is protobuf's own (an int64 field's bytes)."""
    plain = pb.Pot(amount_chips=value).SerializeToString() if value else b"\x08\x00"
    assert wire._signed(value) == plain[1:]


def test_random_varints_are_protobufs() -> None:
    rng = random.Random(7)
    for _ in range(20_000):
        value = rng.getrandbits(rng.randint(1, 63)) * rng.choice([1, -1])
        plain = pb.Pot(amount_chips=value).SerializeToString() if value else b"\x08\x00"
        assert wire._signed(value) == plain[1:]
