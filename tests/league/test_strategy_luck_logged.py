"""The league's luck from logged hands (issue 40): a hand's ``_strategies`` become action terms,
re-drawn from the match seed's key on the way; a tampered log is an error, never a silently
different adjustment."""

from __future__ import annotations

import pytest

from arena.engine.cards import derive_seed
from arena.engine.errors import ArenaError
from arena.engine.luck import LuckSettings, ValueFunction, hand_luck
from arena.engine.phh import dumps_hand
from arena.engine.rules import Rules
from arena.league.luck import luck_of_logged_hand
from arena.match.simulate import rules_for_game
from arena.match.strategy_sim import SimBot, mixed, play

pytestmark = pytest.mark.no_dealer  # never runs the dealer: not in the fast-paths-off pass

SETTINGS = LuckSettings(value=ValueFunction.PROJECTED_POT_EQUITY, samples=80, exact_limit=200)
SEED = 2 ** 130 + 7  # the match seed, as revealed


def test_logged_strategies_give_the_same_luck_as_the_dealer_computed() -> None:
    rules = rules_for_game("FT", Rules())
    with_terms = 0
    for hand in play([SimBot(strategy=mixed(0.8)), SimBot(strategy=mixed(0.4))], rules=rules,
                     game="FT", hands=12, seed=SEED):
        text = dumps_hand(hand.phh_fields())
        logged = luck_of_logged_hand(text, SEED, hand.hand_number, rules=rules, settings=SETTINGS)
        state = hand.state
        direct = hand_luck(state.variant, state.events, 2,
                           hand_seed=derive_seed(SEED, "hand", hand.hand_number - 1),
                           settings=SETTINGS, small_bet_chips=20, big_bet_chips=40,
                           decisions=hand.decisions)
        assert logged == pytest.approx(direct.luck_chips)
        chance_only = hand_luck(state.variant, state.events, 2,
                                hand_seed=derive_seed(SEED, "hand", hand.hand_number - 1),
                                settings=SETTINGS, small_bet_chips=20, big_bet_chips=40)
        with_terms += logged != pytest.approx(chance_only.luck_chips)
    assert with_terms > 0


def test_a_tampered_strategy_log_is_an_error() -> None:
    rules = rules_for_game("FT", Rules())
    hand = next(h for h in play([SimBot(strategy=mixed(0.8)), SimBot(strategy=mixed(0.4))],
                                rules=rules, game="FT", hands=12, seed=SEED)
                if any(len([w for w in r.weights if w > 0]) > 1 for r in h.records))
    fields = hand.phh_fields()
    record = next(r for r in fields["_strategies"] if len([w for w in r["weights"] if w > 0]) > 1)
    others = [k for k, w in enumerate(record["weights"]) if w > 0 and k != record["drawn"]]
    record["drawn"] = others[0]  # another entry than the key drew (and than the action taken)
    with pytest.raises(ArenaError, match="the key draws entry"):
        luck_of_logged_hand(dumps_hand(fields), SEED, hand.hand_number, rules=rules,
                            settings=SETTINGS)
    # The same hand claimed for another copy: that copy's key draws otherwise (fixed seed).
    with pytest.raises(ArenaError, match="the key draws entry"):
        luck_of_logged_hand(dumps_hand({**hand.phh_fields(), "_copy_index": 1}), SEED,
                            hand.hand_number, rules=rules, settings=SETTINGS)
    # A distribution changed after the fact: no longer one the draw came out of, or not valid.
    fields = hand.phh_fields()
    fields["_strategies"][0]["weights"] = [w * 2 for w in fields["_strategies"][0]["weights"]]
    with pytest.raises(ArenaError, match="sum to"):
        luck_of_logged_hand(dumps_hand(fields), SEED, hand.hand_number, rules=rules,
                            settings=SETTINGS)
