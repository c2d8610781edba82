"""The live progress display labels its numbers and shows every bot."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from arena.league.progress import Progress, ProgressDisplay

pytestmark = pytest.mark.no_dealer  # never runs the dealer: not in the fast-paths-off pass


def sample() -> Progress:
    progress = Progress(total_hands=100, small_bet_chips=20, done_hands=3, played_this_run=3)
    for bot, net in (("alpha", 40), ("beta", -10), ("alpha", -20), ("gamma", -30), ("beta", 20)):
        progress.add(bot, net)
    progress.waiting_for = ("delta",)
    return progress


def test_the_line_labels_chips_and_mbb_per_hand_for_every_bot() -> None:
    line = sample().line()
    assert line.startswith("hands 3/100, ")
    assert " hands/s, ETA " in line and "| waiting for: delta |" in line
    # alpha: +20 chips in 2 hands = 500 mbb/hand; gamma -30 in 1 = -1500.
    assert line.endswith("alpha +20 chips (+500 mbb/hand), beta +10 chips (+250 mbb/hand), "
                         "gamma -30 chips (-1500 mbb/hand)")


def test_on_a_terminal_a_table_of_every_bot_is_drawn() -> None:
    out = io.StringIO()
    Console(file=out, width=100).print(sample().table())
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("hands 3/100") and "waiting for: delta" in lines[0]
    assert lines[1].split() == ["bot", "hands", "chips", "mbb/hand"]
    assert lines[2].split() == ["alpha", "2", "+20", "+500.0"]
    assert [line.split()[0] for line in lines[2:5]] == ["alpha", "beta", "gamma"]


def test_elsewhere_one_line_per_update() -> None:
    out = io.StringIO()
    view = ProgressDisplay(sample(), out)
    assert not view.interactive and view.interval_seconds == 5.0
    view.update()
    view.close()
    assert len(out.getvalue().splitlines()) == 2
