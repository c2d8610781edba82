"""The Python SDK's exchange helpers (docs/house-rules.md §26) and the triple-draw example."""

from __future__ import annotations

import pytest
from arena_bot import Action, SeatView
from arena_bot._proto import arena_pb2 as pb
from arena_bot.examples import random_bot, rule_based, triple_draw_exchange

pytestmark = pytest.mark.no_dealer  # never runs the dealer: not in the fast-paths-off pass


def _exchange_view(cards: list[str], most: int = 5, game: str = "F2L3D") -> SeatView:
    return SeatView(pb.DecisionRequest(
        decision_id="t-h1-d4", game_code=game, street=pb.STREET_FIRST_DRAW, hole_cards=cards,
        legal_actions=[pb.LegalAction(kind=pb.ACTION_KIND_EXCHANGE, min_exchange_cards=0,
                                      max_exchange_cards=most, exchangeable_cards=cards)],
        wild_ranks=["2"]))


def test_exchange_and_stand_pat_fill_the_proto() -> None:
    view = _exchange_view(["Kd", "7h", "5c", "4s", "2d"])
    assert view.is_exchange_round and view.max_exchange_cards == 5
    assert view.street == "first draw" and view.wild_ranks == ["2"]
    sent = view.exchange(["Kd"]).to_proto()
    assert (sent.kind, list(sent.exchange_cards)) == (pb.ACTION_KIND_EXCHANGE, ["Kd"])
    pat = view.stand_pat().to_proto()
    assert (pat.kind, list(pat.exchange_cards)) == (pb.ACTION_KIND_EXCHANGE, [])
    # The SDK's safe default in an exchange round (its fallback) is to stand pat.
    assert view.check_or_fold() == view.check_or_call() == Action("exchange")


def test_the_triple_draw_example_keeps_distinct_low_cards() -> None:
    """docs/house-rules.md §21 (deuce-to-seven: aces high, pairs bad): from Kd 7h 7c 4s 2d
    it keeps 7-4-2 and draws to the king and the second seven."""
    view = _exchange_view(["Kd", "7h", "7c", "4s", "2d"])
    assert set(triple_draw_exchange(view).exchange_cards) == {"Kd", "7c"}
    assert rule_based(view) == triple_draw_exchange(view)
    assert triple_draw_exchange(_exchange_view(["8d", "7h", "5c", "4s", "2d"])).exchange_cards == ()
    # never more than the round allows
    assert len(triple_draw_exchange(_exchange_view(["Ad", "Ac", "Kd", "Kc", "Qd"], most=1)
                                    ).exchange_cards) == 1
    # English Stud (one card, either face): the rule-based bot stands pat.
    assert rule_based(_exchange_view(["Kd", "7h"], most=1, game="FES")) == Action("exchange")


def test_the_random_bot_exchanges_its_own_cards_within_the_limit() -> None:
    choose = random_bot(1)
    cards = ["Kd", "7h", "7c", "4s", "2d"]
    for _ in range(30):
        action = choose(_exchange_view(cards, most=3))
        assert action.kind == "exchange" and len(action.exchange_cards) <= 3
        assert set(action.exchange_cards) <= set(cards)
        assert len(set(action.exchange_cards)) == len(action.exchange_cards)
