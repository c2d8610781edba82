"""The replayer's equity in issue 42's games (docs/house-rules.md §29): the engine's equity with the
hand's showdown keys and, where exchanges are still to come, the luck adjustment's draw policy;
the shares of every decision step sum to the whole pot over the live seats."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arena.engine.cards import parse_cards
from arena.engine.equity import equity
from arena.engine.luck import DEFAULT_LUCK_SAMPLES
from arena.engine.phh import PhhHand, loads
from arena.engine.rules import Rules
from arena.match.simulate import simulate
from arena.web.equityview import EQUITY_SAMPLES, EQUITY_SEED
from arena.web.frames import hand_steps

DRAW_STREETS = ("predraw", "first draw", "second draw", "third draw")


def _hands(tmp_path: Path, game: str, players: int, policy: str, count: int = 12) -> list[PhhHand]:
    simulate(game=game, players=players, hands=count, seed=3, out_dir=str(tmp_path), policy=policy)
    return loads((tmp_path / "hands.phhs").read_text())


def _cards(seat: dict[str, Any]) -> list[int]:
    return parse_cards("".join(code for code, _ in seat["cards"]))


def _check_sums(step: dict[str, Any], *, low_only: bool = False, high_only: bool = False) -> None:
    shares = [e for e, s in zip(step["equity"], step["seats"], strict=True) if e is not None]
    assert sum(e["total"] for e in shares) == pytest.approx(1.0)
    if low_only:  # lowball: the low is the whole pot
        assert sum(e["low"] for e in shares) == pytest.approx(1.0)
    if high_only:
        assert sum(e["high"] for e in shares) == pytest.approx(1.0)
    # Per half: the low half is at most half the pot (none without a qualifying low, which
    # then goes whole to the high half); a scoop is part of a seat's share.
    if not low_only:
        assert sum(e["low"] for e in shares) <= 0.5 + 1e-9
    assert all(e["scoop"] <= e["total"] + 1e-9 for e in shares)


def test_triple_draw_equity_plays_the_draws_to_come_with_the_luck_policy(tmp_path: Path) -> None:
    """§29: at a decision of street k, every live seat has 3 - k exchanges to come, played by the
    fixed 2-7 policy (`equity(plans=...)`), the discards so far going back only if the stub
    runs short; after the third draw the equity is the exact showdown of the cards held."""
    checked = {0: 0, 1: 0, 2: 0, 3: 0}
    for hand in _hands(tmp_path, "F2L3D", 6, "random"):
        discards: set[int] = set()
        for step in hand_steps(hand, reveal=True)["steps"]:
            if step["kind"] == "exchange":
                discards |= set(parse_cards("".join(c for c, _ in step["exchange"]["gave"])))
            if step["kind"] != "decision":
                continue
            _check_sums(step, low_only=True)
            live = [k for k, e in enumerate(step["equity"]) if e is not None]
            if len(live) < 2:
                continue
            held = [_cards(s) for s in step["seats"]]
            dead = [c for k, cards in enumerate(held) if k not in live for c in cards]
            in_hands = {c for cards in held for c in cards}
            rounds_left = 3 - DRAW_STREETS.index(step["street"])
            expected = equity("F2L3D", [held[k] for k in live], dead=dead,
                              plans=[(0,) * rounds_left] * len(live),
                              discards=sorted(discards - in_hands),
                              samples=DEFAULT_LUCK_SAMPLES, seed=EQUITY_SEED)
            got = [step["equity"][k] for k in live]
            assert [e["total"] for e in got] == pytest.approx(list(expected.totals), abs=1e-12)
            assert all(e["exact"] == (rounds_left == 0) for e in got)
            checked[rounds_left] += 1
    assert all(checked.values()), checked


@pytest.mark.parametrize(("wild", "ranks"), [("2", {0}), ("7K", {5, 11})])
def test_wild_card_equity_is_the_engine_equity_with_the_wild_ranks(
        tmp_path: Path, wild: str, ranks: set[int]) -> None:
    """§23 (deuces wild by default; any ranks by `wild_ranks`): each decision's shares are
    `equity` with the match's wild ranks."""
    rules = Rules.from_mapping({"wild_ranks": wild})
    simulate(game="F7SW", players=5, hands=6, seed=3, out_dir=str(tmp_path), policy="call",
             rules=rules)
    checked = differ = 0
    for hand in loads((tmp_path / "hands.phhs").read_text()):
        for step in hand_steps(hand, reveal=True, rules=rules)["steps"]:
            if step["kind"] != "decision":
                continue
            _check_sums(step, high_only=True)
            live = [k for k, e in enumerate(step["equity"]) if e is not None]
            held = [_cards(s) for s in step["seats"]]
            dead = [c for k, cards in enumerate(held) if k not in live for c in cards]
            expected = equity("F7SW", [held[k] for k in live], dead=dead, wild_ranks=ranks,
                              board=parse_cards("".join(step["board"])),
                              samples=EQUITY_SAMPLES, seed=EQUITY_SEED)
            assert [step["equity"][k]["total"] for k in live] == pytest.approx(
                list(expected.totals), abs=1e-12)
            plain = equity("F7S", [held[k] for k in live], dead=dead,
                           board=parse_cards("".join(step["board"])),
                           samples=EQUITY_SAMPLES, seed=EQUITY_SEED)
            differ += plain.totals != pytest.approx(expected.totals, abs=1e-9)
            checked += 1
    assert checked > 20 and differ  # not the plain stud equity: the deuces count


@pytest.mark.parametrize("game", ["F7SW/8", "FLH/8", "FLL", "FES"])
def test_every_new_game_has_equity_summing_to_the_pot(tmp_path: Path, game: str) -> None:
    """Hi-lo halves, Low Hole's own wild ranks, London Lowball's ace-to-six and English Stud's
    exchanges: every decision step has each live seat's share, and they make the whole pot."""
    steps = 0
    lows = 0.0
    for hand in _hands(tmp_path, game, 4, "call", count=4):
        data = hand_steps(hand, reveal=True)
        for step in data["steps"]:
            if step["kind"] == "decision":
                _check_sums(step, low_only=game == "FLL")
                lows += sum(e["low"] for e in step["equity"] if e is not None)
                steps += 1
    assert steps > 10
    if game.endswith("/8"):
        assert lows > 0  # the low half is played for


FES_STREETS = ("third", "fourth", "fifth", "sixth", "seventh")


def _english_plan(street: str, *, seventh_card: bool) -> tuple[int, ...]:
    """§25, §29: what is still to come to a live seat at a decision of ``street``: fourth to
    sixth street's up card, the exchange before sixth street's card and before seventh street
    (and the seventh card, down, with `english_seventh_card` at five players or fewer)."""
    steps = [(1, 1), (2, 1), (3, 0), (3, 1), (4, 0)] + ([(4, 1)] if seventh_card else [])
    return tuple(cards for k, cards in steps if k > FES_STREETS.index(street))


@pytest.mark.parametrize("seventh_card", [False, True])
def test_english_stud_equity_plays_the_exchanges_to_come(tmp_path: Path, seventh_card: bool) -> None:
    rules = Rules.from_mapping({"english_seventh_card": seventh_card})
    simulate(game="FES", players=4, hands=6, seed=5, out_dir=str(tmp_path), policy="call",
             rules=rules)
    checked = set()
    for hand in loads((tmp_path / "hands.phhs").read_text()):
        discards: set[int] = set()
        for step in hand_steps(hand, reveal=True, rules=rules)["steps"]:
            if step["kind"] == "exchange":
                discards |= set(parse_cards("".join(c for c, _ in step["exchange"]["gave"])))
            if step["kind"] != "decision":
                continue
            _check_sums(step, high_only=True)
            live = [k for k, e in enumerate(step["equity"]) if e is not None]
            held = [_cards(s) for s in step["seats"]]
            dead = [c for k, cards in enumerate(held) if k not in live for c in cards]
            in_hands = {c for cards in held for c in cards}
            plan = _english_plan(step["street"], seventh_card=seventh_card)
            expected = equity("FES", [held[k] for k in live], dead=dead, plans=[plan] * len(live),
                              discards=sorted(discards - in_hands),
                              samples=DEFAULT_LUCK_SAMPLES if 0 in plan else EQUITY_SAMPLES,
                              seed=EQUITY_SEED)
            assert [step["equity"][k]["total"] for k in live] == pytest.approx(
                list(expected.totals), abs=1e-12)
            checked.add(step["street"])
    assert checked == set(FES_STREETS)
