"""Issue 36, the web spy: over a duplicate league whose copies play at the same time, every state
the live view could send is checked the moment it changes; none shows a card of a hand that
another copy of its deal has not yet ended (and some are withheld: the guard is exercised)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from arena.host.sandbox import PYTHON_SDK
from arena.league.config import league_from_mapping
from arena.league.runner import LeagueRun
from arena.match import messages as m
from arena.web.live import HIDDEN, SpectatorHub

pytestmark = [pytest.mark.timeout(240)]
BOTS = ("alpha", "beta", "gamma")


class Spy:
    """Forwards every event to the hub, then looks at everything the hub would show now."""

    def __init__(self, hub: SpectatorHub) -> None:
        self.hub = hub
        self.hand_of: dict[str, int] = {}
        self.ended: dict[str, int] = defaultdict(int)  # match -> last hand it ended
        self.shown = 0
        self.withheld = 0
        self.leaks: list[str] = []

    def event_watched(self, notice: m.Notice) -> None:
        if isinstance(notice.payload, m.HandStarted):
            self.hand_of[notice.match_id] = notice.payload.hand_number
        elif isinstance(notice.payload, m.HandEnded):
            self.ended[notice.match_id] = self.hand_of[notice.match_id]
        self.hub.event_watched(notice)
        for state in self.hub.snapshot():
            self._check(state)

    def decision_opened(self, prompt: m.Prompt) -> None:
        self.hub.decision_opened(prompt)

    def _check(self, state: dict[str, Any]) -> None:
        if "cards_withheld" in state:
            self.withheld += 1
        cards = [*state.get("board", []), *(c for s in state.get("seats", []) for c in s["up"]),
                 *(c for h in state.get("shown", []) for c in h["cards"])]
        if not any(card != HIDDEN for card in cards):
            return
        self.shown += 1
        match_id, number = state["match_id"], state["hand_number"]
        deal_set = match_id.rsplit("-c", 1)[0]
        behind = [other for other in self.hand_of if other != match_id
                  and other.rsplit("-c", 1)[0] == deal_set and self.ended[other] < number]
        copies = {k for k in self.hand_of if k.rsplit("-c", 1)[0] == deal_set}
        if behind or len(copies) < 2:
            self.leaks.append(f"{match_id} hand {number}: {cards} while {behind or 'a copy'} "
                              "has not played it")


def test_no_card_reaches_the_live_view_before_every_copy_has_played_its_hand(tmp_path: Path) -> None:
    config = league_from_mapping({
        "name": "web-spy", "hands_per_match": 12, "listen": "127.0.0.1:0", "tables_at_once": 6,
        "seed": 11, "bots": [{"name": b, "token": f"token-{b}-0001"} for b in BOTS]},
        base_dir=tmp_path)
    run = LeagueRun(config, out=io.StringIO())
    spy = Spy(SpectatorHub())
    bots: list[subprocess.Popen[bytes]] = []

    def ready(port: int) -> None:
        for name in BOTS:
            bots.append(subprocess.Popen(
                [sys.executable, "-m", "arena_bot", "call", "--server", f"127.0.0.1:{port}",
                 "--token", f"token-{name}-0001"], env={**os.environ, "PYTHONPATH": str(PYTHON_SDK)},
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))

    try:
        assert run.run(on_ready=ready, spectator=spy) is True
    finally:
        run.close()
        for bot in bots:
            bot.wait(timeout=60)
    assert spy.leaks == []
    assert spy.shown > 0 and spy.withheld > 0, (spy.shown, spy.withheld)
