"""Replayer steps from PHH logs: cards, stacks, pots, showdown words, odd chips, equity."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.engine.cards import parse_cards
from arena.engine.equity import equity
from arena.engine.phh import PhhHand
from arena.engine.rules import Rules
from arena.host.phhfile import load_file
from arena.match.simulate import simulate
from arena.web.frames import HIDDEN, hand_steps
from tests.web.test_browser import dealt_cards, shown_seats


@pytest.fixture(scope="module")
def hands(tmp_path_factory: pytest.TempPathFactory) -> list[PhhHand]:
    out: list[PhhHand] = []
    for players, policy, overrides in (
            (2, "call", []), (4, "call", []), (6, "random", []),
            # short stacks carried from hand to hand: unequal all-ins, so side pots
            (5, "random", ["starting_stack=60", "reset_stacks=false"])):
        directory = tmp_path_factory.mktemp(f"sim{players}")
        simulate(game="horse", players=players, hands=60, seed=players, out_dir=str(directory),
                 policy=policy, rules=Rules().with_overrides(overrides))
        out += load_file(str(Path(directory) / "hands.phhs"))
    return out


def test_one_step_per_action_line_with_the_logged_cards_and_stacks(hands: list[PhhHand]) -> None:
    """Step aN is the table after PHH line N: each seat's cards (stud: third to sixth up, docs/house-rules.md
    §2) as the log dealt them; the last step has the log's finishing stacks."""
    for hand in hands:
        data = hand_steps(hand, reveal=True, with_equity=False)
        lines = hand.fields["actions"]
        assert [s["a"] for s in data["steps"]] == list(range(len(lines) + 2))
        for step in data["steps"][:-1]:
            drawn = [[(c, up) for c, up in seat["cards"]] for seat in step["seats"]]
            assert drawn == dealt_cards(hand.fields, step["a"]), (hand.name, step["a"])
        final = data["steps"][-1]
        assert [s["stack"] for s in final["seats"]] == hand.fields["finishing_stacks"]
        assert data["finishing_stacks"] == hand.fields["finishing_stacks"]
        assert sum(a["amount"] for a in data["awards"]) == sum(p["amount"] for p in final["pots"])


def test_pots_hold_every_committed_chip_and_side_pots_appear(hands: list[PhhHand]) -> None:
    """docs/house-rules.md §5 side pots: the pots of a step hold every chip committed so far; a side pot
    exists only above a live all-in seat's stake, and that seat is not eligible for it."""
    side_pots = 0
    for hand in hands:
        for step in hand_steps(hand, reveal=True, with_equity=False)["steps"]:
            seats = step["seats"]
            assert sum(p["amount"] for p in step["pots"]) == sum(s["committed"] for s in seats)
            if len(step["pots"]) > 1:
                side_pots += 1
                capped = [k for k, s in enumerate(seats) if s["all_in"] and not s["folded"]]
                assert capped and any(k not in step["pots"][-1]["eligible"] for k in capped)
            if not any(s["all_in"] and not s["folded"] for s in seats):
                assert len(step["pots"]) <= 1, (hand.name, step["a"])  # uneven blinds: one pot
    assert side_pots > 0


def test_showdown_names_and_hi_lo_halves(hands: list[PhhHand]) -> None:
    """docs/house-rules.md §5: hand names for every shown hand; a hi-lo pot split in halves, the high half
    taking the odd chip."""
    halves = odd = 0
    for hand in hands:
        data = hand_steps(hand, reveal=True, with_equity=False)
        for shown in data["showdown"]:
            assert shown["high"] or shown["low"]
            if data["game"] == "FR":
                assert shown["high"] == "" and shown["low"]
        shares = {a["share"] for a in data["awards"]}
        if {"high", "low"} <= shares:
            halves += 1
            for award in data["awards"]:
                if award["odd_chip_half"]:
                    odd += 1
                    low = next(a for a in data["awards"] if a["pot"] == award["pot"] and a["share"] == "low")
                    assert award["share"] == "high" and award["amount"] == low["amount"] + 1
        for award in data["awards"]:
            amounts = [w["chips"] for w in award["winners"]]
            if len(set(amounts)) > 1:
                assert [w["odd_chip"] for w in award["winners"]] == [a == max(amounts) for a in amounts]
    assert halves > 0


def test_unfinished_match_hides_cards_never_shown(hands: list[PhhHand]) -> None:
    """docs/house-rules.md §9: a hand of a running match shows up cards, the board and shown hands only."""
    checked = 0
    for hand in hands:
        data = hand_steps(hand, reveal=False, with_equity=False)
        shown = shown_seats(hand.fields)
        for step in data["steps"]:
            assert "equity" not in step
            for seat, (drawn, dealt) in enumerate(zip(
                    (s["cards"] for s in step["seats"]), dealt_cards(hand.fields, step["a"]), strict=True)):
                for (code, _up), (card, dealt_up) in zip(drawn, dealt, strict=True):
                    if dealt_up or seat in shown:
                        assert code == card
                    else:
                        assert code == HIDDEN
                        checked += 1
        text = str(data)
        for seat, dealt in enumerate(dealt_cards(hand.fields)):
            if seat not in shown:
                assert not any(card in text for card, is_up in dealt if not is_up)
    assert checked > 0


def test_equity_at_each_decision_is_the_engine_equity_of_the_cards_then_known(
        hands: list[PhhHand]) -> None:
    """Shares sum to 1 over live seats; exact by enumeration on the last street."""
    for hand in hands[:40]:
        data = hand_steps(hand, reveal=True)
        for step in data["steps"]:
            if step["kind"] != "decision":
                continue
            shares = [e for e in step["equity"] if e is not None]
            assert sum(e["total"] for e in shares) == pytest.approx(1.0)
            last_street = step["street"] in ("river", "seventh")
            if last_street and len(shares) > 1:
                assert all(e["exact"] for e in shares)
    # One case by hand: two hold'em hands all in on the turn, by enumeration of the 44 rivers.
    result = equity("FT", [parse_cards("AsAh"), parse_cards("KsKh")], board=parse_cards("2c7d9sTh"))
    assert result.is_exact and result.seats[1].total == pytest.approx(2 / 44)
