"""Equity and luck with exchanges still to come (issue 42): 2-7 triple draw (docs/house-rules.md
§21) and English Stud (§25), their runouts played by the fixed policies of §29."""

from __future__ import annotations

import pytest

from arena.engine.cards import parse_cards
from arena.engine.drawpolicy import deuce_to_seven_discards, english_stud_discards, policy_for
from arena.engine.equity import equity
from arena.engine.games import variant_for
from arena.engine.lowball import deuce_to_seven_value
from arena.engine.luck import LuckSettings, hand_luck
from arena.engine.rules import Rules
from arena.match.simulate import iter_hands, rules_for_game


@pytest.mark.parametrize(("hand", "given"), [
    ("7c 5d 4h 3s 2c", ""),  # §29: a made seven-low stands pat
    ("9c 8d 6h 4s 2c", ""),  # ... and a nine-low
    ("Tc 7d 5h 3s 2c", "Tc"),  # a ten breaks: keep the deuce-to-seven cards
    ("Kc Kd 7h 4s 2c", "Kc Kd"),  # pairs and high cards go
    ("7c 7d 4h 4s 2c", "7d 4s"),  # one card of each low rank kept (the lowest suit)
    ("6c 5d 4h 3s 2c", "6c"),  # a straight of low cards: its highest card goes
    ("7h 5h 4h 3h 2h", "7h"),  # ... and a flush
    ("Ac 5d 4h 3s 2c", "Ac"),  # the ace is high in 2-7: it goes
])
def test_deuce_to_seven_policy(hand: str, given: str) -> None:
    assert deuce_to_seven_discards(parse_cards(hand)) == tuple(parse_cards(given))


@pytest.mark.parametrize(("hand", "given"), [
    ("9c Th Jd Qs Kc", ""),  # §29: a straight or better stands pat
    ("Kc Kd 7h 4s 2c", "2c"),  # the lowest unpaired card goes
    ("Kc Kd 7h 7s 2c 2d", ""),  # every rank paired: stand pat
    ("Ac 9d 7h 4s 3c", "3c"),
])
def test_english_stud_policy(hand: str, given: str) -> None:
    assert english_stud_discards(parse_cards(hand)) == tuple(parse_cards(given))


def test_policies_belong_to_the_games_with_exchanges() -> None:
    assert policy_for(variant_for("F2L3D")) is deuce_to_seven_discards
    assert policy_for(variant_for("FES")) is english_stud_discards
    with pytest.raises(ValueError, match="no exchanges"):
        policy_for(variant_for("F7S"))


def test_triple_draw_with_no_draw_left_is_exact_enumeration() -> None:
    """§21 showdown, deuce-to-seven: one seat still to be served two cards, none to come later."""
    hands = [parse_cards("7c 5d 4h"), parse_cards("8c 6d 4s 3c 2d")]
    result = equity("F2L3D", hands, plans=[(2,), ()], exact_limit=2000)
    assert result.is_exact
    stub = [c for c in range(52) if c not in {*hands[0], *hands[1]}]
    wins = 0.0
    count = 0
    mine = deuce_to_seven_value(hands[1])
    for i, a in enumerate(stub):
        for b in stub[i + 1:]:
            value = deuce_to_seven_value([*hands[0], a, b])
            wins += 1.0 if value > mine else 0.5 if value == mine else 0.0
            count += 1
    assert result.totals[0] == pytest.approx(wins / count, abs=1e-12)


def test_a_draw_to_come_matches_brute_force_over_every_card() -> None:
    """§29: a seat with one draw to come plays the policy (here: give away the king, draw
    one). Its exact equity is the mean over every card it can draw; the sampled one is close."""
    hands = [parse_cards("7c 5d 4h 2s Kd"), parse_cards("9c 6d 4s 3c 2d")]
    assert deuce_to_seven_discards(hands[0]) == tuple(parse_cards("Kd"))
    kept = parse_cards("7c 5d 4h 2s")
    dead = parse_cards("Kd")
    stub = [c for c in range(52) if c not in {*hands[0], *hands[1]}]
    mine = deuce_to_seven_value(hands[1])
    exact = sum(1.0 if (v := deuce_to_seven_value([*kept, c])) > mine else 0.5 if v == mine else 0.0
                for c in stub) / len(stub)
    # The same draw, served now (the walker's "before" of the exchange): exact.
    served = equity("F2L3D", [kept, hands[1]], plans=[(1,), ()], dead=dead, exact_limit=100)
    assert served.is_exact and served.totals[0] == pytest.approx(exact, abs=1e-12)
    sampled = equity("F2L3D", hands, plans=[(0,), ()], samples=4000, seed=1)
    assert not sampled.is_exact
    assert sampled.totals[0] == pytest.approx(exact, abs=0.03)
    assert sampled == equity("F2L3D", hands, plans=[(0,), ()], samples=4000, seed=1)  # seeded


def test_the_last_draw_has_zero_mean_luck() -> None:
    """Exactly: before a seat's last replacement cards the equity (every card enumerated) is the
    mean of the equities after each card it can get, so the term averages to zero (§29)."""
    kept = parse_cards("7c 5d 4h 2s")
    other = parse_cards("9c 6d 4s 3c 2d")
    dead = parse_cards("Kd")
    before = equity("F2L3D", [kept, other], plans=[(1,), ()], dead=dead, exact_limit=100).totals
    stub = [c for c in range(52) if c not in {*kept, *other, *dead}]
    afters = [equity("F2L3D", [[*kept, c], other], plans=[(), ()], dead=dead).totals for c in stub]
    for seat in (0, 1):
        assert sum(a[seat] for a in afters) / len(afters) == pytest.approx(before[seat], abs=1e-12)


def test_english_stud_with_no_exchange_left_is_exact() -> None:
    """§25: best five of six cards (no seventh card): one card to come to each seat."""
    hands = [parse_cards("Kc Kd 7h 4s 2c"), parse_cards("Ac Qd 9h 8s 3c")]
    result = equity("FES", hands, plans=[(1,), (1,)], exact_limit=2000)
    assert result.is_exact and result.runouts == 42 * 41
    assert sum(result.totals) == pytest.approx(1.0)
    assert result.totals == equity("FES", hands, exact_limit=2000).totals  # the default: 6 cards


@pytest.mark.parametrize(("game", "keys"), [("F2L3D", {}), ("FES", {}),
                                            ("FES", {"english_seventh_card": True,
                                                     "exchange_price": 5})])
def test_luck_of_hands_with_exchanges(game: str, keys: dict[str, object]) -> None:
    """Every drawn replacement is a chance term of its seat; the terms of an event sum to zero
    over the seats; the same events and seed give the same luck."""
    rules = rules_for_game(game, Rules.from_mapping(keys))
    settings = LuckSettings(samples=40, exact_limit=60)
    draws = 0
    for state, _order, index in iter_hands(rules=rules, players=3, hands=4, seed=7, policy="random"):
        luck = hand_luck(state.variant, state.events, state.seat_count, hand_seed=index,
                         settings=settings, rules=state.rules)
        assert luck == hand_luck(state.variant, state.events, state.seat_count, hand_seed=index,
                                 settings=settings, rules=state.rules)
        assert sum(luck.luck_chips) == pytest.approx(0.0, abs=1e-6)
        for term in luck.terms:
            assert sum(term.luck_chips) == pytest.approx(0.0, abs=1e-6)
        draws += sum(1 for e in state.events if type(e).__name__ == "CardsExchanged" and e.drawn)  # type: ignore[union-attr]
    assert draws > 0


def test_bad_plans_are_value_errors() -> None:
    hands = [parse_cards("7c 5d 4h 2s Kd"), parse_cards("9c 6d 4s 3c 2d")]
    with pytest.raises(ValueError, match="one per hand"):
        equity("F2L3D", hands, plans=[()])
    with pytest.raises(ValueError, match="at most 8 steps"):
        equity("F2L3D", hands, plans=[(9,), ()])
    with pytest.raises(ValueError, match="given twice"):
        equity("F2L3D", hands, plans=[(), ()], discards=parse_cards("Kd"))


def test_a_draw_from_a_short_stub_has_zero_mean_luck() -> None:
    """§21 with §29: when the unseen cards run short the runouts shuffle the earlier discards
    back in, and the discards of the exchange being served only after its replacement cards.
    The equity before that draw is the mean of the equities after each way it can come (three
    here), up to the Monte Carlo error."""
    kept = parse_cards("7c 5d 4h")
    other = parse_cards("9c 6d 4s 3c Kd")
    served = parse_cards("2h 3d")  # the seat gives these away and gets two of the three left
    left = parse_cards("8h Qs Jc")
    known = {*kept, *other, *served, *left}
    rest = [c for c in range(52) if c not in known]
    # Earlier exchanges' discards (nines and up: the served deuce and trey, once back among
    # them, are what the later draws hope for); the rest are folded hands' cards.
    discards, dead = rest[-12:], rest[:-12]
    samples = 6000
    before = equity("F2L3D", [kept, other], plans=[(2, 0), (0,)], dead=dead, discards=discards,
                    held_back=served, held_back_hand=0, samples=samples, seed=3).totals
    afters = []
    for k, (a, b) in enumerate([(0, 1), (0, 2), (1, 2)]):
        hand = [*kept, left[a], left[b]]
        afters.append(equity("F2L3D", [hand, other], plans=[(0,), (0,)], dead=dead,
                             discards=[*discards, *served], samples=samples, seed=10 + k).totals)
    for seat in (0, 1):
        assert sum(a[seat] for a in afters) / 3 == pytest.approx(before[seat], abs=0.025)
    # Were the served cards dead for good, the draws to come would be worse by about 0.1.
    never_back = equity("F2L3D", [kept, other], plans=[(2, 0), (0,)], dead=[*dead, *served],
                        discards=discards, samples=samples, seed=3).totals
    assert before[0] - never_back[0] > 0.05
    with pytest.raises(ValueError, match="held_back"):
        equity("F2L3D", [kept, other], plans=[(1, 0), (0,)], held_back=served)


def test_a_discard_dealt_again_after_the_stub_ran_out() -> None:
    """§21: when the stub runs out the discards are shuffled back in, so a card given away may
    come back to another seat; its luck is still computed (the card is live again)."""
    from arena.engine.events import CardsExchanged

    rules = rules_for_game("F2L3D", Rules())
    settings = LuckSettings(samples=20, exact_limit=20)
    found = 0
    for state, _order, index in iter_hands(rules=rules, players=6, hands=40, seed=2,
                                           policy="random"):
        given: set[int] = set()
        again = False
        for event in state.events:
            if isinstance(event, CardsExchanged):
                again = again or bool(given & set(event.drawn))
                given |= set(event.discarded)
        if not again:
            continue
        luck = hand_luck(state.variant, state.events, state.seat_count, hand_seed=index,
                         settings=settings, rules=state.rules)
        assert sum(luck.luck_chips) == pytest.approx(0.0, abs=1e-6)
        found += 1
        if found == 2:
            break
    assert found == 2


@pytest.mark.parametrize("game", ["F2L3D", "FES", "F7SW", "FLH/8"])
def test_terms_are_zero_mean_per_chance_event_on_simulated_hands(game: str) -> None:
    """§29: over simulated hands (random bets and exchanges) each chance event's term of
    seat 0, the replacement cards of exchanges included, averages to 0 within its CI."""
    import math
    import statistics

    rules = rules_for_game(game, Rules())
    settings = LuckSettings(samples=60, exact_limit=120)
    by_event: dict[int, list[float]] = {}
    hands = 50 if game in ("F7SW", "FLH/8") else 80
    for state, _order, index in iter_hands(rules=rules, players=3, hands=hands, seed=13,
                                           policy="random"):
        luck = hand_luck(state.variant, state.events, state.seat_count, hand_seed=index,
                         settings=settings, rules=state.rules)
        for k, term in enumerate(luck.terms):
            by_event.setdefault(k, []).append(term.luck_chips[0] / state.stakes.small_bet)
    checked = 0
    for k, values in by_event.items():
        if len(values) < 30:
            continue
        mean = statistics.fmean(values)
        se = statistics.stdev(values) / math.sqrt(len(values))
        assert se > 0, (game, k)
        assert abs(mean) < 4.5 * se, (game, k, mean, se)
        checked += 1
    assert checked >= 2


def test_an_english_stud_exchange_to_come_matches_brute_force() -> None:
    """§25 with §29: seat 0 still has the second exchange round (no seventh card): the policy
    gives away its lowest unpaired card; the exact equity is the mean over every replacement,
    the best five of six cards against seat 1's six (both high, §5)."""
    from arena.engine.evaluate import high_value

    hands = [parse_cards("Kc Kd 9h 7s 4c 3d"), parse_cards("Qc Qd Jh Ts 8c 2h")]
    assert english_stud_discards(hands[0]) == tuple(parse_cards("3d"))
    kept = [c for c in hands[0] if c != parse_cards("3d")[0]]
    stub = [c for c in range(52) if c not in {*hands[0], *hands[1]}]
    theirs = high_value(hands[1])
    exact = sum(1.0 if (v := high_value([*kept, c])) > theirs else 0.5 if v == theirs else 0.0
                for c in stub) / len(stub)
    sampled = equity("FES", hands, plans=[(0,), ()], samples=4000, seed=2)
    assert sampled.totals[0] == pytest.approx(exact, abs=0.03)
    served = equity("FES", [kept, hands[1]], plans=[(1,), ()], dead=parse_cards("3d"),
                    exact_limit=100)
    assert served.is_exact and served.totals[0] == pytest.approx(exact, abs=1e-12)
