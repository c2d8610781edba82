"""The Showdown payload of the lowball and wild-card games (the words the wire and the event log
carry, issue 42): deuce-to-seven and ace-to-six lows (docs/house-rules.md §21, §22), wild hands
naming the wild cards (§23) and Low Hole's own wild rank (§24)."""

from __future__ import annotations

import re

import pytest

from arena.engine.cards import RANKS, format_card
from arena.engine.games import variant_for
from arena.engine.state import HandState
from arena.match import messages as m
from arena.match.feed import HandFeed
from tests.match.test_exchange_views import _passive
from tests.match.test_seat_views import _context

_LOWBALL_WORDS = re.compile(r"^([a-z]+-[a-z]+ low|low with [a-z ,]+): [2-9TJQKA](-[2-9TJQKA]){4}$")


def _shown_hands(code: str, seed: int) -> tuple[HandState, list[m.ShownHand]]:
    """One hand played passively to the showdown (standing pat), and the hands it showed."""
    state = HandState(variant_for(code), [500] * 3, seed=seed)
    feed = HandFeed(state, _context(state, (0, 1, 2), 3), lambda _p: True)
    while not state.is_over:
        legal = state.legal_actions()
        if legal.can_exchange:
            state.exchange(legal.seat, ())
        else:
            _passive(state)
    shown = [h for item in feed.drain() if isinstance(item, m.Showdown) for h in item.hands]
    assert len(shown) == 3
    return state, shown


@pytest.mark.parametrize("code", ["F2L3D", "FLL"])
@pytest.mark.parametrize("seed", range(4))
def test_lowball_showdown_words(code: str, seed: int) -> None:
    """§21 (2-7) and §22 (ace-to-six): only a low, in lowball words, with its five cards."""
    _, shown = _shown_hands(code, seed)
    for hand in shown:
        assert hand.high_description == "" and hand.high_cards == ()
        assert _LOWBALL_WORDS.match(hand.low_description), hand.low_description
        assert len(hand.low_cards) == 5 and set(hand.low_cards) <= set(hand.cards)
        if code == "FLL":
            assert "A" not in hand.low_description or hand.low_description.endswith("A")


@pytest.mark.parametrize("seed", range(8))
def test_wild_showdown_words_name_the_wild_cards(seed: int) -> None:
    """§23 (deuces wild, the default): a hand holding deuces names them as its wild cards."""
    _, shown = _shown_hands("F7SW", seed)
    for hand in shown:
        deuces = [c for c in hand.cards if RANKS[c >> 2] == "2"]
        if deuces:
            assert hand.high_description.endswith(
                f"wild: {' '.join(format_card(c) for c in deuces)})"), hand.high_description
            assert set(deuces) <= set(hand.high_cards)
        else:
            assert "wild" not in hand.high_description


@pytest.mark.parametrize("seed", range(6))
def test_low_hole_showdown_words_name_the_seats_wild_rank(seed: int) -> None:
    """§24: every hand names its own wild rank, the rank of its lowest down card (ace high)."""
    state, shown = _shown_hands("FLH", seed)
    plural = {"2": "deuces", "3": "threes", "4": "fours", "5": "fives", "6": "sixes",
              "7": "sevens", "8": "eights", "9": "nines", "T": "tens", "J": "jacks",
              "Q": "queens", "K": "kings", "A": "aces"}
    for hand in shown:
        cards = state.cards[hand.seat]
        lowest = min(c >> 2 for c, up in zip(cards, state.is_up[hand.seat], strict=True) if not up)
        assert f"; {plural[RANKS[lowest]]} wild: " in hand.high_description, hand.high_description
