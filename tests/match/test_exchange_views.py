"""docs/house-rules.md §26 and §9 for the exchange games in the match layer: what each seat is
told of an exchange (its own cards to itself, only the count to the others, English Stud's up
cards to everyone), and the wild ranks of its own hand (§23, §24)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.engine.actions import ActionKind, LegalActions
from arena.engine.cards import parse_cards
from arena.engine.events import CardsExchanged, HandShown
from arena.engine.games import EngineGame, variant_for
from arena.engine.rules import Rules
from arena.engine.state import HandState
from arena.match import messages as m
from arena.match.clock import DecisionClock
from arena.match.feed import FeedItem, HandFeed, Private
from tests.hands import SETTINGS, play_drawn, tables
from tests.match.test_seat_views import _context, assert_sees_only

EXCHANGE_GAMES = [EngineGame.DEUCE_TO_SEVEN_TRIPLE_DRAW.value, EngineGame.ENGLISH_STUD.value]
WILD_GAMES = [EngineGame.STUD_WILD.value, EngineGame.LOW_HOLE_HI_LO.value]


def visible(state: HandState, engine_seat: int | None) -> set[int]:
    """What a seat has been shown so far: its own cards (also those it gave up), every up card
    (also up cards given up), the board, the hands shown."""
    seen = set(state.board)
    if engine_seat is not None:
        seen |= set(state.cards[engine_seat])
    for other in range(state.seat_count):
        seen |= set(state.up_cards(other))
    for event in state.events:
        if isinstance(event, HandShown):
            seen |= set(event.cards)
        elif isinstance(event, CardsExchanged):
            if event.seat == engine_seat:
                seen |= set(event.discarded) | set(event.drawn)
            seen |= {c for c, up in zip(event.discarded, event.is_up, strict=True) if up}
            seen |= {c for c, up in zip(event.drawn, event.is_up, strict=True) if up}
    return seen


def _clock() -> DecisionClock:
    return DecisionClock(opened_at=0.0, decision_seconds=2.0, bank_seconds=5.0)


@given(data=st.data(), table=tables(EXCHANGE_GAMES + WILD_GAMES))
@SETTINGS
def test_exchanges_reach_each_seat_only_as_far_as_it_may_see(
        data: st.DataObject, table: tuple[str, list[int], Rules, int]) -> None:
    """docs/house-rules.md §26/§9: random hands of the exchange and wild games through the feed;
    every copy of every payload and prompt holds only cards its seat may see when sent."""
    code, stacks, rules, seed = table
    n = len(stacks)
    order = tuple(range(n))
    state = HandState(variant_for(code), stacks, rules=rules, seed=seed)
    feed = HandFeed(state, _context(state, order, n), lambda _p: True)

    def deliver(items: list[FeedItem]) -> None:
        for item in items:
            for seat in range(n):
                payload = (item.own if seat == item.seat else item.others) \
                    if isinstance(item, Private) else item
                assert_sees_only(seat, payload, visible(state, seat))

    decisions = 0

    def on_decision(_state: HandState, legal: LegalActions) -> None:
        nonlocal decisions
        deliver(feed.drain())
        decisions += 1
        prompt = feed.prompt(f"d{decisions}", _clock(), 0.0, None)
        assert_sees_only(prompt.seat, prompt, visible(state, prompt.seat))
        assert prompt.hole_cards == tuple(c for c, up in zip(state.cards[legal.seat],
                                                             state.is_up[legal.seat],
                                                             strict=True) if not up)
        if legal.can_exchange:
            (choice,) = prompt.legal
            assert choice.kind.value == "exchange"
            assert choice.exchangeable_cards == tuple(state.cards[legal.seat])
            assert choice.max_exchanged == legal.exchange_max_cards and choice.min_exchanged == 0

    play_drawn(data, table, on_decision, state=state)
    deliver(feed.drain())
    assert feed.ended


def _exchanges(items: list[FeedItem]) -> list[Private]:
    return [i for i in items if isinstance(i, Private) and isinstance(i.own, m.ActionTaken)
            and i.own.action.kind is m.RecordKind.EXCHANGE]


def _passive(state: HandState) -> None:
    """One passive action: post the bring-in, check, else call."""
    legal = state.legal_actions()
    kinds = legal.kinds()
    kind = next(k for k in (ActionKind.BRING_IN, ActionKind.CHECK, ActionKind.CALL) if k in kinds)
    state.act(legal.seat, kind)


def _to_first_exchange(state: HandState) -> None:
    while not state.legal_actions().can_exchange:
        _passive(state)


def test_a_draw_is_told_to_its_seat_and_counted_for_the_others() -> None:
    """docs/house-rules.md §26: 'the discards and new down cards are the seat's secret, how
    many it exchanged is public' (2-7 triple draw)."""
    state = HandState(variant_for("F2L3D"), [500] * 3, seed=11)
    feed = HandFeed(state, _context(state, (0, 1, 2), 3), lambda _p: True)
    _to_first_exchange(state)
    feed.drain()
    seat = state.legal_actions().seat
    given_up = tuple(state.cards[seat][:2])
    state.exchange(seat, given_up)
    (item,) = _exchanges(feed.drain())
    assert isinstance(item.own, m.ActionTaken) and isinstance(item.others, m.ActionTaken)
    own, public = item.own.action, item.others.action
    assert own.exchanged_cards == given_up and len(own.drawn_cards) == 2
    assert set(own.drawn_cards) <= set(state.cards[seat])
    assert (public.exchange_card_count, public.exchanged_cards, public.drawn_cards) == (2, (), ())
    assert own.street == "first draw" and feed.records[-1] == public
    # The seat's next prompt holds its new down cards (the cache of its cards was dropped).
    _to_decision_of(state, seat)
    feed.drain()
    prompt = feed.prompt("d", _clock(), 0.0, None)
    assert set(own.drawn_cards) <= set(prompt.hole_cards)
    assert not set(given_up) & set(prompt.hole_cards)


def _to_decision_of(state: HandState, seat: int) -> None:
    while state.legal_actions().seat != seat:
        legal = state.legal_actions()
        if legal.can_exchange:
            state.exchange(legal.seat, ())
        else:
            _passive(state)


def test_an_english_stud_up_card_exchange_is_public() -> None:
    """docs/house-rules.md §25: 'eine aufgedeckte Karte ablegen und eine neue aufgedeckte Karte
    erhalten': an up card for an up card, both seen by every seat."""
    state = HandState(variant_for("FES"), [500] * 3, seed=4)
    feed = HandFeed(state, _context(state, (0, 1, 2), 3), lambda _p: True)
    _to_first_exchange(state)
    feed.drain()
    prompt = feed.prompt("d", _clock(), 0.0, None)
    (choice,) = prompt.legal
    assert choice.keeps_face and choice.max_exchanged == 1
    seat = state.legal_actions().seat
    up = state.up_cards(seat)[0]
    state.exchange(seat, (up,))
    (item,) = _exchanges(feed.drain())
    assert isinstance(item.others, m.ActionTaken)
    public = item.others.action
    assert public.exchange_face_up and public.exchanged_cards == (up,)
    assert public.drawn_cards == (state.up_cards(seat)[-1],)
    info = next(s for s in feed.seat_infos() if s.seat == seat)
    assert up not in info.up_cards and public.drawn_cards[0] in info.up_cards


@pytest.mark.parametrize(("code", "wild", "low_wild"), [
    ("F7SW", (0,), ()),  # deuces wild (the `wild_ranks` default), high only
    ("F7SWL", (), (0,)),
])
def test_the_prompt_names_the_games_wild_ranks(code: str, wild: tuple[int, ...],
                                               low_wild: tuple[int, ...]) -> None:
    """docs/house-rules.md §23: the game's `wild_ranks` are every seat's, for high or low."""
    state = HandState(variant_for(code), [500] * 2, seed=1)
    feed = HandFeed(state, _context(state, (0, 1), 2), lambda _p: True)
    feed.drain()
    prompt = feed.prompt("d", _clock(), 0.0, None)
    assert (prompt.wild_ranks, prompt.low_wild_ranks) == (wild, low_wild)


def test_low_hole_names_the_seats_own_lowest_down_card() -> None:
    """docs/house-rules.md §24 [002]: 'Wenn Ihre ersten drei Karten 9-4 verdeckt und 3
    aufgedeckt sind, sind alle Ihre Vieren Wild Cards'; in hi-lo an ace in the hole makes
    aces wild for low only."""
    from arena.match.feed import seat_wild_ranks
    state = HandState(variant_for("FLH/8"), [500] * 2, seed=1)
    state.cards[0][:] = list(parse_cards("9h4c3d"))
    state.is_up[0][:] = [False, False, True]
    assert seat_wild_ranks(state, 0) == ((2,), (2,))  # fours (rank index 2)
    state.cards[0][:] = list(parse_cards("Ah4c3d"))
    assert seat_wild_ranks(state, 0) == ((2,), (12,))  # aces wild for low only
