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
from arena.server import convert
from arena.server.wire import Encoder, batch
from arena.v1 import arena_pb2 as pb

GAMES = ["FT", "FO/8", "FR", "F7S", "F7S/8", "NT", "PO"]


def _hands(game: str, count: int, seed: int) -> list[tuple[list[m.Prompt], list[m.Notice]]]:
    """Prompts and notices of ``count`` random-policy hands at a table of four."""
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
            clock = DecisionClock(0.0, 2.0, rng.choice([0.0, 3.5]))
            prompts.append(feed.prompt(f"{ctx.hand_id}-d{len(prompts)}", clock,
                                       rng.random(), None))
            legal = state.legal_actions()
            assert state.actor is not None
            kind = rng.choice(legal.kinds())
            raise_to = (rng.choice([legal.raise_min_to, legal.raise_max_to])
                        if kind is ActionKind.RAISE else None)
            feed.note_action(prompts[-1].decision_id, None)
            state.act(state.actor, kind, raise_to)
            _publish(feed, notices)
        out.append((prompts, notices))
    return out


def _publish(feed: HandFeed, notices: list[m.Notice]) -> None:
    """The feed's new items as notices (a private item as its owner sees it)."""
    for item in feed.drain():
        payload = item.own if isinstance(item, Private) else item
        notices.append(m.Notice("t", feed.ctx.hand_id, len(notices), 1.5, payload))


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
    others = [m.Notice("t", "h", 100 + k, 1.5, first.payload) for k in range(4)]
    for notice in others:
        encoder.encode(notice)
    assert sys.getrefcount(first) == held  # evicted: no longer kept alive
    assert encoder.encode(first) == data
    assert len(prompts) > 0
