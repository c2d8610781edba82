"""Issue 40: the leaderboard's share of decisions answered with a declared strategy, counted
from the hand logs' players, actions and ``_strategies``."""

from __future__ import annotations

import pytest

from arena.engine.phh import dumps_hand
from arena.engine.rules import Rules
from arena.league.strategy_share import (
    StrategyShare,
    hand_counts,
    render_strategy_shares,
    strategy_shares,
)
from arena.match.simulate import rules_for_game
from arena.match.strategy_sim import SimBot, mixed, play

pytestmark = pytest.mark.no_dealer  # never runs the dealer: not in the fast-paths-off pass


def test_shares_count_each_bots_decisions_and_its_drawn_ones() -> None:
    rules = rules_for_game("FT", Rules())
    texts = []
    expected = {"declarer": [0, 0], "sampler": [0, 0]}
    for hand in play([SimBot(strategy=mixed(0.8)), SimBot(strategy=mixed(0.4), declares=False)],
                     rules=rules, game="FT", hands=20, seed=3):
        fields = hand.phh_fields()
        fields["players"] = ["declarer" if bot == 0 else "sampler" for bot in hand.order]
        texts.append(dumps_hand(fields))
        for event_seat in (e.seat for e in hand.state.events if type(e).__name__ == "ActionTaken"):
            expected[fields["players"][event_seat]][0] += 1
        expected["declarer"][1] += len(hand.records)
    shares = strategy_shares(texts)
    assert shares == (StrategyShare(bot="declarer", decisions=expected["declarer"][0],
                                    strategy_replies=expected["declarer"][1]),
                      StrategyShare(bot="sampler", decisions=expected["sampler"][0],
                                    strategy_replies=0))
    assert shares[0].share == 1.0 and shares[1].share == 0.0
    line = render_strategy_shares(shares)
    assert line.startswith("Strategy replies") and "declarer" in line and "sampler" not in line
    assert f"{expected['declarer'][1]} of {expected['declarer'][0]} (100%)" in line


def test_no_strategies_no_line_and_unreadable_text_counts_nothing() -> None:
    assert render_strategy_shares([StrategyShare(bot="a", decisions=10, strategy_replies=0)]) == ""
    assert hand_counts("not a hand") == {}
    assert hand_counts("players = ['a', 'b']\nactions = 'x'\n") == {}
    assert hand_counts("players = ['a', 'b']\nactions = ['p1 cc', 'p2 f', 'p3 cc', 'd db 7h']\n"
                       "_strategies = [{seat = 5}, 'x', {seat = 1}]\n") == {"a": (1, 0), "b": (1, 1)}
