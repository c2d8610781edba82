"""Information hiding (docs/house-rules.md §9): spies record every message of a six-seat H.O.R.S.E. match;
none ever holds another seat's hidden card before it is shown (checked against the true deal
in the hand log). The same match checks chip conservation and that the log replays."""

from __future__ import annotations

import asyncio
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from arena_bot import play
from arena_bot.examples import BOTS
from google.protobuf.message import Message

from arena.engine.phh import PhhHand, iter_replays
from arena.host.phhfile import load_file
from arena.v1 import arena_pb2 as pb
from tests.server.harness import make_config, running, token_for

pytestmark = pytest.mark.timeout(60)

CARD = re.compile(r"^[2-9TJQKA][cdhs]$")
KINDS = ["random", "call", "rules", "random", "call", "rules"]
NAMES = [f"{k}{i}" for i, k in enumerate(KINDS)]


def cards_in(message: Message) -> set[str]:
    """Every card string anywhere in a message."""
    found: set[str] = set()
    for field, value in message.ListFields():
        values = value if field.is_repeated else [value]
        for v in values:
            if isinstance(v, Message):
                found |= cards_in(v)
            elif isinstance(v, str) and CARD.match(v):
                found.add(v)
    return found


def split(cards: str) -> list[str]:
    return [cards[i:i + 2] for i in range(0, len(cards), 2)]


class TrueDeal:
    """Per hand: each physical seat's down cards, all public cards, and the shown hands."""

    def __init__(self, hand: PhhHand) -> None:
        fields: dict[str, Any] = hand.fields
        seats: list[int] = fields["_seats"]
        stud = fields["variant"] not in ("FT", "FO/8")
        self.down: dict[int, set[str]] = defaultdict(set)
        self.own: dict[int, set[str]] = defaultdict(set)
        self.public: set[str] = set()
        self.shown: set[str] = set()
        streets: dict[int, int] = defaultdict(int)
        for line in fields["actions"]:
            words = line.split()
            if words[:2] == ["d", "dh"]:
                seat = seats[int(words[2][1:]) - 1]
                cards = split(words[3])
                street = streets[seat]
                streets[seat] += 1
                if stud:  # third street: down, down, up; 4th-6th up; 7th down
                    ups = {0: [False, False, True], 4: [False]}.get(street, [True])
                else:
                    ups = [False] * len(cards)
                for card, up in zip(cards, ups, strict=True):
                    self.own[seat].add(card)
                    (self.public.add if up else self.down[seat].add)(card)
            elif words[:2] == ["d", "db"]:
                self.public.update(split(words[2]))
            elif len(words) == 3 and words[1] == "sm":
                self.shown.update(split(words[2]))


def test_no_seat_ever_sees_a_hidden_card_of_another(tmp_path: Path) -> None:
    config = make_config(tmp_path, NAMES, hands=30, seed=11,
                         rules={"decision_seconds": 5.0, "time_bank_seconds": 5.0})
    recorded: dict[str, list[pb.DealerMessage]] = {n: [] for n in NAMES}

    async def scenario() -> None:
        async with running(config) as (server, address):
            bots = [play(BOTS[kind](i), server=address, token=token_for(name), name=name,
                         reconnect_seconds=2.0, on_message=recorded[name].append)
                    for i, (kind, name) in enumerate(zip(KINDS, NAMES, strict=True))]
            results = await asyncio.wait_for(asyncio.gather(*bots), 45)
            await server.run_until_done()
        assert all(r.final_status == "OK" and len(r.matches_ended) == 1 for r in results)
        (summary,) = server.summaries()
        assert summary.hands_played == 30 and not summary.aborted
        assert summary.stats.timeouts == 0 and summary.stats.rejected == 0

    asyncio.run(scenario())

    hands = load_file(str(tmp_path / "logs" / "match.phhs"))
    assert len(hands) == 30
    assert {h.fields["variant"] for h in hands} == {"FT", "FO/8", "FR", "F7S", "F7S/8"}
    net = [0] * len(NAMES)
    for hand, state, error in iter_replays(hands):
        assert error is None, error
        assert state is not None and sum(state.stacks) == sum(hand.fields["starting_stacks"])
        for k, seat in enumerate(hand.fields["_seats"]):
            net[seat] += state.stacks[k] - hand.fields["starting_stacks"][k]
    assert sum(net) == 0
    deals = {h.fields["_hand_id"]: TrueDeal(h) for h in hands}

    checked = 0
    for seat, name in enumerate(NAMES):
        shown_now: dict[str, bool] = defaultdict(bool)
        match_ended = [m for m in recorded[name] if m.event.WhichOneof("payload") == "match_ended"]
        assert match_ended[0].event.match_ended.match_seed == str(config.matches[0].seed)
        for message in recorded[name]:
            kind = message.WhichOneof("payload")
            if kind == "decision_request":
                hand_id = message.decision_request.hand_id
                deal = deals[hand_id]
                assert set(message.decision_request.hole_cards) <= deal.down[seat]
            elif kind == "event" and message.event.hand_id:
                hand_id = message.event.hand_id
                deal = deals[hand_id]
                if message.event.WhichOneof("payload") == "showdown":
                    shown_now[hand_id] = True
            else:
                continue
            allowed = deal.own[seat] | deal.public | (deal.shown if shown_now[hand_id] else set())
            seen = cards_in(message)
            assert seen <= allowed, (name, hand_id, seen - allowed)
            checked += len(seen)
    assert checked > 1000
