"""docs/house-rules.md §1: the deck, the seed, dealing order, burn cards and the stud deck running out."""

from __future__ import annotations

import pytest

from arena.engine.actions import ActionKind
from arena.engine.cards import Card, Deck, parse_cards
from arena.engine.events import BoardDealt, HoleCardsDealt
from arena.engine.games import variant_for
from arena.engine.phh import ScriptedCards
from arena.engine.rules import Rules
from arena.engine.state import BOARD, HandState, SeededDeck
from tests.hands import passive


class Recorder:
    """A seeded deck that logs every deal and burn, in order."""

    def __init__(self, seed: int) -> None:
        self.deck = SeededDeck(seed)
        self.log: list[tuple[str, int, Card]] = []  # ("deal", seat, card) / ("burn", -2, card)

    def __len__(self) -> int:
        return len(self.deck)

    def deal(self, seat: int) -> Card:
        card = self.deck.deal(seat)
        self.log.append(("deal", seat, card))
        return card

    def burn(self) -> Card | None:
        card = self.deck.burn()
        self.log.append(("burn", -2, card))
        return card

    def recycle_burned(self) -> None:
        self.log.append(("recycle", -2, -1))
        self.deck.recycle_burned()

    def burns(self) -> list[Card]:
        return [c for what, _, c in self.log if what == "burn"]

    def pattern(self) -> list[str]:
        """The log as "b" (burn), "B" (board card), seat numbers and "r" (recycle)."""
        out = []
        for what, seat, _ in self.log:
            if what == "burn":
                out.append("b")
            elif what == "recycle":
                out.append("r")
            else:
                out.append("B" if seat == BOARD else str(seat))
        return out




def dealt_cards(state: HandState) -> list[Card]:
    out: list[Card] = []
    for e in state.events:
        if isinstance(e, HoleCardsDealt | BoardDealt):
            out.extend(e.cards)
    return out


# --------------------------------------------------------------------------- seed


@pytest.mark.parametrize("game", ["FT", "FO/8", "FR", "F7S", "F7S/8"])
def test_same_seed_same_cards(game: str) -> None:
    """docs/house-rules.md §1: one deck per hand shuffled from a per-hand seed: every hand can be
    re-dealt from its seed (same seed -> same cards)."""
    a = HandState(variant_for(game), [1000] * 4, seed=12345)
    b = HandState(variant_for(game), [1000] * 4, seed=12345)
    passive(a)
    passive(b)
    assert dealt_cards(a) == dealt_cards(b)
    assert a.result.final_stacks == b.result.final_stacks


@pytest.mark.parametrize("game", ["FT", "F7S"])
def test_different_seeds_different_cards(game: str) -> None:
    """docs/house-rules.md §1: the shuffle depends on the per-hand seed (different seeds differ)."""
    deals = set()
    for seed in range(10):
        state = HandState(variant_for(game), [1000] * 3, seed=seed)
        passive(state)
        deals.add(tuple(dealt_cards(state)))
    # ten seeds, ten different deals (a repeat of 3 x 7 cards is astronomically unlikely)
    assert len(deals) == 10


def test_deck_is_52_distinct_cards() -> None:
    """docs/house-rules.md §1: one 52-card deck per hand: a seeded deck deals each card once."""
    for seed in (0, 1, 99):
        deck = Deck(seed)
        cards = deck.draw_many(52)
        assert sorted(cards) == list(range(52))
        assert len(deck) == 0


def test_holdem_burns_and_deal_order_from_seed() -> None:
    """docs/house-rules.md §1: cards are dealt one at a time clockwise from the first seat left of the
    button; one card is burned before the flop, the turn and the river; no burn before the
    hole cards (default `burn_before_hole_cards=false`)."""
    seed = 777
    d = Deck(seed).draw_many(12)  # the seed's deck order, top first
    state = HandState(variant_for("FT"), [1000, 1000], seed=seed)
    passive(state)
    holes = {e.seat: e.cards for e in state.events if isinstance(e, HoleCardsDealt)}
    # one at a time: seat 0 gets the 1st and 3rd card, seat 1 the 2nd and 4th
    assert holes == {0: (d[0], d[2]), 1: (d[1], d[3])}
    # d[4] burned, flop d[5..7], d[8] burned, turn d[9], d[10] burned, river d[11]
    assert state.board == [d[5], d[6], d[7], d[9], d[11]]


def test_holdem_recorded_pattern_three_seats() -> None:
    """docs/house-rules.md §1: one card at a time clockwise from seat 0 (left of the button); burns
    before flop, turn and river only."""
    rec = Recorder(5)
    state = HandState(variant_for("FT"), [1000] * 3, cards=rec)
    passive(state)
    assert rec.pattern() == ["0", "1", "2", "0", "1", "2",
                             "b", "B", "B", "B", "b", "B", "b", "B"]


def test_omaha_deals_four_one_at_a_time() -> None:
    """docs/house-rules.md §1: cards are dealt one at a time, clockwise (Omaha: four rounds)."""
    rec = Recorder(6)
    state = HandState(variant_for("FO/8"), [1000] * 2, cards=rec)
    passive(state)
    assert rec.pattern()[:8] == ["0", "1"] * 4
    assert rec.pattern()[8:] == ["b", "B", "B", "B", "b", "B", "b", "B"]


def test_burn_before_hole_cards_option() -> None:
    """docs/house-rules.md §1/§10: `burn_before_hole_cards=true` burns one card before the first
    hold'em/Omaha deal."""
    seed = 778
    d = Deck(seed).draw_many(13)
    state = HandState(variant_for("FT"), [1000, 1000], seed=seed,
                      rules=Rules(burn_before_hole_cards=True))
    passive(state)
    holes = {e.seat: e.cards for e in state.events if isinstance(e, HoleCardsDealt)}
    # d[0] burned; then the same pattern shifted by one
    assert holes == {0: (d[1], d[3]), 1: (d[2], d[4])}
    assert state.board == [d[6], d[7], d[8], d[10], d[12]]


@pytest.mark.parametrize("game", ["FR", "F7S", "F7S/8"])
def test_stud_burn_before_every_street_including_third(game: str) -> None:
    """docs/house-rules.md §1: in stud one card is burned before every street including third street;
    cards go one at a time clockwise from seat 0."""
    rec = Recorder(11)
    state = HandState(variant_for(game), [1000] * 3, cards=rec)
    passive(state)
    third = ["b"] + ["0", "1", "2"] * 3
    later = ["b", "0", "1", "2"]
    assert rec.pattern() == third + later * 4


@pytest.mark.parametrize("game", ["FR", "F7S", "F7S/8"])
def test_stud_third_street_two_down_one_up_seventh_down(game: str) -> None:
    """docs/house-rules.md §1/§3: stud deals two down and one up card on third street, one up card on
    fourth to sixth, one down card on seventh."""
    state = HandState(variant_for(game), [1000] * 2, seed=3)
    passive(state)
    for seat in (0, 1):
        assert state.is_up[seat] == [False, False, True, True, True, True, False]


# --------------------------------------------------------------------------- running out


def test_stud_burns_recycled_and_folded_cards_dead() -> None:
    """docs/house-rules.md §1: if the stub cannot give every active player a card, the burn cards are
    shuffled into the stub; folded players' cards are dead and never reused.

    8 seats, one folds on third street, 7 stay to seventh: 52 - 1 burn - 24 = 27 left;
    4th-6th each burn 1 and deal 7: 27 - 24 = 3 left; seventh needs 7 -> the 4 burns go back
    (3 + 4 = 7), which is exactly enough."""
    rec = Recorder(2024)
    state = HandState(variant_for("F7S"), [1000] * 8, cards=rec)
    state.check_or_call()  # the bring-in
    assert state.actor is not None
    folder = state.actor
    state.act(folder, ActionKind.FOLD)
    passive(state)
    assert "r" in rec.pattern()
    seventh = [c for e in state.events if isinstance(e, HoleCardsDealt) and e.street == 4
               for c in e.cards]
    assert len(seventh) == 7
    earlier = [c for e in state.events if isinstance(e, HoleCardsDealt) and e.street < 4
               for c in e.cards]
    assert len(earlier) == 24 + 3 * 7
    # the seventh-street cards are exactly the 7 cards never dealt before (3 stub + 4 burns);
    # the folded seat's 3 cards are not among them
    assert set(seventh) == set(range(52)) - set(earlier)
    burns = [c for what, _, c in rec.log[: rec.pattern().index("r")] if what == "burn"]
    assert len(burns) == 4 and set(burns) <= set(seventh)
    folded = set(state.cards[folder])
    assert not folded & set(seventh)
    assert not any(isinstance(e, BoardDealt) for e in state.events)  # no common card needed


# Eight seats, six cards each (the seventh is the common card). Each seat holds quads or
# trips so that nobody can make a straight flush: seat 3 has three aces and the common card
# Ah makes its four aces; without it seat 0's four kings would win.
_EIGHT = {  # dealing order: down, down, up (door), up, up, up
    0: "KcKdKhKs5c5d",
    1: "QcQdQhQs5h5s",
    2: "JcJdJhJs2d2h",
    3: "Ac2cAsAd3d4h",
    4: "TcTdThTs2s3c",
    5: "9c9d9h9s3h3s",
    6: "8c8d8h8s4c4d",
    7: "7c7d7h7s6c6d",
}


def _eight_seat_source() -> ScriptedCards:
    return ScriptedCards({s: parse_cards(c) for s, c in _EIGHT.items()}, parse_cards("Ah"),
                         name="eight")


def test_stud_common_card_counts_for_everyone_at_showdown() -> None:
    """docs/house-rules.md §1/§5: eight players to seventh street: the stub runs out, one common card is
    dealt face up and counts as every active player's seventh card (stud: best five of the
    seven cards plus the common card).

    Stacks of 8: ante 3, then the bring-in 5 and the calls of 5 put everyone all in, so the
    board runs out. Door cards: Kh Qh Jh As Th 9h 8h 7h -> 7h (seat 7) is the lowest and
    brings in. Pot 8 x 8 = 64; seat 3 wins with four aces (three + common Ah): +56."""
    state = HandState(variant_for("F7S"), [8] * 8, cards=_eight_seat_source())
    assert state.actor == 7
    passive(state)
    common = [e for e in state.events if isinstance(e, BoardDealt)]
    assert len(common) == 1 and common[0].is_stud_common_card
    assert common[0].cards == tuple(parse_cards("Ah"))
    assert state.board == parse_cards("Ah")
    assert state.result.net_chips == (-8, -8, -8, 56, -8, -8, -8, -8)


def test_stud_common_card_from_seeded_deck_is_a_recycled_burn() -> None:
    """docs/house-rules.md §1: 8 players to seventh: 52 - 1 - 24 = 27, then 3 x (1 burn + 8) = 27 -> the
    stub is empty; the 4 burns go back, still fewer than 8, so one common card is dealt face
    up; it comes from the recycled burns, and no card is dealt twice."""
    rec = Recorder(31337)
    state = HandState(variant_for("F7S"), [8] * 8, cards=rec)
    passive(state)  # everyone all-in on third street: no seventh-street betting
    burns = rec.burns()
    assert len(burns) == 4
    common = [e for e in state.events if isinstance(e, BoardDealt)]
    assert len(common) == 1 and common[0].is_stud_common_card
    assert common[0].cards[0] in burns
    cards = dealt_cards(state)
    assert len(cards) == 8 * 6 + 1 == len(set(cards))
    assert all(len(state.cards[s]) == 6 for s in range(8))


def test_stud_common_card_seventh_street_opened_by_best_board_including_it() -> None:
    """docs/house-rules.md §1: when a common card is dealt, seventh-street betting is opened by the best
    five-card board including the common card.

    Up cards (3rd-6th): seat 3 shows As Ad 3d 4h (one pair), seat 0 Kh Ks 5c 5d (two pair,
    the best four-card board, so seat 0 opens sixth street). With the common Ah seat 3 shows
    three aces, the best five-card board, so seat 3 opens seventh street."""
    state = HandState(variant_for("F7S"), [1000] * 8, cards=_eight_seat_source())
    assert state.actor == 7  # the 7h door card brings in
    while state.street_index < 3:
        state.check_or_call()
    assert state.street == "sixth" and state.actor == 0
    while state.street_index == 3:
        state.check_or_call()  # the crash happens here, dealing seventh street
    assert state.street == "seventh"
    assert state.board == parse_cards("Ah")
    assert state.actor == 3
    passive(state)
    # pot: 8 x (3 ante + 5 bring-in/call) = 64; seat 3's four aces win it: +56
    assert state.result.net_chips == (-8, -8, -8, 56, -8, -8, -8, -8)


_RAZZ_EIGHT = {  # dealing order: down, down, up (door), up, up, up
    0: "KcKdAc2c3c7c",
    1: "KsKhAd2d3d6d",
    2: "4c4dQcJcTc9c",
    3: "4h4sQdJdTd9d",
    4: "5c5dQhJhTh9h",
    5: "5h5sQsJsTs9s",
    6: "8c8d8h8s7d7h",
    7: "AhAs2h2s3h3s",
}


def test_razz_common_card_seventh_street_opened_by_lowest_board() -> None:
    """docs/house-rules.md §1: with a common card, razz seventh street is opened by the lowest five-card
    board including the common card.

    Doors: Ac Ad Qc Qd Qh Qs 8h 2h -> the highest is a queen, the king-of-spades-worst suit
    order makes Qs (seat 5) the bring-in. 4th/5th: seats 0 and 1 tie (A-2, A-2-3), the lower
    suit of the highest card acts first in razz: seat 0 (clubs). 6th: A-2-3-6 (seat 1) beats
    A-2-3-7 (seat 0). 7th, common 6c: seat 1's board pairs its six (A-2-3-6-6) while seat 0
    shows 7-6-3-2-A, the lowest five-card board -> seat 0 opens. Showdown: seat 0's 7-6-3-2-A
    is the best low; pot 8 x (3 + 5) = 64 -> seat 0 nets +56."""
    source = ScriptedCards({s: parse_cards(c) for s, c in _RAZZ_EIGHT.items()},
                           parse_cards("6c"), name="razz eight")
    state = HandState(variant_for("FR"), [1000] * 8, cards=source)
    assert state.actor == 5
    while state.street_index < 1:
        state.check_or_call()
    assert state.actor == 0
    while state.street_index < 2:
        state.check_or_call()
    assert state.actor == 0
    while state.street_index < 3:
        state.check_or_call()
    assert state.actor == 1
    while state.street_index < 4:
        state.check_or_call()  # the crash happens here, dealing seventh street
    assert state.board == parse_cards("6c")
    assert state.actor == 0
    passive(state)
    assert state.result.net_chips == (56, -8, -8, -8, -8, -8, -8, -8)


@pytest.mark.parametrize("game", ["FT", "FO/8", "FR", "F7S", "F7S/8", "NT", "PO"])
@pytest.mark.parametrize("seats", [2, 3, 6, 8])
def test_seeded_deck_deals_street_at_once_as_card_by_card(game: str, seats: int) -> None:
    """docs/house-rules.md §1: a seeded deck deals each street (its burn included) in one pass; the cards,
    seats and events are those of the same seed dealt one card at a time, down to 8-handed
    stud, where the stub runs short and the burns are recycled."""
    for seed in range(20):
        fast = HandState(variant_for(game), [1000] * seats, seed=seed)
        slow = HandState(variant_for(game), [1000] * seats, cards=Recorder(seed))
        passive(fast)
        passive(slow)
        assert fast.events == slow.events
        assert fast.stacks == slow.stacks
