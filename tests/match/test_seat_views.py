"""docs/house-rules.md §9 on the implementation that ships: what the match layer tells each seat.

A seat may see its own cards, every up card, the board and the hands shown at showdown;
nothing else. Checked two ways: a hypothesis property test drives ``HandFeed`` (the per-seat
payloads and prompts the live table sends) over random games, tables, rules and actions,
checking each copy against what its seat may see *when it is sent*; and whole matches of every
game run on ``LiveTable`` with trio's fake clock, checking every item each bot received.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator
from typing import Any

import pytest
import trio
import trio.testing
from hypothesis import given
from hypothesis import strategies as st

from arena.engine.actions import ActionKind, LegalActions
from arena.engine.events import HandShown
from arena.engine.games import variant_for
from arena.engine.rules import Rules
from arena.engine.state import HandState
from arena.match import messages as m
from arena.match.clock import DecisionClock
from arena.match.feed import FeedItem, HandFeed, Private
from arena.match.live import LiveTable
from arena.match.lobby import Lobby
from arena.match.records import HandContext, MatchSummary, PlayedHand
from arena.match.spec import MatchSpec, SeatSpec
from tests.hands import GAMES, SETTINGS, play_drawn, tables
from tests.match.scripted import Say, ScriptedBot


def card_fields(value: Any, path: str = "") -> Iterator[tuple[str, int]]:
    """Every card in a payload: ints inside fields named like cards or the board."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            inner = getattr(value, f.name)
            name = f.name.lower()
            if ("card" in name or name == "board") and not name.endswith("_count"):
                if isinstance(inner, int) and not isinstance(inner, bool):
                    yield f"{path}.{f.name}", inner
                elif isinstance(inner, tuple | list):
                    for i, card in enumerate(inner):
                        assert isinstance(card, int), (path, f.name, card)
                        yield f"{path}.{f.name}[{i}]", card
            else:
                yield from card_fields(inner, f"{path}.{f.name}")
    elif isinstance(value, tuple | list):
        for i, item in enumerate(value):
            yield from card_fields(item, f"{path}[{i}]")


def visible_cards(state: HandState, engine_seat: int | None) -> set[int]:
    """What a seat has been shown so far (docs/house-rules.md §9); ``None``: a seat not in the hand."""
    seen = set(state.board)
    if engine_seat is not None:
        seen |= set(state.cards[engine_seat])
    for other in range(state.seat_count):
        seen |= set(state.up_cards(other))
    for event in state.events:
        if isinstance(event, HandShown):
            seen |= set(event.cards)
    return seen


def assert_sees_only(seat: int, value: object, allowed: set[int]) -> None:
    for where, card in card_fields(value, type(value).__name__):
        assert card in allowed, f"seat {seat} is sent card {card} at {where}"


# --------------------------------------------------------------------------- the feed


class Seats:
    """Delivers feed items as the live table does: a Private's owner gets ``own``, the rest
    ``others``; checks every copy against what its seat may see at that moment."""

    def __init__(self, state: HandState, order: tuple[int, ...], table_size: int) -> None:
        self.state = state
        self.engine_of = {p: e for e, p in enumerate(order)}
        self.table_size = table_size
        self.received: dict[int, list[m.Payload]] = {p: [] for p in range(table_size)}

    def send(self, seat: int, payload: m.Payload | m.Prompt) -> None:
        assert_sees_only(seat, payload, visible_cards(self.state, self.engine_of.get(seat)))
        if not isinstance(payload, m.Prompt):
            self.received[seat].append(payload)

    def deliver(self, items: list[FeedItem]) -> None:
        for item in items:
            for seat in range(self.table_size):
                if isinstance(item, Private):
                    self.send(seat, item.own if seat == item.seat else item.others)
                else:
                    self.send(seat, item)


def _context(state: HandState, order: tuple[int, ...], table_size: int) -> HandContext:
    names = tuple(f"bot{p}" for p in range(table_size))
    return HandContext(match_id="m", hand_id="m-h1", hand_number=1, game_hand_number=1,
                       hands_per_game=table_size, button_seat=order[-1], order=order,
                       names=names, bot_ids=names, table_stacks=(100,) * table_size,
                       rules=state.rules, deal_id="m/deal-1")


@given(data=st.data(), table=tables())
@SETTINGS
def test_no_seat_is_ever_sent_a_card_it_may_not_see(data: st.DataObject,
                                                     table: tuple[str, list[int], Rules, int]
                                                     ) -> None:
    """docs/house-rules.md §9: every payload and prompt the feed makes for a seat (in or out of the hand)
    holds only that seat's own cards, up cards, the board and hands shown at showdown."""
    code, stacks, rules, seed = table
    n = len(stacks)
    most = variant_for(code).max_seats  # docs/house-rules.md §20: hold'em 11, Omaha 10, stud 8
    table_size = n + data.draw(st.integers(0, most - n), label="seats out of the hand")
    physical = data.draw(st.permutations(range(table_size)), label="seating")
    order = tuple(physical[:n])
    state = HandState(variant_for(code), stacks, rules=rules, seed=seed)
    feed = HandFeed(state, _context(state, order, table_size), lambda _p: True)
    seats = Seats(state, order, table_size)
    for seat in range(table_size):
        seats.send(seat, feed.hand_started(seat))
    decisions = 0

    def on_decision(_state: HandState, legal: LegalActions) -> None:
        nonlocal decisions
        seats.deliver(feed.drain())
        decisions += 1
        clock = DecisionClock(opened_at=0.0, decision_seconds=2.0, bank_seconds=5.0)
        prompt = feed.prompt(f"d{decisions}", clock, 0.0, None)
        assert prompt.seat == order[legal.seat]
        seats.send(prompt.seat, prompt)

    play_drawn(data, table, on_decision, state=state)
    seats.deliver(feed.drain())
    assert feed.ended
    for seat in range(table_size):
        ends = [p for p in seats.received[seat] if isinstance(p, m.HandEnded)]
        assert len(ends) == 1, f"seat {seat} got {len(ends)} HandEnded"


def test_other_seats_hole_cards_are_never_in_their_copy() -> None:
    """docs/house-rules.md §9, concretely: hold'em hole cards go to their owner only; the other seats'
    copy says how many were dealt and holds none."""
    state = HandState(variant_for("FT"), [1000] * 3, seed=5)
    feed = HandFeed(state, _context(state, (0, 1, 2), 3), lambda _p: True)
    dealt = [item for item in feed.drain()
             if isinstance(item, Private) and isinstance(item.own, m.CardsDealt)]
    assert [item.seat for item in dealt] == [0, 1, 2]
    for item in dealt:
        assert isinstance(item.own, m.CardsDealt) and isinstance(item.others, m.CardsDealt)
        assert item.own.hole_cards == tuple(state.cards[item.seat])
        assert item.others.hole_cards == () and item.others.hole_card_count == 2


# --------------------------------------------------------------------------- whole matches


class _Hands:
    """A sink keeping each hand's record, to know what each seat could see by its end."""

    def __init__(self) -> None:
        self.by_id: dict[str, PlayedHand] = {}

    def hand_started(self, match_id: str, hand_number: int) -> None:
        """Nothing to do before the hand ends."""

    def hand_finished(self, hand: PlayedHand) -> None:
        self.by_id[hand.context.hand_id] = hand

    def match_finished(self, summary: MatchSummary) -> None:
        """Nothing to do at the end."""


def _random_script(seed: int) -> Any:
    rng = random.Random(seed)

    def script(prompt: m.Prompt, _count: int) -> list[Say]:
        choice = rng.choice(prompt.legal)
        raise_to = rng.choice([choice.min_to_chips, choice.max_to_chips]) \
            if choice.kind is ActionKind.RAISE else None
        return [Say(rng.choice([0.0, 0.5]), choice.kind, raise_to)]

    return script


@pytest.mark.parametrize("game", GAMES)
def test_a_live_match_sends_each_bot_only_what_its_seat_may_see(game: str) -> None:
    """docs/house-rules.md §9 through the live table (trio's fake clock): every notice and prompt each
    bot received in a match of random play holds only cards its seat could see in that hand."""
    names = ["a", "b", "c", "d"]
    rules = Rules.from_mapping({"games": [game], "decision_seconds": 1.0,
                                "time_bank_seconds": 1.0})
    spec = MatchSpec("m", tuple(SeatSpec(n, n) for n in names), rules, 12, 7, 1.0)
    sink = _Hands()

    async def main() -> dict[str, ScriptedBot]:
        lobby = Lobby()
        table = LiveTable(spec, lobby, sink=sink)
        bots = {n: ScriptedBot(lobby, n, _random_script(k)) for k, n in enumerate(names)}
        async with trio.open_nursery() as nursery:
            for bot in bots.values():
                bot.attach()
                nursery.start_soon(bot.run)
            await table.run()
            await trio.sleep(5.0)
            nursery.cancel_scope.cancel()
        return bots

    bots = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    assert len(sink.by_id) == 12
    checked = 0
    for seat, name in enumerate(names):
        for _at, item in bots[name].log:
            hand_id = item.hand_id if isinstance(item, m.Notice | m.Prompt) else ""
            payload = item.payload if isinstance(item, m.Notice) else item
            allowed: set[int] = set()
            if hand_id:
                hand = sink.by_id[hand_id]
                engine_seat = hand.context.order.index(seat) \
                    if seat in hand.context.order else None
                allowed = visible_cards(hand.state, engine_seat)
            assert_sees_only(seat, payload, allowed)
            checked += 1
    assert checked > 12 * 4 * 5
